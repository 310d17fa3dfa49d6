package dev.lanes.redis;

/**
 * What a shared cap does while Redis cannot be reached, answers too slowly (a call timed out) or
 * fails: it never waits for Redis without a timeout, and never runs without a bound.
 *
 * <ul>
 *   <li>{@link #failFast()} (the default): the gate refuses ({@link dev.lanes.LaneGate#REFUSE}),
 *       so the lane ends its queued tasks, and those submitted until Redis answers again, as
 *       {@link dev.lanes.TaskOutcome#GATE_REFUSED} as soon as a worker is free to start one (their
 *       futures fail with a {@link dev.lanes.LaneRejectedException}). The global cap is never
 *       exceeded by this instance's new tasks.
 *   <li>{@link #localShare(int)}: tasks run with at most {@code share} of them running on this
 *       instance at once (and never more than the lane's own cap), without global permits. Pick
 *       the share as the cap divided by the number of instances to keep the total at the cap.
 * </ul>
 *
 * Either way the shared cap's health says which state it is in, an event marks each change, and
 * it returns to the global cap as soon as a call to Redis succeeds again (probed every {@link
 * SharedCap.Builder#probeInterval}).
 *
 * @param localShare 0 for fail-fast, else the most tasks this instance runs while Redis is away
 */
public record FaultPolicy(int localShare) {

  public FaultPolicy {
    if (localShare < 0) {
      throw new IllegalArgumentException("localShare must be ≥ 0 (0 = fail fast), was " + localShare);
    }
  }

  /** Refuse tasks that need a global permit while Redis is away. */
  public static FaultPolicy failFast() {
    return new FaultPolicy(0);
  }

  /** Run at most {@code share} tasks at once on this instance while Redis is away. */
  public static FaultPolicy localShare(int share) {
    if (share < 1) {
      throw new IllegalArgumentException("local share must be ≥ 1, was " + share);
    }
    return new FaultPolicy(share);
  }

  public boolean failsFast() {
    return localShare == 0;
  }
}
