package dev.lanes;

import java.time.Duration;
import java.util.Objects;

/**
 * What a lane does with a task that arrives when its queue is full. Every choice is counted:
 * nothing is dropped silently.
 */
public sealed interface OverflowPolicy
    permits OverflowPolicy.Reject,
        OverflowPolicy.CallerRuns,
        OverflowPolicy.BlockCaller,
        OverflowPolicy.DiscardOldest {

  /** Throw {@link LaneRejectedException} (the default). */
  static OverflowPolicy reject() {
    return Reject.INSTANCE;
  }

  /** Run the task on the submitting thread: the natural brake on a producer. */
  static OverflowPolicy callerRuns() {
    return CallerRuns.INSTANCE;
  }

  /**
   * Block the submitting thread until the queue has room, up to {@code timeout}, then reject
   * (backpressure).
   */
  static OverflowPolicy blockCaller(Duration timeout) {
    return new BlockCaller(timeout);
  }

  /**
   * Drop the oldest queued task to make room: its future is cancelled and the drop is counted as a
   * rejection with reason {@link RejectReason#DISCARDED_OLDEST}.
   */
  static OverflowPolicy discardOldest() {
    return DiscardOldest.INSTANCE;
  }

  /** See {@link #reject()}. */
  enum Reject implements OverflowPolicy {
    INSTANCE;

    @Override
    public String toString() {
      return "reject";
    }
  }

  /** See {@link #callerRuns()}. */
  enum CallerRuns implements OverflowPolicy {
    INSTANCE;

    @Override
    public String toString() {
      return "caller-runs";
    }
  }

  /** See {@link #discardOldest()}. */
  enum DiscardOldest implements OverflowPolicy {
    INSTANCE;

    @Override
    public String toString() {
      return "discard-oldest";
    }
  }

  /**
   * See {@link #blockCaller(Duration)}.
   *
   * @param timeout how long a submitter may wait for room; validated when the lane is built
   */
  record BlockCaller(Duration timeout) implements OverflowPolicy {
    public BlockCaller {
      Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public String toString() {
      return "block-caller(" + timeout + ")";
    }
  }
}
