package dev.lanes.adapt;

/**
 * One change of an adaptive lane's limit, with the figures that caused it.
 *
 * @param lane the lane's name
 * @param from the limit before
 * @param to the limit after (the lane's concurrency from now on)
 * @param reason why it changed
 * @param samples how many run-time samples the decision used (the latest, at most
 *     samplesPerDecision)
 * @param recentRunNanos the mean run time of those samples
 * @param baselineRunNanos the baseline it was compared with: the lowest smoothed run time within
 *     the baseline horizon (0 before the first full window of samples)
 * @param running the lane's running tasks when it decided (approximate: read without a lock)
 * @param queued the lane's queued tasks when it decided (approximate: read without a lock)
 * @param atNanos when, on the lane's ticker (the end of the task whose record completed the window)
 */
public record LimitChange(
    String lane,
    int from,
    int to,
    Reason reason,
    int samples,
    long recentRunNanos,
    long baselineRunNanos,
    int running,
    int queued,
    long atNanos) {

  /** Why a limit changed. */
  public enum Reason {
    /** Probing (before the first cut): run time stayed near its baseline while tasks waited, so the limit grew by the growth factor. */
    PROBE,
    /** After probing: run time stayed near its baseline while tasks waited, so the limit grew by a step. */
    GROW,
    /** Run time rose above its baseline by more than the tolerance: the resource behind the lane is congested, so the limit was cut. */
    CUT
  }

  /** {@return the recent mean run time in milliseconds} */
  public double recentRunMillis() {
    return recentRunNanos / 1e6;
  }

  /** {@return the baseline run time in milliseconds} */
  public double baselineRunMillis() {
    return baselineRunNanos / 1e6;
  }
}
