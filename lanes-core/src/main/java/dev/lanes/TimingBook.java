package dev.lanes;

import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;

/**
 * Where a lane's workers record each task's queue wait, run time, CPU time and outcome, and where
 * readers turn them into {@link Timings}.
 *
 * <p><b>Concurrency design.</b> Recording is single-writer and takes no lock: a worker claims a
 * {@link Tally} of its own when it starts ({@link #claim}) and gives it back when it leaves, and
 * writes into the tally's active buffer inside the tally's own phase (one volatile store, see
 * {@link Tally}). A reader swaps the active and inactive buffers under the tally's swap lock, waits
 * for a writer still in the old buffer, and then drains the old buffer at leisure — HdrHistogram's
 * {@code Recorder} pattern, for one writer. Tallies are padded on both sides, so two workers never
 * write the same cache line. A writer without a tally of its own (more workers
 * than tallies, or a caller running a task under the caller-runs policy) records into the
 * {@code shared} tally under its lock.
 *
 * <p>Readers serialise on {@code readLock}: a read drains every tally into the since-start and
 * current-interval accumulators and rotates the interval when {@code intervalNanos} has passed.
 * Figures are therefore exact for the tasks whose record ended before the read, and a task
 * recorded during a read lands in this read or the next, never both. Outcome counts live in the
 * same buffers, so a task's outcome and its timings are always read together.
 *
 * <p><b>Memory.</b> A lane that recorded nothing holds no histogram (issue #27: an idle lane must
 * cost little): a tally makes its two buffers the first time it records (its writer, before its
 * phase starts, under the tally's swap lock so no read is swapping meanwhile),
 * and the book makes its two accumulators the first time a drain finds something. The buffers
 * are plain {@link Histogram}s (the writer's per-task cost); the accumulators, written only by
 * readers, are {@link PackedHistogram}s, which hold a few hundred bytes until values arrive and
 * grow with the spread of what was recorded. Both have the same buckets (2 significant digits,
 * auto-resizing), so every count, percentile and maximum is exactly what it was with plain ones.
 *
 * <p><b>Failure model.</b> Recording allocates only when a histogram grows its array (auto-resize)
 * and when a tally records for the first time; an {@code OutOfMemoryError} there ends the worker
 * through the lane's exit path, and the buffer stays consistent for the reader (the phase's end
 * runs in a finally; the first buffers are published whole, under the tally's swap lock).
 */
final class TimingBook {

  private static final int DIGITS = 2;

  private final Tally[] tallies;
  private final Tally shared = new Tally();
  private final ReentrantLock sharedLock = new ReentrantLock();
  private final long intervalNanos;
  private final long startNanos;

  private final ReentrantLock readLock = new ReentrantLock();
  /** Since start; null until a drain first finds something. Guarded by readLock. */
  private Acc total;
  /** The current interval; null while {@code total} is. Guarded by readLock. */
  private Acc current;
  private long intervalStart;
  private Timings recent;
  private boolean intervalCompleted;

  TimingBook(int tallyCount, long intervalNanos, long startNanos) {
    this.tallies = new Tally[tallyCount];
    for (int i = 0; i < tallyCount; i++) {
      tallies[i] = new Tally();
    }
    this.intervalNanos = intervalNanos;
    this.startNanos = startNanos;
    this.intervalStart = startNanos;
    this.recent = Timings.EMPTY;
  }

  /** Slots given back through the tallies' claimants, ever; each tally read with acquire. */
  long releasedByClaimants() {
    long n = 0;
    for (Tally t : tallies) {
      n += (long) Tally.RELEASED.getAcquire(t);
    }
    return n;
  }

  /** A free tally for one writer, or null if every tally is taken (then records go shared). */
  Tally claim() {
    for (Tally t : tallies) {
      if (t.tryClaim()) {
        return t;
      }
    }
    return null;
  }

  /** Gives a claimed tally back (its figures stay in it until the next read drains them). */
  void release(Tally t) {
    if (t != null) {
      t.release();
    }
  }

  /**
   * Records one task that ran; {@code cpuNanos < 0} means not measured; {@code outcome} indexes
   * the outcome counts (0 completed, 1 failed, 2 cancelled). {@code own} is the writer's claimed
   * tally, or null.
   */
  void record(Tally own, long waitNanos, long runNanos, long cpuNanos, int outcome) {
    if (own != null) {
      own.record(waitNanos, runNanos, cpuNanos, outcome);
      return;
    }
    sharedLock.lock();
    try {
      shared.record(waitNanos, runNanos, cpuNanos, outcome);
    } finally {
      sharedLock.unlock();
    }
  }

  /** Tasks that started, ever: on a tally's claimant or not; each tally read with acquire. */
  long started() {
    long n = (long) Tally.STARTED.getAcquire(shared);
    for (Tally t : tallies) {
      n += (long) Tally.STARTED.getAcquire(t);
    }
    return n;
  }

  /**
   * One task started by a thread without a tally of its own (it records into the shared tally):
   * an atomic add, as such threads may be several.
   */
  void startedShared() {
    Tally.STARTED.getAndAdd(shared, 1L);
  }

  /** Since-start and recent timings as of {@code now}. */
  Timings[] read(long now) {
    return read(now, null);
  }

  /**
   * Since-start and recent timings as of {@code now}, and (if {@code outcomes} is not null) the
   * cumulative outcome counts of the same drain copied into its first three cells and, in its
   * fourth, the tasks started as of that drain (see {@link Tally#drainInto}): one drain for a
   * whole snapshot. Every task whose end the drain found is among those started; a task counted
   * started but not ended is running, or ended during the read (rarely more than one a tally).
   */
  Timings[] read(long now, long[] outcomes) {
    readLock.lock();
    try {
      long started = drain();
      if (outcomes != null) {
        if (total != null) {
          System.arraycopy(total.outcomes, 0, outcomes, 0, 3);
        } else {
          java.util.Arrays.fill(outcomes, 0, 3, 0L);
        }
        outcomes[3] = started;
      }
      if (now - intervalStart >= intervalNanos) {
        recent = Acc.timingsOf(current, now - intervalStart);
        if (current != null) {
          current.reset();
        }
        intervalStart = now;
        intervalCompleted = true;
      }
      Timings sinceStart = Acc.timingsOf(total, now - startNanos);
      Timings shownRecent =
          intervalCompleted ? recent : Acc.timingsOf(current, now - intervalStart);
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
      return total == null
          ? new long[] {0, 0, 0}
          : new long[] {total.count, total.waitSum, total.runSum};
    } finally {
      readLock.unlock();
    }
  }

  /** Guarded by readLock. Returns the tasks started as of the drain (see Tally#drainInto). */
  private long drain() {
    long started = 0;
    for (Tally t : tallies) {
      started += t.drainInto(this);
    }
    return started + shared.drainInto(this);
  }

  /** Adds a drained buffer into both accumulators, making them first if need be; under readLock. */
  private void merge(Acc drained) {
    if (total == null) {
      total = new Acc(true);
      current = new Acc(true);
    }
    total.addAll(drained);
    current.addAll(drained);
  }

  /**
   * Padding laid out before a {@link Tally}'s fields (a superclass's fields come first): a worker
   * writes its tally's {@code epoch}, {@code started} and {@code released} on every task, and the
   * tallies of a book are allocated one after another, so without it two workers' tallies could
   * share a cache line (issue #27). The int fills the slot after the object header.
   */
  @SuppressWarnings("unused")
  abstract static class TallyPadding {
    private int q;
    private long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
  }

  /** The fields of a {@link Tally}, between its two paddings. */
  abstract static class TallyFields extends TallyPadding {
    /** Null until the first record (see "Memory" in the book's comment); then never null. */
    volatile Acc active;
    /** Guarded by the tally's swap lock; null while {@code active} is. */
    Acc inactive;
    volatile int owned;
    /**
     * Admission slots its claimants gave back, ever (see {@link LaneExecutor}'s Admission): only
     * grows, written by the claimant alone with release stores (no fence), read by submitters
     * when the lane looks full. A new claimant continues from it (the claim CAS orders it).
     */
    long released;
    /**
     * Tasks its claimants started, ever: only grows, written by the claimant alone with release
     * stores before the task runs (so before its end is recorded), read by stats.
     */
    long started;
    /**
     * The writer's phase: odd while it records into {@code active}, even outside (see {@link
     * Tally}). Written by the tally's one writer at a time.
     */
    long epoch;
  }

  /**
   * One writer's buffers. Written by its claimant only (or under the book's shared lock); read by
   * the book's reader, which swaps the buffers.
   *
   * <p><b>Concurrency design.</b> A single-writer phaser: the writer makes {@code epoch} odd with a
   * volatile store (the one fence a task costs here), reads {@code active}, records into it, and
   * makes {@code epoch} even again with a release store. A reader, holding the tally's swap lock,
   * swaps {@code active} (a volatile store) and then reads {@code epoch}: the two sides each write
   * one variable and then read the other's, so at least one sees the other. If the reader reads an
   * even epoch, the writer either finished its record before (its release store, read with
   * acquire, makes the record visible) or has not read {@code active} yet and will read the new
   * buffer; if it reads an odd one, the writer may be recording into the old buffer, and the
   * reader waits until the epoch moves. HdrHistogram's {@code WriterReaderPhaser}, used here
   * before, does the same for many writers at the cost of two atomic increments per record; a
   * tally has one writer at a time (its claimant, whose claim CAS orders it after the last; or a
   * holder of the book's shared lock).
   */
  static final class Tally extends TallyFields {
    private static final java.lang.invoke.VarHandle OWNED;
    private static final java.lang.invoke.VarHandle RELEASED;
    private static final java.lang.invoke.VarHandle STARTED;
    private static final java.lang.invoke.VarHandle EPOCH;
    /** How often a drain swaps again when the claimant started tasks during a swap. */
    private static final int SWAP_ATTEMPTS = 8;
    /** How often a reader that finds the writer recording spins before it yields at each look. */
    private static final int WRITER_SPINS = 100;

    static {
      try {
        java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
        OWNED = l.findVarHandle(TallyFields.class, "owned", int.class);
        RELEASED = l.findVarHandle(TallyFields.class, "released", long.class);
        STARTED = l.findVarHandle(TallyFields.class, "started", long.class);
        EPOCH = l.findVarHandle(TallyFields.class, "epoch", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    /** Padding after the fields (see {@link TallyPadding}). */
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

    /** Held by a reader that swaps the buffers, and by the writer that makes them. */
    private final java.util.concurrent.locks.ReentrantLock swapLock =
        new java.util.concurrent.locks.ReentrantLock();

    /** One task started by this tally's claimant. */
    void addStarted() {
      STARTED.setRelease(this, (long) STARTED.get(this) + 1);
    }

    /** One slot given back by this tally's claimant. */
    void addReleased() {
      RELEASED.setRelease(this, (long) RELEASED.get(this) + 1);
    }

    boolean tryClaim() {
      return OWNED.compareAndSet(this, 0, 1);
    }

    void release() {
      owned = 0;
    }

    void record(long waitNanos, long runNanos, long cpuNanos, int outcome) {
      if (active == null) {
        makeBuffers(); // the first record: before its phase starts (a drain may wait on it)
      }
      long e = (long) EPOCH.get(this);
      EPOCH.setVolatile(this, e + 1); // recording; ordered before the read of active below
      try {
        Acc a = active;
        a.add(waitNanos, runNanos, cpuNanos);
        a.outcomes[outcome]++;
      } finally {
        EPOCH.setRelease(this, e + 2);
      }
    }

    /**
     * Swaps the buffers and adds what the old one holds into both accumulators; returns the
     * tasks this tally's claimants had started by then. The count is read before and after the
     * swap: when they agree, no task started during the swap, so every end the old buffer held is
     * among them and they hold at most the one task in flight besides. A swap waits for a
     * writer still recording into the old buffer (yielding, so the claimant may run many more
     * tasks meanwhile); when the two reads differ, it swaps again, a few times, and then returns
     * the later read, which still counts every end drained.
     */
    long drainInto(TimingBook book) {
      for (int attempt = 1; ; attempt++) {
        long before = (long) STARTED.getAcquire(this);
        swapAndMerge(book);
        long after = (long) STARTED.getAcquire(this);
        if (before == after || attempt == SWAP_ATTEMPTS) {
          return after;
        }
      }
    }

    /**
     * Makes the two buffers, under the swap lock so that no drain swaps while they appear; called
     * by this tally's writer (its claimant, or a holder of the book's shared lock) alone.
     */
    private void makeBuffers() {
      swapLock.lock();
      try {
        if (active == null) {
          inactive = new Acc(false);
          active = new Acc(false);
        }
      } finally {
        swapLock.unlock();
      }
    }

    private void swapAndMerge(TimingBook book) {
      swapLock.lock();
      try {
        Acc old = active;
        if (old == null) {
          return; // nothing ever recorded here
        }
        active = inactive; // then read the writer's phase (see the class comment)
        long phase = (long) EPOCH.getVolatile(this);
        if ((phase & 1) != 0) {
          for (int i = 0; (long) EPOCH.getVolatile(this) == phase; i++) {
            if (i < WRITER_SPINS) {
              Thread.onSpinWait();
            } else {
              Thread.yield();
            }
          }
        }
        if (old.count > 0) {
          book.merge(old);
          old.reset();
        }
        inactive = old;
      } finally {
        swapLock.unlock();
      }
    }
  }

  /** Histograms, exact sums and outcome counts; not thread-safe (see the class comment). */
  private static final class Acc {
    final long[] outcomes = new long[3];
    final AbstractHistogram wait;
    final AbstractHistogram run;
    final AbstractHistogram cpu;

    /** {@code packed}: for the readers' accumulators (see "Memory" in the book's comment). */
    Acc(boolean packed) {
      wait = packed ? new PackedHistogram(DIGITS) : new Histogram(DIGITS);
      run = packed ? new PackedHistogram(DIGITS) : new Histogram(DIGITS);
      cpu = packed ? new PackedHistogram(DIGITS) : new Histogram(DIGITS);
    }

    /** The timings {@code a} holds ({@code null}: nothing recorded) over {@code windowNanos}. */
    static Timings timingsOf(Acc a, long windowNanos) {
      if (a == null) {
        return new Timings(Distribution.EMPTY, Distribution.EMPTY, Distribution.EMPTY,
            Math.max(0, windowNanos), 0, 0, 0);
      }
      return a.toTimings(windowNanos);
    }
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
      for (int i = 0; i < outcomes.length; i++) {
        outcomes[i] += o.outcomes[i];
      }
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
      java.util.Arrays.fill(outcomes, 0);
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

    private static Distribution dist(AbstractHistogram h, long n, long sum, long max) {
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
