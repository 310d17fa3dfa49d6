package dev.lanes;

import java.time.Duration;

/**
 * A lane's saturation and deadlock settings, as its builder validated them (see the builder's
 * {@code saturated…}, {@code saturation…}, {@code deadlockDetection}, {@code …OnDeadlock} and
 * {@code healthLogLevel} methods for what each means); the saturation ones may be replaced live
 * ({@link Settings#with}). {@link SettingChecks} bounds every duration at {@link
 * SettingChecks#MAX_HEALTH_DURATION}; {@link HealthMonitor} still reads them saturated, so settings
 * made past the checks cannot overflow it.
 */
record HealthSettings(
    Duration window,
    double waitToRunRatio,
    Duration fixedWaitThreshold,
    Duration minWait,
    Duration enterAfter,
    Duration exitAfter,
    DeadlockAction deadlockAction,
    Duration deadlockDetection,
    int maxCompensationThreads,
    System.Logger.Level logLevel) {

  /** What a lane does on a proven starvation deadlock. */
  enum DeadlockAction {
    /** Raise DEADLOCKED, publish a health event, log a diagnostic. */
    REPORT,
    /** Also fail the awaited queued tasks (outcome DEADLOCK), releasing their waiters. */
    FAIL,
    /** Also run the awaited queued tasks on bounded extra threads. */
    COMPENSATE
  }

  static final Duration DEFAULT_WINDOW = Duration.ofSeconds(5);
  static final double DEFAULT_WAIT_TO_RUN_RATIO = 1.0;
  static final Duration DEFAULT_MIN_WAIT = Duration.ofMillis(1);
  static final Duration DEFAULT_ENTER_AFTER = Duration.ofSeconds(1);
  static final Duration DEFAULT_EXIT_AFTER = Duration.ofSeconds(2);
  static final Duration DEFAULT_DEADLOCK_DETECTION = Duration.ofMillis(200);
  static final System.Logger.Level DEFAULT_LOG_LEVEL = System.Logger.Level.INFO;
}
