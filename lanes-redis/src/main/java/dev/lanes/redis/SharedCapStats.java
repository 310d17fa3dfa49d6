package dev.lanes.redis;

/**
 * A snapshot of one shared cap on this instance: what is about Redis. The tasks' own figures —
 * queue wait (which includes the wait for a global permit), run time, refusals ({@code
 * GATE_REFUSED}) — are the lane's ({@code lane.stats()}). Local counts are exact but read under
 * one lock; the global figures are the ones Redis last answered (at most one renew interval old
 * while Redis answers, frozen while it does not).
 *
 * @param cap the shared cap's name (its lane's name)
 * @param globalCap the most tasks running at once across every instance
 * @param health which cap applies now
 * @param waitingForPermit permits this instance is asking Redis for now: at most one per worker
 *     of the lane waiting at the gate
 * @param grantedUnclaimed permits granted to this instance that no worker has taken yet (a worker
 *     takes one at once; one left for a retry interval is released)
 * @param heldHere tasks of this instance running with a global permit: this instance's share
 * @param runningOnLocalShare tasks running under the fault policy's local share, without a permit
 * @param globalInUse permits held by every instance, as Redis last said
 * @param globalWaiters waiters of every instance, as Redis last said
 * @param permitsGranted global permits granted to this instance
 * @param permitsReinstated permits of running tasks that renewing found missing and put back
 * @param refused times the gate answered a worker asking to start a queued task with a refusal
 *     for good (Redis away under fail-fast, or closed): each ends the lane's oldest queued task as
 *     {@code GATE_REFUSED} if one is still queued, so two workers refused at once for the last
 *     queued task count two here and one in the lane's books (which count tasks)
 * @param redisFailures calls to Redis that failed or timed out
 * @param keptForNextTask global permits this instance holds between two tasks: kept (at most {@code
 *     KEEP_IDLE}, 1 ms) for the next queued task of the lane, within the permit's quantum
 * @param tasksOnKeptPermits tasks started with a permit kept from the task before (no call to
 *     Redis); every other task with a global permit started with a permit granted by Redis
 */
public record SharedCapStats(
    String cap,
    int globalCap,
    SharedCapHealth health,
    int waitingForPermit,
    int grantedUnclaimed,
    int heldHere,
    int runningOnLocalShare,
    long globalInUse,
    long globalWaiters,
    long permitsGranted,
    long permitsReinstated,
    long refused,
    long redisFailures,
    int keptForNextTask,
    long tasksOnKeptPermits) {

  /**
   * This instance's part of the permits in use across instances (held by its running tasks or
   * kept for its next), 0 to 1 (0 when none is used).
   */
  public double share() {
    return globalInUse == 0 ? 0
        : Math.min(1.0, (heldHere + keptForNextTask) / (double) globalInUse);
  }
}
