package dev.lanes;

/**
 * Wait, run and CPU figures of the tasks that ended in some window.
 *
 * @param queueWait accepted → started
 * @param runTime started → ended
 * @param cpuTime CPU time of the tasks whose CPU time was read (see {@link
 *     LaneBuilder#cpuTimeSampled})
 * @param windowNanos how long the window is
 * @param busyNanos sum of run times (the thread time spent running tasks)
 * @param cpuSampledRunNanos sum of run times of the tasks whose CPU time was read
 * @param cpuNanos sum of their CPU times
 */
public record Timings(
    Distribution queueWait,
    Distribution runTime,
    Distribution cpuTime,
    long windowNanos,
    long busyNanos,
    long cpuSampledRunNanos,
    long cpuNanos) {

  /** No tasks and an empty window: every distribution {@link Distribution#EMPTY}, every sum 0. */
  public static final Timings EMPTY =
      new Timings(Distribution.EMPTY, Distribution.EMPTY, Distribution.EMPTY, 0, 0, 0, 0);

  /**
   * Measured blocking ratio W/C = (run − CPU) ÷ CPU over the tasks whose CPU time was read, or NaN
   * without any. 0 means pure computation; 9 means 90 % of a task's time is waiting.
   *
   * @return the ratio, 0 or more (0 when CPU time is at least the run time), or NaN when no task's
   *     CPU time was read or their CPU times add up to 0
   */
  public double blockingRatio() {
    if (cpuTime.count() == 0 || cpuNanos <= 0) {
      return Double.NaN;
    }
    return Math.max(0, cpuSampledRunNanos - cpuNanos) / (double) cpuNanos;
  }

  /**
   * Busy thread time ÷ (concurrency × window), or NaN for an empty window.
   *
   * @param concurrency how many tasks could run at once over the window (the lane's concurrency)
   * @return the share of the lane's capacity spent running tasks, usually 0 to 1; it can exceed 1,
   *     as a task's whole run counts in the window it ended in, and tasks run by their callers
   *     (caller-runs) count as busy time too. NaN when the window is empty or {@code concurrency}
   *     is below 1
   */
  public double utilisation(int concurrency) {
    if (windowNanos <= 0 || concurrency <= 0) {
      return Double.NaN;
    }
    return busyNanos / ((double) concurrency * windowNanos);
  }
}
