package dev.lanes;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of one lane: counts, gauges, and wait / run / CPU distributions since it started and
 * for the most recent stats interval.
 *
 * <p>The books balance in every snapshot, however busy the lane: {@code submitted = endedTotal()
 * + queued + running}, where every ended task is counted under exactly one {@link TaskOutcome},
 * and {@code started ≤ submitted}. The counts are read one after another while tasks move, so a
 * snapshot describes the lane as of the moment its counts were read: a task submitted while they
 * were read may be left to the next snapshot, and one that started and ended while they were read
 * may show as running.
 *
 * @param lane name
 * @param kind kind
 * @param shutdown {@code shutdown()} or {@code shutdownNow()} was called
 * @param terminated shut down, and every accepted task has ended
 * @param health current health state
 * @param uptimeNanos since the lane was built
 * @param submitted every call to submit or execute, accepted or not
 * @param started tasks that began running (on a worker, or on the caller by caller-runs)
 * @param ended tasks that ended, by outcome (every outcome present, 0 where none)
 * @param queued accepted tasks that have neither started nor ended, as of the snapshot ({@code
 *     submitted − started −} the tasks that ended without running), never more than the room
 *     left beside the running ones — unless the queue capacity was lowered (a live change) below
 *     what waited then: those tasks stay queued
 * @param oldestQueuedNanos how long the task at the head of the queue (the one waiting longest)
 *     has waited so far, 0 when the queue is empty: a task still waiting shows here before it
 *     ends and reaches the wait figures, so this is the earliest sign of saturation. Read without
 *     a lock, so approximate under concurrent submission (the head may be taken as it is read)
 * @param running tasks that started and have not ended, as of the snapshot ({@code started −}
 *     the tasks that ran and ended)
 * @param workers the lane's threads that hold a slot now: a platform lane's threads, a virtual
 *     lane's virtual threads (each holds one of its {@code concurrency} permits)
 * @param concurrency at most this many tasks run at once (a platform lane's threads, a virtual
 *     lane's permits)
 * @param queueCapacity how many tasks may wait beyond the running ones
 * @param sinceStart every task that ran, since start
 * @param recent tasks that ended in the last completed stats interval (or, before one completed,
 *     since start); at least {@code statsInterval} long, longer if nobody read stats meanwhile
 * @param saturatedNanos total time spent SATURATED or worse ("server saturation time")
 * @param cpuBoundSamples tasks with a CPU reading whose own W/C was below {@link #CPU_BOUND_WC}
 *     (computing)
 * @param blockingSamples tasks with a CPU reading whose own W/C was above {@link #BLOCKING_WC}, or
 *     above 2 × concurrency ÷ cores if that is higher (mostly waiting, not just waiting for a core)
 * @param betweenTasksNanos time the lane's threads spent between tasks running other code: the
 *     dependent stages that completing a task's future ran synchronously ({@code thenApply} and
 *     friends without an executor), task listeners and the exception handler. It is counted in no
 *     task's run or CPU time; a large figure means the lane's threads do other code's work.
 * @param pinning how often this virtual lane's tasks pinned their carrier thread ({@link
 *     LaneBuilder#reportPinning()}); {@link Pinning#NOT_REPORTED} for a lane that does not report
 *     it
 */
public record LaneStats(
    String lane,
    LaneKind kind,
    boolean shutdown,
    boolean terminated,
    LaneHealth health,
    long uptimeNanos,
    long submitted,
    long started,
    Map<TaskOutcome, Long> ended,
    int queued,
    long oldestQueuedNanos,
    int running,
    int workers,
    int concurrency,
    int queueCapacity,
    Timings sinceStart,
    Timings recent,
    long saturatedNanos,
    long cpuBoundSamples,
    long blockingSamples,
    long betweenTasksNanos,
    Pinning pinning) {

  /** A task whose own W/C is below this computes. */
  public static final double CPU_BOUND_WC = 0.25;

  /** A task whose own W/C is above this (at least) mostly waits. */
  public static final double BLOCKING_WC = 3.0;

  /**
   * Makes a snapshot; {@code ended} is copied with every outcome present (0 where it had none) and
   * cannot be modified.
   *
   * @throws NullPointerException if {@code ended} or {@code pinning} is null
   */
  public LaneStats {
    Objects.requireNonNull(pinning, "pinning");
    EnumMap<TaskOutcome, Long> copy = new EnumMap<>(TaskOutcome.class);
    for (TaskOutcome o : TaskOutcome.values()) {
      copy.put(o, Objects.requireNonNull(ended.getOrDefault(o, 0L), "ended count of " + o));
    }
    ended = Collections.unmodifiableMap(copy);
  }

  /**
   * Tasks that ended under {@code outcome}.
   *
   * @param outcome the outcome
   * @return how many tasks ended under it, 0 or more
   * @throws NullPointerException if {@code outcome} is null
   */
  public long count(TaskOutcome outcome) {
    return ended.get(outcome);
  }

  /** {@return how many tasks ended, whatever the outcome: the sum of {@link #ended()}} */
  public long endedTotal() {
    long sum = 0;
    for (long n : ended.values()) {
      sum += n;
    }
    return sum;
  }

  /** {@return how many tasks ran and returned normally ({@link TaskOutcome#COMPLETED})} */
  public long completed() {
    return count(TaskOutcome.COMPLETED);
  }

  /**
   * {@return how many tasks ran and threw, or ended failed without running to an end ({@link
   * TaskOutcome#FAILED})}
   */
  public long failed() {
    return count(TaskOutcome.FAILED);
  }

  /**
   * {@return how many tasks were cancelled while queued or running ({@link
   * TaskOutcome#CANCELLED})}
   */
  public long cancelled() {
    return count(TaskOutcome.CANCELLED);
  }

  /**
   * {@return how many tasks were handed back by {@code shutdownNow()} ({@link
   * TaskOutcome#RETURNED})}
   */
  public long returned() {
    return count(TaskOutcome.RETURNED);
  }

  /**
   * {@return how many tasks were refused or dropped, whatever the reason ({@link
   * TaskOutcome#isRejection()})}
   */
  public long rejected() {
    long sum = 0;
    for (Map.Entry<TaskOutcome, Long> e : ended.entrySet()) {
      if (e.getKey().isRejection()) {
        sum += e.getValue();
      }
    }
    return sum;
  }

  /** {@return how many queue slots are free now: {@code queueCapacity - queued}, never below 0} */
  public int remainingCapacity() {
    return Math.max(0, queueCapacity - queued);
  }

  /**
   * {@return busy thread time ÷ (concurrency × uptime), as {@link Timings#utilisation} of {@link
   * #sinceStart()} with the current concurrency}
   */
  public double utilisation() {
    return sinceStart.utilisation(concurrency);
  }

  /**
   * {@return busy thread time ÷ (concurrency × the recent window), as {@link Timings#utilisation}
   * of {@link #recent()} with the current concurrency}
   */
  public double recentUtilisation() {
    return recent.utilisation(concurrency);
  }

  /**
   * {@return the measured W/C since start ({@link Timings#blockingRatio()}); NaN without CPU
   * samples}
   */
  public double blockingRatio() {
    return sinceStart.blockingRatio();
  }
}
