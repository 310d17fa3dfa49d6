package dev.lanes;

import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * Where a lane's workers record each task's queue wait, run time and CPU time, and where readers
 * turn them into {@link Timings}.
 *
 * <p><b>Concurrency design.</b> Recording is striped so that workers do not contend: each stripe
 * has its own three auto-resizing HdrHistograms and running sums, guarded by its own {@link
 * ReentrantLock}. A platform worker owns a stripe (so its lock is never contended unless a lane
 * has more threads than stripes); virtual-lane workers share stripes by spawn order. One shared
 * HdrHistogram {@code Recorder} would make every worker hit the same atomic counter (measured
 * ≈ 0.3 µs per record under contention on two cores, against ≈ 20 ns here).
 *
 * <p>Readers serialise on {@code readLock}: a read drains every stripe (lock, add into the
 * accumulators, reset, unlock) into the since-start and current-interval accumulators, and
 * rotates the interval when {@code intervalNanos} has passed. Figures are therefore exact for the
 * tasks that ended before the read, and a task ending during a read lands in this read or the
 * next, never both.
 */
final class TimingBook {

  private static final int DIGITS = 2;

  private final Stripe[] stripes;
  private final long intervalNanos;
  private final long startNanos;

  private final ReentrantLock readLock = new ReentrantLock();
  private final Acc total = new Acc();
  private final Acc current = new Acc();
  private long intervalStart;
  private Timings recent;
  private boolean intervalCompleted;

  TimingBook(int stripeCount, long intervalNanos, long startNanos) {
    this.stripes = new Stripe[stripeCount];
    for (int i = 0; i < stripeCount; i++) {
      stripes[i] = new Stripe();
    }
    this.intervalNanos = intervalNanos;
    this.startNanos = startNanos;
    this.intervalStart = startNanos;
    this.recent = Timings.EMPTY;
  }

  int stripeCount() {
    return stripes.length;
  }

  /**
   * Records one task that ran; {@code cpuNanos < 0} means not measured. {@code outcome} indexes
   * the cumulative outcome counts (0 completed, 1 failed, 2 cancelled), kept here so that a
   * worker counts and times a task under one uncontended lock.
   */
  void record(int stripe, long waitNanos, long runNanos, long cpuNanos, int outcome) {
    Stripe s = stripes[stripe];
    s.lock.lock();
    try {
      s.acc.add(waitNanos, runNanos, cpuNanos);
      s.outcomes[outcome]++;
    } finally {
      s.lock.unlock();
    }
  }

  /** Cumulative outcome counts of the tasks that ran: completed, failed, cancelled. */
  long[] outcomes() {
    long[] sum = new long[3];
    for (Stripe s : stripes) {
      s.lock.lock();
      try {
        for (int i = 0; i < 3; i++) {
          sum[i] += s.outcomes[i];
        }
      } finally {
        s.lock.unlock();
      }
    }
    return sum;
  }

  /** Since-start and recent timings as of {@code now}. */
  Timings[] read(long now) {
    readLock.lock();
    try {
      drain();
      if (now - intervalStart >= intervalNanos) {
        recent = current.toTimings(now - intervalStart);
        current.reset();
        intervalStart = now;
        intervalCompleted = true;
      }
      Timings sinceStart = total.toTimings(now - startNanos);
      Timings shownRecent = intervalCompleted ? recent : current.toTimings(now - intervalStart);
      return new Timings[] {sinceStart, shownRecent};
    } finally {
      readLock.unlock();
    }
  }

  /** Cumulative count, wait and run sums (for the health monitor's windows). */
  long[] sums() {
    readLock.lock();
    try {
      drain();
      return new long[] {total.count, total.waitSum, total.runSum};
    } finally {
      readLock.unlock();
    }
  }

  private void drain() {
    for (Stripe s : stripes) {
      s.lock.lock();
      try {
        if (s.acc.count > 0) {
          total.addAll(s.acc);
          current.addAll(s.acc);
          s.acc.reset();
        }
      } finally {
        s.lock.unlock();
      }
    }
  }

  private static final class Stripe {
    final ReentrantLock lock = new ReentrantLock();
    final Acc acc = new Acc();
    final long[] outcomes = new long[3];
  }

  /** Histograms and exact sums; not thread-safe (callers hold a lock). */
  private static final class Acc {
    final Histogram wait = new Histogram(DIGITS);
    final Histogram run = new Histogram(DIGITS);
    final Histogram cpu = new Histogram(DIGITS);
    long count;
    long waitSum;
    long runSum;
    long waitMax;
    long runMax;
    long cpuCount;
    long cpuSum;
    long cpuMax;
    long cpuRunSum;

    void add(long waitNanos, long runNanos, long cpuNanos) {
      long w = Math.max(0, waitNanos);
      long r = Math.max(0, runNanos);
      wait.recordValue(w);
      run.recordValue(r);
      count++;
      waitSum += w;
      runSum += r;
      if (w > waitMax) {
        waitMax = w;
      }
      if (r > runMax) {
        runMax = r;
      }
      if (cpuNanos >= 0) {
        cpu.recordValue(cpuNanos);
        cpuCount++;
        cpuSum += cpuNanos;
        cpuRunSum += r;
        if (cpuNanos > cpuMax) {
          cpuMax = cpuNanos;
        }
      }
    }

    void addAll(Acc o) {
      wait.add(o.wait);
      run.add(o.run);
      cpu.add(o.cpu);
      count += o.count;
      waitSum += o.waitSum;
      runSum += o.runSum;
      waitMax = Math.max(waitMax, o.waitMax);
      runMax = Math.max(runMax, o.runMax);
      cpuCount += o.cpuCount;
      cpuSum += o.cpuSum;
      cpuMax = Math.max(cpuMax, o.cpuMax);
      cpuRunSum += o.cpuRunSum;
    }

    void reset() {
      wait.reset();
      run.reset();
      cpu.reset();
      count = waitSum = runSum = waitMax = runMax = 0;
      cpuCount = cpuSum = cpuMax = cpuRunSum = 0;
    }

    Timings toTimings(long windowNanos) {
      return new Timings(
          dist(wait, count, waitSum, waitMax),
          dist(run, count, runSum, runMax),
          dist(cpu, cpuCount, cpuSum, cpuMax),
          Math.max(0, windowNanos),
          runSum,
          cpuRunSum,
          cpuSum);
    }

    private static Distribution dist(Histogram h, long n, long sum, long max) {
      if (n == 0) {
        return Distribution.EMPTY;
      }
      return new Distribution(
          n,
          (double) sum / n,
          // A histogram reports a bucket's upper edge; never above the exact maximum.
          Math.min(max, h.getValueAtPercentile(50)),
          Math.min(max, h.getValueAtPercentile(90)),
          Math.min(max, h.getValueAtPercentile(99)),
          max);
    }
  }
}
