package dev.lanes.redis;

import java.io.Serial;
import java.util.concurrent.RejectedExecutionException;

/** A shared cap refused a task; the message names the cap, the reason and the counts. */
public final class SharedCapRejectedException extends RejectedExecutionException {
  @Serial private static final long serialVersionUID = 1L;

  /** Why a shared cap refused or dropped a task. */
  public enum Reason {
    /** The shared cap's queue (as long as its lane's) was full. */
    QUEUE_FULL,
    /** Redis could not be reached or timed out, and the policy is {@link FaultPolicy#failFast}. */
    REDIS_UNAVAILABLE,
    /** The shared cap was closed before the task got a permit. */
    SHUTDOWN,
    /**
     * The lane refused the task when its permit had been granted (someone else filled the lane, or
     * it was shut down). The caller gets the lane's own exception; this reason only counts it.
     */
    LANE_REJECTED
  }

  private final String cap;
  private final Reason reason;

  SharedCapRejectedException(String cap, Reason reason, String detail) {
    super("shared cap \"" + cap + "\" rejected a task: " + describe(reason) + " (" + detail + ")");
    this.cap = cap;
    this.reason = reason;
  }

  private static String describe(Reason reason) {
    return switch (reason) {
      case QUEUE_FULL -> "queue full";
      case REDIS_UNAVAILABLE -> "Redis unavailable and the fault policy is fail-fast";
      case SHUTDOWN -> "shared cap is closed";
      case LANE_REJECTED -> "the lane refused it";
    };
  }

  public String cap() {
    return cap;
  }

  public Reason reason() {
    return reason;
  }
}
