package dev.lanes;

import java.io.Serial;
import java.util.concurrent.RejectedExecutionException;

/**
 * A lane refused a task. The message names the lane, the reason, the queue's capacity and the
 * queued and running counts at the moment of refusal.
 */
public final class LaneRejectedException extends RejectedExecutionException {
  @Serial private static final long serialVersionUID = 1L;

  private final String lane;
  private final RejectReason reason;
  private final int queueCapacity;
  private final int queued;
  private final int running;

  public LaneRejectedException(
      String lane, RejectReason reason, int queueCapacity, int queued, int running) {
    super(
        "lane \""
            + lane
            + "\" rejected a task: "
            + describe(reason)
            + " (queue capacity "
            + queueCapacity
            + ", queued "
            + queued
            + ", running "
            + running
            + ")");
    this.lane = lane;
    this.reason = reason;
    this.queueCapacity = queueCapacity;
    this.queued = queued;
    this.running = running;
  }

  private static String describe(RejectReason reason) {
    return switch (reason) {
      case QUEUE_FULL -> "queue full";
      case BLOCK_TIMEOUT -> "queue still full when the block-caller timeout expired";
      case SHUTDOWN -> "lane is shut down";
      case DISCARDED_OLDEST -> "dropped as the oldest queued task to make room";
      case THREAD_START_FAILED -> "could not start a thread";
    };
  }

  public String lane() {
    return lane;
  }

  public RejectReason reason() {
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
