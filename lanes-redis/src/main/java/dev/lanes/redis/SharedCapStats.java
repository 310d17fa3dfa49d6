package dev.lanes.redis;

import java.util.Map;

/**
 * A snapshot of one shared cap on this instance. Local counts are exact but read one after another
 * (a snapshot under concurrent submission can be off by the tasks in flight between reads); the
 * global figures are the last ones Redis answered (at most one renew interval old while Redis
 * answers, frozen while it does not).
 *
 * @param cap the shared cap's name (its lane's name)
 * @param globalCap the most tasks running at once across every instance
 * @param concurrency the lane's local cap (the most this instance runs at once)
 * @param health which cap applies now
 * @param queued tasks waiting in the shared cap's queue (holding no thread and no connection)
 * @param waitingForPermit global permits this instance is asking for now
 * @param heldHere tasks of this instance running with a global permit: this instance's share
 * @param runningOnLocalShare tasks running under the fault policy's local share, without a permit
 * @param globalInUse permits held by every instance, as Redis last said
 * @param globalWaiters waiters of every instance, as Redis last said
 * @param submitted every call to submit or execute
 * @param started tasks handed to the lane
 * @param cancelledWhileQueued tasks whose future was cancelled (or completed by the caller) while
 *     they waited in the queue: they never ran. Once the shared cap is quiet the books balance:
 *     {@code submitted = started + cancelledWhileQueued + rejectedTotal() − rejected(LANE_REJECTED)
 *     + queued}
 * @param permitsGranted global permits granted to this instance
 * @param rejected refusals by reason (never silent: each task refused also fails its future)
 * @param permitsReinstated permits of running tasks that renewing found missing and put back
 * @param redisFailures calls to Redis that failed or timed out
 * @param permitWait from asking for a global permit to its grant (Redis round trips included),
 *     per permit; separate from the lane's own queue wait
 * @param queueWait from submission to the task being handed to the lane, per task: waiting for a
 *     local slot and for a global permit
 */
public record SharedCapStats(
    String cap,
    int globalCap,
    int concurrency,
    SharedCapHealth health,
    int queued,
    int waitingForPermit,
    int heldHere,
    int runningOnLocalShare,
    long globalInUse,
    long globalWaiters,
    long submitted,
    long started,
    long cancelledWhileQueued,
    long permitsGranted,
    Map<SharedCapRejectedException.Reason, Long> rejected,
    long permitsReinstated,
    long redisFailures,
    Wait permitWait,
    Wait queueWait) {

  public SharedCapStats {
    rejected = Map.copyOf(rejected);
  }

  /** This instance's part of the permits in use across instances, 0 to 1 (0 when none is used). */
  public double share() {
    return globalInUse == 0 ? 0 : Math.min(1.0, heldHere / (double) globalInUse);
  }

  /** All refusals. */
  public long rejectedTotal() {
    return rejected.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * A distribution of waits in nanoseconds (HdrHistogram, 2 significant digits).
   *
   * @param count waits recorded
   */
  public record Wait(long count, long p50Nanos, long p99Nanos, long maxNanos, double meanNanos) {}
}
