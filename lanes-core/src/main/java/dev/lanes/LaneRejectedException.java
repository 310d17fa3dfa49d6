package dev.lanes;

import java.io.Serial;
import java.util.concurrent.RejectedExecutionException;

/**
 * A lane refused a task, or dropped one it had accepted before it ran. The message names the lane,
 * the reason, the queue's capacity and the queued and running counts at that moment.
 */
public final class LaneRejectedException extends RejectedExecutionException {
  @Serial private static final long serialVersionUID = 2L;

  /** The lane's name. */
  private final String lane;
  /** Why the task was refused or dropped: one of the rejection outcomes. */
  private final TaskOutcome reason;
  /** The lane's queue capacity. */
  private final int queueCapacity;
  /** Tasks queued when the task was refused or dropped. */
  private final int queued;
  /** Tasks running when the task was refused or dropped. */
  private final int running;

  /**
   * Makes the exception; its message is built from the figures (see the class comment).
   *
   * @param lane the lane's name
   * @param reason why: one of the rejection outcomes
   * @param queueCapacity the lane's queue capacity
   * @param queued tasks queued at that moment
   * @param running tasks running at that moment
   * @throws IllegalArgumentException if {@code reason} is null or not a rejection ({@link
   *     TaskOutcome#isRejection()})
   */
  public LaneRejectedException(
      String lane, TaskOutcome reason, int queueCapacity, int queued, int running) {
    this(lane, reason, queueCapacity, queued, running, "");
  }

  /** As the public constructor, with {@code detail} said after the reason (e.g. the wait). */
  LaneRejectedException(String lane, TaskOutcome reason, int queueCapacity, int queued,
      int running, String detail) {
    super(message(lane, reason, queueCapacity, queued, running, detail));
    this.lane = lane;
    this.reason = reason;
    this.queueCapacity = queueCapacity;
    this.queued = queued;
    this.running = running;
  }

  private static String message(String lane, TaskOutcome reason, int queueCapacity, int queued,
      int running, String detail) {
    if (reason == null || !reason.isRejection()) {
      throw new IllegalArgumentException("reason must be a rejection, was " + reason);
    }
    String why = switch (reason) {
      case QUEUE_FULL -> "rejected a task: queue full";
      case BLOCK_TIMEOUT -> "rejected a task: queue still full when the block-caller timeout expired";
      case SHUTDOWN -> "rejected a task: lane is shut down";
      case DISCARDED_OLDEST -> "dropped a queued task: it was the oldest, and room was needed";
      case THREAD_START_FAILED -> "failed a queued task: could not start a thread to run it";
      case DEADLOCK -> "failed a queued task to break a starvation deadlock: every worker"
          + " waited on it";
      case SHED -> "shed a task: queued tasks have waited longer than the shedding target for a"
          + " whole interval";
      case GATE_REFUSED -> "failed a queued task: the lane's gate refused it";
      case EXPIRED -> "expired a task: its deadline passed before it started";
      default -> throw new AssertionError(reason);
    };
    return "lane \"" + lane + "\" " + why + (detail.isEmpty() ? "" : "; " + detail)
        + " (queue capacity " + queueCapacity + ", queued "
        + queued + ", running " + running + ")";
  }

  /** {@return the name of the lane that refused or dropped the task} */
  public String lane() {
    return lane;
  }

  /** {@return why: one of the rejection outcomes ({@link TaskOutcome#isRejection()})} */
  public TaskOutcome reason() {
    return reason;
  }

  /** {@return the lane's queue capacity} */
  public int queueCapacity() {
    return queueCapacity;
  }

  /**
   * {@return how many tasks were queued when the task was refused or dropped} Read without a lock,
   * so approximate under concurrent submission.
   */
  public int queued() {
    return queued;
  }

  /**
   * {@return how many tasks were running when the task was refused or dropped} Read without a
   * lock, so approximate under concurrent submission.
   */
  public int running() {
    return running;
  }
}
