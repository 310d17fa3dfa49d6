package dev.lanes;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A lane's task counts since it started. Each is exact, but they are read one after another, so
 * under concurrent submission a snapshot can be off by the tasks in flight between the reads; once
 * the lane is quiet the books balance: {@code submitted = completed + failed + cancelled +
 * rejected + returnedByShutdownNow + queued + running}.
 *
 * @param submitted every call to submit or execute, accepted or not
 * @param started tasks that began running
 * @param completed ran and returned normally
 * @param failed ran and threw, or ended failed without running to an end: failed by the deadlock
 *     policy FAIL, or running on a thread that died. (A task that could not get a thread is
 *     counted in {@code rejectedByReason} under {@link RejectReason#THREAD_START_FAILED}.)
 * @param cancelled cancelled while queued or running (a cancel after the task ended is none)
 * @param rejectedByReason refusals and drops by reason
 * @param returnedByShutdownNow never-started tasks handed back by {@code shutdownNow}
 */
public record LaneCounts(
    long submitted,
    long started,
    long completed,
    long failed,
    long cancelled,
    Map<RejectReason, Long> rejectedByReason,
    long returnedByShutdownNow) {

  public LaneCounts {
    EnumMap<RejectReason, Long> copy = new EnumMap<>(RejectReason.class);
    for (RejectReason r : RejectReason.values()) {
      copy.put(r, rejectedByReason.getOrDefault(r, 0L));
    }
    rejectedByReason = Collections.unmodifiableMap(copy);
  }

  /** All refusals and drops. */
  public long rejected() {
    long sum = 0;
    for (long n : rejectedByReason.values()) {
      sum += n;
    }
    return sum;
  }

  public long rejected(RejectReason reason) {
    return rejectedByReason.get(reason);
  }
}
