package dev.lanes;

import java.util.Locale;

/**
 * How a task given to a lane ended. Every task ends in exactly one of these and is counted under
 * it ({@link LaneStats#count(TaskOutcome)}); the refusals and drops say why ({@link
 * #isRejection()}): a refused caller gets a {@link LaneRejectedException} with that reason, and a
 * task dropped after it was accepted ends that way too — except the future {@code submit}
 * returned for a task that discard-oldest dropped, which is cancelled (its {@code get} throws
 * {@code CancellationException}).
 */
public enum TaskOutcome {
  /** Ran and returned normally. */
  COMPLETED,
  /**
   * Ran and threw, or ended failed without running to an end: a task decorator that did not run
   * it, a worker thread that died under it, or its future timed out ({@code orTimeout}) before
   * it started (then it does not run).
   */
  FAILED,
  /** Its future was cancelled, before or while it ran. */
  CANCELLED,
  /** Never started; handed back by {@code shutdownNow()}. */
  RETURNED,
  /** Refused: the lane was full and its overflow policy was {@link OverflowPolicy#reject()}. */
  QUEUE_FULL,
  /** Refused: the lane stayed full for the whole {@link OverflowPolicy#blockCaller} timeout. */
  BLOCK_TIMEOUT,
  /** Refused: the lane was shut down. */
  SHUTDOWN,
  /** Accepted, then dropped from the queue to make room ({@link OverflowPolicy#discardOldest()}). */
  DISCARDED_OLDEST,
  /** Accepted, then failed: a virtual lane could not start a thread to run it. */
  THREAD_START_FAILED,
  /**
   * Accepted, then failed before it started, to break a starvation deadlock: every worker waited
   * on it (the lane was built with {@link LaneBuilder#failOnDeadlock()}).
   */
  DEADLOCK,
  /**
   * Refused: queued tasks had waited longer than the lane's shedding target for a whole interval
   * ({@link LaneBuilder#shedWhenQueuedLongerThan}).
   */
  SHED,
  /**
   * Accepted, then failed before it started: the lane's {@link LaneGate} refused it for good
   * ({@link LaneGate#REFUSE}; e.g. a shared cap whose store is away, with a fail-fast policy).
   */
  GATE_REFUSED,
  /**
   * Accepted, then failed before it started: it was still queued when its deadline passed ({@link
   * Lane#submit(String, java.time.Duration, java.util.concurrent.Callable)}), so it never starts.
   */
  EXPIRED;

  /**
   * {@return true for the outcomes of a task refused at submission or dropped before it ran:
   * {@code QUEUE_FULL}, {@code BLOCK_TIMEOUT}, {@code SHUTDOWN}, {@code DISCARDED_OLDEST}, {@code
   * THREAD_START_FAILED}, {@code DEADLOCK}, {@code SHED}, {@code GATE_REFUSED} and {@code
   * EXPIRED}}
   */
  public boolean isRejection() {
    return ordinal() >= QUEUE_FULL.ordinal();
  }

  /**
   * {@return the lower-case name with {@code _} as in metrics tags ({@code completed}, {@code
   * queue_full})}
   */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
