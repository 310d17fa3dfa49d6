package dev.lanes.agent;

import java.util.ArrayDeque;
import java.util.Locale;

/**
 * One pool's saturation state, judged with a lane's default rules (lanes-core's {@code
 * HealthMonitor}): over a sliding window of {@value #WINDOW_SECONDS} s, the queue wait (the mean
 * wait of the tasks that ended in the window, or the age of the oldest queued task when larger)
 * above the mean run time (at least {@value #MIN_WAIT_MILLIS} ms; {@value
 * #EVENT_LOOP_MIN_WAIT_MILLIS} ms for an event loop) is SATURATED; any rejection in
 * the window is REJECTING. A worse state is entered after it held {@value #ENTER_MILLIS} ms, a
 * better one after {@value #EXIT_MILLIS} ms; DEADLOCKED is entered and left on the deadlock
 * check's evidence alone. Saturated time is the time spent in any state but OK (writing 004's
 * "server saturation time").
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
  static final int ENTER_MILLIS = 1_000;
  static final int EXIT_MILLIS = 2_000;
  private static final long WINDOW = WINDOW_SECONDS * 1_000_000_000L;

  enum State { OK, SATURATED, REJECTING, DEADLOCKED }

  /** Per sample: time, ended tasks with a known wait, their wait sum, ended tasks, their run sum, rejected. */
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
    samples.addLast(new long[] {now, waitedTasks, waitSum, ended, runSum, rejected});
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
    State desired = rejectedInWindow > 0 ? State.REJECTING
        : wait > threshold ? State.SATURATED : State.OK;
    if (state == State.DEADLOCKED) {
      return state; // left only on the deadlock check's evidence
    }
    why = String.format(Locale.ROOT,
        "queue wait %.1f ms (mean of ended %.1f ms, oldest queued %.1f ms), threshold %.1f ms"
            + " (mean run), %d rejected in %d s",
        wait / 1e6, meanWait / 1e6, oldestQueuedNanos / 1e6, threshold / 1e6, rejectedInWindow,
        WINDOW_SECONDS);
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
    return state;
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
