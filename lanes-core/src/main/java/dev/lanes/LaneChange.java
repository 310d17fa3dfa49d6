package dev.lanes;

import java.time.Duration;
import java.util.function.Function;

/**
 * A change to a running lane's settings, made by {@link Lane#change()} and applied by {@link
 * #apply()}: each setter checks its value as {@link LaneBuilder}'s setter of the same name does,
 * with the same message, and {@code apply()} checks the combination, then changes the lane all at
 * once or not at all.
 *
 * <pre>{@code
 * db.change().queueCapacity(200).overflow(OverflowPolicy.discardOldest()).apply();
 * }</pre>
 *
 * <p>What a change does to the tasks the lane holds: none is lost, dropped or re-ordered.
 *
 * <ul>
 *   <li><b>concurrency</b> as {@link Lane#setConcurrency}: raised, queued tasks start at once;
 *       lowered, running tasks finish and no more than the new figure run from then on.
 *   <li><b>queueCapacity</b>: raised, new tasks (and callers blocked for room) find room at once;
 *       lowered below what waits now, every queued task stays queued and runs, and new tasks are
 *       refused (by the overflow policy) until the queue is below the new figure.
 *   <li><b>overflow</b> decides for tasks that arrive from then on; a caller already blocked by
 *       {@link OverflowPolicy#blockCaller} waits out its own timeout.
 *   <li><b>shedding</b> and the <b>saturation</b> settings judge from the next submission and the
 *       next health check; the saturation window's samples are kept.
 * </ul>
 *
 * <p>A change that changes nothing does nothing. One that does is logged once, at INFO, by the
 * lane's logger ({@code dev.lanes}), told to {@link Lane#onSettings} listeners and recorded as a
 * JDK Flight Recorder event {@code dev.lanes.SettingsChange}. Changes are applied one at a time;
 * of two made at once, the second starts from what the first left. Not thread-safe itself: make
 * one per change.
 */
public final class LaneChange {
  /** Checks the whole change and applies it to the lane (see {@link #apply()}). */
  private final Function<LaneChange, LaneSettings> applier;
  private final String name;
  private final LaneKind kind;
  private Integer concurrency;
  private Integer queueCapacity;
  private OverflowPolicy overflow;
  private Duration shedTarget;
  private Duration shedInterval;
  private Double waitToRunRatio;
  private Duration fixedWaitThreshold;
  private Duration saturationWindow;
  private Duration saturationMinWait;
  private Duration enterAfter;
  private Duration exitAfter;

  LaneChange(String name, LaneKind kind, Function<LaneChange, LaneSettings> applier) {
    this.applier = applier;
    this.name = name;
    this.kind = kind;
  }

  /**
   * How many tasks may run at once, as {@link LaneBuilder#concurrency}.
   *
   * @param concurrency 1 to {@value LaneBuilder#MAX_PLATFORM_CONCURRENCY} for a platform lane, 1
   *     to {@value LaneBuilder#MAX_VIRTUAL_CONCURRENCY} for a virtual lane
   * @return this change
   * @throws IllegalArgumentException if out of range
   */
  public LaneChange concurrency(int concurrency) {
    this.concurrency = SettingChecks.range(name, "concurrency", concurrency, 1,
        SettingChecks.maxConcurrency(kind));
    return this;
  }

  /**
   * How many tasks may wait beyond the running ones, as {@link LaneBuilder#queueCapacity}.
   *
   * @param queueCapacity 1 to {@value LaneBuilder#MAX_QUEUE_CAPACITY}
   * @return this change
   * @throws IllegalArgumentException if out of range
   */
  public LaneChange queueCapacity(int queueCapacity) {
    this.queueCapacity = SettingChecks.range(name, "queueCapacity", queueCapacity, 1,
        SettingChecks.MAX_QUEUE_CAPACITY);
    return this;
  }

  /**
   * What to do when the lane is full, as {@link LaneBuilder#overflow}.
   *
   * @param overflow the policy
   * @return this change
   * @throws NullPointerException if null
   * @throws IllegalArgumentException if a block-caller timeout is not between 1 ns and 24 h
   */
  public LaneChange overflow(OverflowPolicy overflow) {
    this.overflow = SettingChecks.overflow(name, overflow);
    return this;
  }

  /**
   * Turns shedding on or changes it, as {@link LaneBuilder#shedWhenQueuedLongerThan}.
   *
   * @param target above 0, at most {@link LaneBuilder#MAX_SHED_DURATION}
   * @param interval above 0, at most {@link LaneBuilder#MAX_SHED_DURATION}
   * @return this change
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if either is out of range
   */
  public LaneChange shedWhenQueuedLongerThan(Duration target, Duration interval) {
    this.shedTarget = SettingChecks.shedRange(name, "shedding target", target);
    this.shedInterval = SettingChecks.shedRange(name, "shedding interval", interval);
    return this;
  }

  /**
   * Turns shedding off.
   *
   * @return this change
   */
  public LaneChange noShedding() {
    this.shedTarget = Duration.ZERO;
    this.shedInterval = Duration.ZERO;
    return this;
  }

  /**
   * Judges saturation by the wait-to-run ratio, as {@link LaneBuilder#saturatedWhenWaitExceedsRun}
   * (replacing a fixed wait threshold).
   *
   * @param ratio a finite number above 0 and at most 1 000 000
   * @return this change
   * @throws IllegalArgumentException if not above 0 (NaN included) or above 1 000 000
   */
  public LaneChange saturatedWhenWaitExceedsRun(double ratio) {
    this.waitToRunRatio = SettingChecks.waitToRunRatio(name, ratio);
    this.fixedWaitThreshold = null;
    return this;
  }

  /**
   * Judges saturation by a fixed wait, as {@link LaneBuilder#saturatedWhenWaitExceeds}
   * (replacing the ratio rule).
   *
   * @param wait above 0 and at most 1 hour
   * @return this change
   * @throws NullPointerException if null
   * @throws IllegalArgumentException if 0, negative or above 1 hour
   */
  public LaneChange saturatedWhenWaitExceeds(Duration wait) {
    this.fixedWaitThreshold = SettingChecks.positive(name, "saturation wait", wait);
    this.waitToRunRatio = null;
    return this;
  }

  /**
   * The saturation figures' sliding window, as {@link LaneBuilder#saturationWindow}.
   *
   * @param window above 0 and at most 1 hour
   * @return this change
   * @throws NullPointerException if null
   * @throws IllegalArgumentException if 0, negative or above 1 hour
   */
  public LaneChange saturationWindow(Duration window) {
    this.saturationWindow = SettingChecks.positive(name, "saturationWindow", window);
    return this;
  }

  /**
   * The floor of the wait threshold, as {@link LaneBuilder#saturationMinWait}.
   *
   * @param minWait 0 to 1 hour
   * @return this change
   * @throws NullPointerException if null
   * @throws IllegalArgumentException if negative or above 1 hour
   */
  public LaneChange saturationMinWait(Duration minWait) {
    this.saturationMinWait = SettingChecks.notNegative(name, "saturationMinWait", minWait);
    return this;
  }

  /**
   * How long the condition must hold before the state worsens, and stop holding before it is OK
   * again, as {@link LaneBuilder#saturationHysteresis}.
   *
   * @param enterAfter 0 to 1 hour
   * @param exitAfter 0 to 1 hour
   * @return this change
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if either is negative or above 1 hour
   */
  public LaneChange saturationHysteresis(Duration enterAfter, Duration exitAfter) {
    this.enterAfter = SettingChecks.notNegative(name, "saturationHysteresis enterAfter", enterAfter);
    this.exitAfter = SettingChecks.notNegative(name, "saturationHysteresis exitAfter", exitAfter);
    return this;
  }

  /**
   * Checks the combination and applies the change, all of it or none.
   *
   * @return the lane's settings now
   * @throws IllegalArgumentException if the combination is refused (a gated lane cannot take
   *     {@link OverflowPolicy#callerRuns()}); the lane keeps its settings
   * @throws IllegalStateException if the lane is shut down; it keeps its settings
   */
  public LaneSettings apply() {
    return applier.apply(this);
  }

  /** The settings {@code now} with this change's values over them (nothing checked here). */
  LaneSettings over(LaneSettings now) {
    double ratio = now.waitToRunRatio();
    Duration fixed = now.fixedWaitThreshold();
    if (waitToRunRatio != null) {
      ratio = waitToRunRatio;
      fixed = null;
    } else if (fixedWaitThreshold != null) {
      fixed = fixedWaitThreshold;
    }
    return new LaneSettings(
        concurrency != null ? concurrency : now.concurrency(),
        queueCapacity != null ? queueCapacity : now.queueCapacity(),
        overflow != null ? overflow : now.overflow(),
        shedTarget != null ? shedTarget : now.shedTarget(),
        shedInterval != null ? shedInterval : now.shedInterval(),
        ratio,
        fixed,
        saturationWindow != null ? saturationWindow : now.saturationWindow(),
        saturationMinWait != null ? saturationMinWait : now.saturationMinWait(),
        enterAfter != null ? enterAfter : now.enterAfter(),
        exitAfter != null ? exitAfter : now.exitAfter());
  }
}
