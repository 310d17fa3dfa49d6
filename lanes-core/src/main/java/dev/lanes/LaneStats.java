package dev.lanes;

/**
 * A snapshot of one lane: counts, gauges, and wait / run / CPU distributions since it started and
 * for the most recent stats interval.
 *
 * @param lane name
 * @param kind kind
 * @param state {@code running}, {@code shutting-down} or {@code terminated}
 * @param health current health state
 * @param uptimeNanos since the lane was built
 * @param counts task counts since start
 * @param queued tasks waiting now
 * @param oldestQueuedNanos how long the task at the head of the queue (the one waiting longest)
 *     has waited so far, 0 when the queue is empty: a task still waiting shows here before it
 *     ends and reaches the wait figures, so this is the earliest sign of saturation. Read without
 *     a lock, so approximate under concurrent submission (the head may be taken as it is read)
 * @param running tasks running now
 * @param threads live threads now (for a virtual lane: virtual threads running tasks)
 * @param concurrencyLimit threads of a platform lane, {@code maxConcurrency} of a virtual one
 * @param queueCapacity the queue's capacity
 * @param sinceStart every task that ended since start
 * @param recent tasks that ended in the last completed stats interval (or, before one completed,
 *     since start); at least {@code statsInterval} long, longer if nobody read stats meanwhile
 * @param saturatedNanos total time spent SATURATED or worse ("server saturation time")
 * @param byLabel figures per task label (labelled tasks only); at most {@link #MAX_LABELS}
 *     labels are kept apart, and the tasks of any further label are added up under {@link
 *     #OTHER_LABEL}
 * @param cpuBoundSamples CPU-sampled tasks whose own W/C was below 0.25 (computing)
 * @param blockingSamples CPU-sampled tasks whose own W/C was above 3 (mostly waiting)
 * @param betweenTasksNanos time the lane's threads spent between tasks running other code: the
 *     dependent stages that completing a task's future ran synchronously ({@code thenApply} and
 *     friends without an executor), task listeners and the exception handler. It is counted in no
 *     task's run or CPU time; a large figure means the lane's threads do other code's work.
 */
public record LaneStats(
    String lane,
    LaneKind kind,
    String state,
    LaneHealth health,
    long uptimeNanos,
    LaneCounts counts,
    int queued,
    long oldestQueuedNanos,
    int running,
    int threads,
    int concurrencyLimit,
    int queueCapacity,
    Timings sinceStart,
    Timings recent,
    long saturatedNanos,
    java.util.Map<String, LabelFigures> byLabel,
    long cpuBoundSamples,
    long blockingSamples,
    long betweenTasksNanos) {

  /** Most labels whose figures are kept apart in {@link #byLabel()}. */
  public static final int MAX_LABELS = 1_000;

  /** The {@link #byLabel()} entry that adds up the tasks of labels beyond {@link #MAX_LABELS}. */
  public static final String OTHER_LABEL = "(other labels)";

  public LaneStats {
    byLabel = java.util.Map.copyOf(byLabel);
  }

  public int remainingCapacity() {
    return Math.max(0, queueCapacity - queued);
  }

  /** Busy thread time ÷ (concurrency limit × uptime). */
  public double utilisation() {
    return sinceStart.utilisation(concurrencyLimit);
  }

  /** Busy thread time ÷ (concurrency limit × the recent window). */
  public double recentUtilisation() {
    return recent.utilisation(concurrencyLimit);
  }

  /** Measured W/C since start; NaN without CPU samples. */
  public double blockingRatio() {
    return sinceStart.blockingRatio();
  }
}
