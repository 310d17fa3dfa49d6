package dev.lanes;

/**
 * One task's life in a lane, delivered to {@link Lane#onTask} subscribers after the task ends.
 * Timestamps come from the lane's ticker ({@link System#nanoTime()} unless injected), so they
 * compare only with each other.
 *
 * @param taskId the task's number in its lane, unique: its position in the lane's queue, from 1,
 *     in the order tasks entered it; a task that entered while the queue's preallocated array had
 *     no free slot for it (its overflow, see the lane's design notes) is numbered from 2<sup>62</sup>
 *     + 1 in its own order; a platform lane without a gate, built with two workers or more on a
 *     machine of two cores or more, splits its queue into shards (a submitting thread's id picks
 *     one; see the design notes), and shard {@code s} adds
 *     {@code s} × 2<sup>58</sup> to the numbers of its tasks, which it numbers in its own order; a
 *     task that never entered the queue (refused at submission, or run by its caller) is numbered
 *     −1, −2, … in its own order
 * @param lane the lane's name
 * @param label the label given at submission, or {@code ""}
 * @param thread name of the thread that ran it ({@code ""} if it never ran)
 * @param acceptedNanos when the lane accepted it
 * @param startedNanos when it started running, or -1 if it never ran
 * @param endedNanos when it finished (or was cancelled / dropped)
 * @param queueWaitNanos accepted → started (for a virtual lane, includes waiting for a permit);
 *     for a task that never ran, accepted → ended
 * @param runNanos started → finished; 0 if it never ran
 * @param cpuNanos CPU time of the running thread during the task, or -1 when not measured (CPU
 *     timing off or not sampled for this task, or a virtual thread, whose CPU time the JDK does
 *     not report)
 * @param outcome how it ended
 */
public record TaskRecord(
    long taskId,
    String lane,
    String label,
    String thread,
    long acceptedNanos,
    long startedNanos,
    long endedNanos,
    long queueWaitNanos,
    long runNanos,
    long cpuNanos,
    TaskOutcome outcome) {

  /** {@return {@link #queueWaitNanos()} in milliseconds} */
  public double queueWaitMillis() {
    return queueWaitNanos / 1e6;
  }

  /** {@return {@link #runNanos()} in milliseconds; 0 if it never ran} */
  public double runMillis() {
    return runNanos / 1e6;
  }

  /** {@return {@link #cpuNanos()} in milliseconds, or -1 when not measured} */
  public double cpuMillis() {
    return cpuNanos < 0 ? -1 : cpuNanos / 1e6;
  }
}
