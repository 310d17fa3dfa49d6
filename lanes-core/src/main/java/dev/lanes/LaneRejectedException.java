package dev.lanes;

import java.io.Serial;
import java.util.concurrent.RejectedExecutionException;

/**
 * A lane refused a task, or dropped one it had accepted before it ran. The message names the lane,
 * the reason, the queue's capacity and the queued and running counts at that moment.
 */
public final class LaneRejectedException extends RejectedExecutionException {
  @Serial private static final long serialVersionUID = 2L;

  private final String lane;
  private final TaskOutcome reason;
  private final int queueCapacity;
  private final int queued;
  private final int running;

  /**
   * @throws IllegalArgumentException if {@code reason} is not a rejection ({@link
   *     TaskOutcome#isRejection()})
   */
  public LaneRejectedException(
      String lane, TaskOutcome reason, int queueCapacity, int queued, int running) {
    super(message(lane, reason, queueCapacity, queued, running));
    this.lane = lane;
    this.reason = reason;
    this.queueCapacity = queueCapacity;
    this.queued = queued;
    this.running = running;
  }

  private static String message(
      String lane, TaskOutcome reason, int queueCapacity, int queued, int running) {
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
      default -> throw new AssertionError(reason);
    };
    return "lane \"" + lane + "\" " + why + " (queue capacity " + queueCapacity + ", queued "
        + queued + ", running " + running + ")";
  }

  /** The lane's name. */
  public String lane() {
    return lane;
  }

  /** Why: one of the rejection outcomes. */
  public TaskOutcome reason() {
    return reason;
  }

  public int queueCapacity() {
    return queueCapacity;
  }

  public int queued() {
    return queued;
  }

  public int running() {
    return running;
  }
}
