package dev.lanes;

import java.time.Duration;
import java.util.Objects;

/**
 * What a lane does with a task that arrives when it is full. Every choice is counted: nothing is
 * dropped silently. Made by the four factories; compared by value.
 */
public final class OverflowPolicy {

  /** The four behaviours; the lane switches on it. */
  enum Kind {
    REJECT,
    CALLER_RUNS,
    BLOCK_CALLER,
    DISCARD_OLDEST
  }

  private static final OverflowPolicy REJECT = new OverflowPolicy(Kind.REJECT, null);
  private static final OverflowPolicy CALLER_RUNS = new OverflowPolicy(Kind.CALLER_RUNS, null);
  private static final OverflowPolicy DISCARD_OLDEST = new OverflowPolicy(Kind.DISCARD_OLDEST, null);

  private final Kind kind;
  private final Duration timeout;

  private OverflowPolicy(Kind kind, Duration timeout) {
    this.kind = kind;
    this.timeout = timeout;
  }

  /**
   * Throw {@link LaneRejectedException} with reason {@link TaskOutcome#QUEUE_FULL} (the default).
   *
   * @return the reject policy
   */
  public static OverflowPolicy reject() {
    return REJECT;
  }

  /**
   * Run the task on the submitting thread: the natural brake on a producer. The task counts as
   * running while its caller runs it: the lane does not terminate ({@code close()} and {@code
   * awaitTermination} wait) until it ended; a lane that shut down first refuses it instead, with
   * reason {@link TaskOutcome#SHUTDOWN}.
   *
   * @return the caller-runs policy
   */
  public static OverflowPolicy callerRuns() {
    return CALLER_RUNS;
  }

  /**
   * Block the submitting thread until the lane has room, up to {@code timeout}, then reject with
   * reason {@link TaskOutcome#BLOCK_TIMEOUT} (backpressure). The lane's builder checks the timeout
   * (1 ns to 24 h). A caller that is interrupted while it waits (or already was) stops waiting at
   * once, keeps its interrupt status, and is rejected the same way, the exception's cause an {@link
   * InterruptedException} ({@link TaskOutcome#SHUTDOWN} if the lane shut down meanwhile).
   *
   * @param timeout the longest a submitting thread waits for room
   * @return a block-caller policy with that timeout
   * @throws NullPointerException if {@code timeout} is null
   */
  public static OverflowPolicy blockCaller(Duration timeout) {
    return new OverflowPolicy(Kind.BLOCK_CALLER, Objects.requireNonNull(timeout, "timeout"));
  }

  /**
   * Drop the oldest queued task to make room, counted under {@link
   * TaskOutcome#DISCARDED_OLDEST}: the future {@code submit} returned for it is cancelled; for a
   * task given to {@code execute}, the future {@code CompletableFuture.runAsync/supplyAsync} made
   * for it fails with a {@link LaneRejectedException} where lanes can reach it, and otherwise the
   * lane's exception handler receives that exception; a lane without one logs the first drop in
   * one line and then one summary line per 10 s at most (no stack trace per drop, nothing to the
   * thread's uncaught-exception handler). With nothing queued to drop (every slot is a
   * running task, as after the concurrency was lowered below the tasks running), the new task is
   * refused with reason {@link TaskOutcome#QUEUE_FULL}. A task that a free worker is about to
   * take is not a victim: with {@code n} workers free (not running a task), the {@code n} oldest
   * are spared and the next one is dropped, so the lane still holds {@code concurrency} running
   * plus {@code queueCapacity} queued (on a lane of concurrency 1 and capacity 1, {@code
   * execute(r1); execute(r2); execute(r3)} runs r1 and r3, as the JDK's pool does).
   *
   * @return the discard-oldest policy
   */
  public static OverflowPolicy discardOldest() {
    return DISCARD_OLDEST;
  }

  Kind kind() {
    return kind;
  }

  /** The block-caller timeout; null for the other policies. */
  Duration timeout() {
    return timeout;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OverflowPolicy p && p.kind == kind && Objects.equals(p.timeout, timeout);
  }

  @Override
  public int hashCode() {
    return kind.hashCode() * 31 + Objects.hashCode(timeout);
  }

  /** {@code reject}, {@code caller-runs}, {@code block-caller(PT1S)} or {@code discard-oldest}. */
  @Override
  public String toString() {
    return switch (kind) {
      case REJECT -> "reject";
      case CALLER_RUNS -> "caller-runs";
      case BLOCK_CALLER -> "block-caller(" + timeout + ")";
      case DISCARD_OLDEST -> "discard-oldest";
    };
  }
}
