package dev.lanes.agent;

import java.util.ArrayDeque;
import java.util.Locale;

/**
 * One pool's saturation state, judged with a lane's default rules (lanes-core's {@code
 * HealthMonitor}): over a sliding window of {@value #WINDOW_SECONDS} s, the queue wait (the mean
 * wait of the tasks that ended in the window, or the age of the oldest queued task when larger)
 * above the mean run time (at least {@value #MIN_WAIT_MILLIS} ms; {@value
 * #EVENT_LOOP_MIN_WAIT_MILLIS} ms for an event loop, {@value #SCHEDULED_MIN_WAIT_MILLIS} ms for a
 * scheduled pool) while the workers are busy is SATURATED; any rejection in the window is
 * REJECTING. A worse state is entered after it held {@value #ENTER_MILLIS} ms, a
 * better one after {@value #EXIT_MILLIS} ms; DEADLOCKED is entered and left on the deadlock
 * check's evidence alone. Saturated time is the time spent in any state but OK (writing 004's
 * "server saturation time").
 *
 * <p><b>Busy workers.</b> A task waits in a queue only while every worker is busy: an idle worker
 * takes it at once. So a wait with idle workers is not saturation but lateness (a parked worker
 * woken late by a busy host, a pause of the JVM), and a pool whose workers are idle is never
 * SATURATED. The rule: the workers were busy at least {@value #BUSY_SHARE_PERCENT} % of the last
 * {@value #ENTER_MILLIS} ms (the time the tasks that ended or still run took, over threads × time).
 * Half, because a queue's wait exceeds its tasks' run time only above it: one worker with random
 * arrivals waits ρ/(1−ρ) run times at occupancy ρ, more than one run time only when ρ &gt; 1/2,
 * and more workers wait less at the same occupancy. Where the caller cannot tell the busy time
 * (an event loop, a fork-join pool), the rule is off.
 *
 * <p><b>A scheduled pool's wait</b> counts from each task's due time, so it is the task's
 * lateness. A worker parked until a due time wakes after the timer's slack (50 µs on Linux) and,
 * when every CPU is busy, after waiting for one, up to one scheduling period of the OS (Linux's
 * CFS: 6 ms × (1 + log2 of the CPUs, at most 8), 24 ms on 8 CPUs or more): lateness up to
 * {@value #SCHEDULED_MIN_WAIT_MILLIS} ms is the host's, not the pool's, hence that floor. More
 * runnable threads than CPUs make a wake-up later still; with idle workers, the busy rule keeps
 * that lateness from counting.
 *
 * <p>The figures quoted with a state ({@link #why}) are those of the last judgement that wanted
 * that state: a SATURATED pool's wait is above its threshold, printed with as many decimals as
 * it takes to show it.
 *
 * <p><b>Concurrency design.</b> Only the watchdog thread calls {@link #judge} and {@link
 * #deadlocked}; {@link #state} and the saturated time are volatile for readers (the table).
 */
final class PoolHealth {
  static final int WINDOW_SECONDS = 5;
  static final int MIN_WAIT_MILLIS = 1;
  /**
   * An event loop's floor instead: its tasks wait behind its IO work (selecting, reading, the
   * handlers), which is no task, so their wait exceeds their microseconds of run time on any busy
   * loop; a loop is saturated when the wait itself is long enough to slow every request on it.
   */
  static final int EVENT_LOOP_MIN_WAIT_MILLIS = 10;
  /** A scheduled pool's floor: the lateness a busy host gives a timed wake-up (see above). */
  static final int SCHEDULED_MIN_WAIT_MILLIS = 25;
  /** The least share of the workers' time busy for SATURATED (see above). */
  static final int BUSY_SHARE_PERCENT = 50;
  /** Passed as the busy time when the caller cannot tell it: the busy rule is off. */
  static final long BUSY_UNKNOWN = -1;
  static final int ENTER_MILLIS = 1_000;
  static final int EXIT_MILLIS = 2_000;
  private static final long WINDOW = WINDOW_SECONDS * 1_000_000_000L;

  enum State { OK, SATURATED, REJECTING, DEADLOCKED }

  /**
   * Per sample: time, ended tasks with a known wait, their wait sum, ended tasks, their run sum,
   * rejected, busy time.
   */
  private final ArrayDeque<long[]> samples = new ArrayDeque<>();
  private volatile State state = State.OK;
  private State candidate = State.OK;
  private long candidateSince;
  private long stateSince;
  private volatile long saturatedBefore;
  private volatile long saturatedSince = -1;
  /** The figures behind the last judgement, for the warning and the table. */
  volatile String why = "";

  private final long minWaitNanos;

  PoolHealth(long now) {
    this(now, MIN_WAIT_MILLIS);
  }

  PoolHealth(long now, int minWaitMillis) {
    this.candidateSince = now;
    this.stateSince = now;
    this.minWaitNanos = minWaitMillis * 1_000_000L;
  }

  /** The floor of the wait for a pool of this kind. */
  static int minWaitMillis(PoolKind kind) {
    return switch (kind) {
      case EVENT_LOOP -> EVENT_LOOP_MIN_WAIT_MILLIS;
      case SCHEDULED -> SCHEDULED_MIN_WAIT_MILLIS;
      default -> MIN_WAIT_MILLIS;
    };
  }

  State state() {
    return state;
  }

  /** Time spent not OK so far. */
  long saturatedNanos(long now) {
    long since = saturatedSince;
    return saturatedBefore + (since >= 0 ? Math.max(0, now - since) : 0);
  }

  /** How long the pool has been in its current state. */
  long inStateNanos(long now) {
    return now - stateSince;
  }

  /**
   * Takes the watchdog's sample and returns the state after it; returns the previous state too
   * (through {@code out[0]}) when it changed, else leaves {@code out[0]} null.
   */
  State judge(long now, long waitedTasks, long waitSum, long ended, long runSum, long rejected,
      long oldestQueuedNanos, State[] out) {
    return judge(now, waitedTasks, waitSum, ended, runSum, rejected, oldestQueuedNanos,
        BUSY_UNKNOWN, 0, out);
  }

  /**
   * As above, with the workers' busy time so far ({@code busyNanos}: the run time of the tasks
   * that ended plus that of those running now; {@link #BUSY_UNKNOWN} if unknown) and the number
   * of workers now.
   */
  State judge(long now, long waitedTasks, long waitSum, long ended, long runSum, long rejected,
      long oldestQueuedNanos, long busyNanos, int threads, State[] out) {
    samples.addLast(new long[] {now, waitedTasks, waitSum, ended, runSum, rejected, busyNanos});
    while (samples.size() > 2 && now - samples.peekFirst()[0] > WINDOW) {
      samples.removeFirst();
    }
    long[] first = samples.peekFirst();
    long[] last = samples.peekLast();
    long waited = last[1] - first[1];
    long endedInWindow = last[3] - first[3];
    double meanWait = waited > 0 ? (double) (last[2] - first[2]) / waited : 0;
    double meanRun = endedInWindow > 0 ? (double) (last[4] - first[4]) / endedInWindow
        : last[3] > 0 ? (double) last[4] / last[3] : 0;
    long rejectedInWindow = last[5] - first[5];
    double wait = Math.max(meanWait, oldestQueuedNanos);
    double threshold = Math.max(meanRun, minWaitNanos);
    double busy = busyShare(now, threads);
    boolean busyEnough = Double.isNaN(busy) || busy * 100 >= BUSY_SHARE_PERCENT;
    // Compared in whole nanoseconds, as the figures print them at most.
    State desired = rejectedInWindow > 0 ? State.REJECTING
        : Math.round(wait) > Math.round(threshold) && busyEnough ? State.SATURATED : State.OK;
    if (state == State.DEADLOCKED) {
      return state; // left only on the deadlock check's evidence
    }
    String figures = figures(wait, meanWait, oldestQueuedNanos, threshold, meanRun >= minWaitNanos,
        busy, rejectedInWindow);
    if (desired != candidate) {
      candidate = desired;
      candidateSince = now;
    }
    if (desired != state) {
      boolean worse = desired.ordinal() > state.ordinal();
      long needed = (worse ? ENTER_MILLIS : EXIT_MILLIS) * 1_000_000L;
      if (now - candidateSince >= needed) {
        out[0] = state;
        move(desired, now);
      }
    }
    if (desired == state) {
      why = figures;
    }
    return state;
  }

  /**
   * The workers' busy share over the last {@value #ENTER_MILLIS} ms (or the window so far), NaN
   * when unknown.
   */
  private double busyShare(long now, int threads) {
    long[] last = samples.peekLast();
    if (last[6] < 0 || threads <= 0) {
      return Double.NaN;
    }
    long[] from = last;
    for (var it = samples.descendingIterator(); it.hasNext(); ) {
      long[] s = it.next();
      if (s[6] < 0) {
        break;
      }
      from = s;
      if (now - s[0] >= ENTER_MILLIS * 1_000_000L) {
        break;
      }
    }
    long span = now - from[0];
    if (span <= 0) {
      return Double.NaN;
    }
    return Math.min(1.0, (double) (last[6] - from[6]) / ((double) span * threads));
  }

  /** The judgement's figures; the wait and the threshold with the decimals that tell them apart. */
  static String figures(double wait, double meanWait, double oldest, double threshold,
      boolean thresholdIsRun, double busy, long rejected) {
    int decimals = 1;
    while (decimals < 6 && ms(wait, decimals).equals(ms(threshold, decimals))) {
      decimals++;
    }
    return "queue wait " + ms(wait, decimals) + " ms (mean of ended " + ms(meanWait, decimals)
        + " ms, oldest queued " + ms(oldest, decimals) + " ms), threshold "
        + ms(threshold, decimals) + " ms (" + (thresholdIsRun ? "mean run" : "floor") + "), "
        + (Double.isNaN(busy) ? ""
            : String.format(Locale.ROOT, "workers busy %.0f %%, ", busy * 100))
        + rejected + " rejected in " + WINDOW_SECONDS + " s";
  }

  private static String ms(double nanos, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", nanos / 1e6);
  }

  /** The deadlock check proved ({@code true}) or no longer proves a deadlock. */
  State deadlocked(boolean proven, long now, State[] out) {
    if (proven && state != State.DEADLOCKED) {
      out[0] = state;
      move(State.DEADLOCKED, now);
    } else if (!proven && state == State.DEADLOCKED) {
      out[0] = state;
      candidate = State.SATURATED;
      candidateSince = now;
      move(State.SATURATED, now);
    }
    return state;
  }

  private void move(State to, long now) {
    if (state == State.OK && to != State.OK) {
      saturatedSince = now;
    } else if (state != State.OK && to == State.OK) {
      saturatedBefore += Math.max(0, now - saturatedSince);
      saturatedSince = -1;
    }
    state = to;
    stateSince = now;
  }
}
