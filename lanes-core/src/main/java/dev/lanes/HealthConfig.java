package dev.lanes;

import java.time.Duration;
import java.util.Objects;

/**
 * When a lane calls itself saturated, and what it does about starvation deadlocks.
 *
 * <p>Saturation: over the last {@code window}, the lane's mean queue wait is compared with its mean
 * run time times {@code waitToRunRatio} (default 1: tasks wait in line longer than they run); with
 * {@code fixedWaitThreshold} set, with that fixed wait instead. Waits under {@code minWait} never
 * count (a 3 µs wait behind a 1 µs task is no problem). The state changes only after the
 * condition has held for {@code enterAfter} (or stopped holding for {@code exitAfter}).
 *
 * @param window sliding window for the saturation figures
 * @param waitToRunRatio SATURATED when mean wait > ratio × mean run
 * @param fixedWaitThreshold if not null, SATURATED when mean wait > this, whatever the run time
 * @param minWait waits below this never make a lane saturated
 * @param enterAfter how long the condition must hold before entering SATURATED or REJECTING
 * @param exitAfter how long it must stop holding before going back to OK
 * @param deadlockPolicy what to do on a starvation deadlock
 * @param deadlockDetection how long a deadlock seen only through futures lanes did not make
 *     ({@code CompletableFuture.supplyAsync(.., lane).join()}) must hold before it is reported;
 *     one seen through lanes' own futures is reported the moment it forms
 * @param maxCompensationThreads bound on the extra threads of {@link DeadlockPolicy#COMPENSATE}
 */
public record HealthConfig(
    Duration window,
    double waitToRunRatio,
    Duration fixedWaitThreshold,
    Duration minWait,
    Duration enterAfter,
    Duration exitAfter,
    DeadlockPolicy deadlockPolicy,
    Duration deadlockDetection,
    int maxCompensationThreads) {

  public HealthConfig {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(minWait, "minWait");
    Objects.requireNonNull(enterAfter, "enterAfter");
    Objects.requireNonNull(exitAfter, "exitAfter");
    Objects.requireNonNull(deadlockPolicy, "deadlockPolicy");
    Objects.requireNonNull(deadlockDetection, "deadlockDetection");
  }

  /**
   * Checks every setting and their combination; the message names the lane, the setting, the
   * bound and the value. Called when the settings are given to a lane ({@link
   * LaneBuilder#health}), since only then is the lane known.
   */
  void validate(String lane) {
    String p = "lane " + LaneBuilder.quote(lane) + ": health ";
    requirePositive(p, "window", window);
    requirePositive(p, "deadlockDetection", deadlockDetection);
    requireNotNegative(p, "minWait", minWait);
    requireNotNegative(p, "enterAfter", enterAfter);
    requireNotNegative(p, "exitAfter", exitAfter);
    if (fixedWaitThreshold != null) {
      requirePositive(p, "fixedWaitThreshold", fixedWaitThreshold);
    }
    if (!(waitToRunRatio > 0) || Double.isInfinite(waitToRunRatio)) {
      throw new IllegalArgumentException(
          p + "waitToRunRatio must be a finite number > 0, was " + waitToRunRatio);
    }
    if (maxCompensationThreads < 0 || maxCompensationThreads > LaneBuilder.MAX_THREADS) {
      throw new IllegalArgumentException(p + "maxCompensationThreads must be between 0 and "
          + LaneBuilder.MAX_THREADS + ", was " + maxCompensationThreads);
    }
    if (deadlockPolicy == DeadlockPolicy.COMPENSATE && maxCompensationThreads == 0) {
      throw new IllegalArgumentException(p + "maxCompensationThreads must be between 1 and "
          + LaneBuilder.MAX_THREADS + " with deadlockPolicy COMPENSATE, was 0");
    }
  }

  /**
   * Window 5 s, wait > 1 × run, min wait 1 ms, enter after 1 s, exit after 2 s, deadlocks seen
   * through futures lanes did not make reported after 200 ms, up to 64 compensation threads.
   */
  public static HealthConfig defaults() {
    return new HealthConfig(
        Duration.ofSeconds(5),
        1.0,
        null,
        Duration.ofMillis(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        DeadlockPolicy.REPORT,
        Duration.ofMillis(200),
        64);
  }

  public HealthConfig withWindow(Duration window) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, deadlockPolicy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withWaitToRunRatio(double ratio) {
    return new HealthConfig(window, ratio, fixedWaitThreshold, minWait, enterAfter, exitAfter,
        deadlockPolicy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withFixedWaitThreshold(Duration threshold) {
    return new HealthConfig(window, waitToRunRatio, threshold, minWait, enterAfter, exitAfter,
        deadlockPolicy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withMinWait(Duration minWait) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, deadlockPolicy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withHysteresis(Duration enterAfter, Duration exitAfter) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, deadlockPolicy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withDeadlockPolicy(DeadlockPolicy policy) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, policy, deadlockDetection, maxCompensationThreads);
  }

  public HealthConfig withDeadlockDetection(Duration detection) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, deadlockPolicy, detection, maxCompensationThreads);
  }

  public HealthConfig withMaxCompensationThreads(int max) {
    return new HealthConfig(window, waitToRunRatio, fixedWaitThreshold, minWait, enterAfter,
        exitAfter, deadlockPolicy, deadlockDetection, max);
  }

  private static void requirePositive(String prefix, String setting, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(prefix + setting + " must be > 0, was " + d);
    }
  }

  private static void requireNotNegative(String prefix, String setting, Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException(prefix + setting + " must be ≥ 0, was " + d);
    }
  }
}
