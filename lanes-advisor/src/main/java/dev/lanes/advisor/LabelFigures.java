package dev.lanes.advisor;

/**
 * Figures for the tasks of one label in a lane (labels are given at submission), as summed by a
 * {@link LabelWatch}.
 *
 * @param tasks tasks of this label that ran
 * @param runNanos their summed run time
 * @param cpuSamples how many of them had their CPU time read
 * @param sampledRunNanos summed run time of those
 * @param cpuNanos their summed CPU time
 */
public record LabelFigures(
    long tasks, long runNanos, long cpuSamples, long sampledRunNanos, long cpuNanos) {

  /** W/C for this label, or NaN without CPU samples. */
  public double blockingRatio() {
    if (cpuSamples == 0 || cpuNanos <= 0) {
      return Double.NaN;
    }
    return Math.max(0, sampledRunNanos - cpuNanos) / (double) cpuNanos;
  }
}
