package dev.lanes;

import java.time.Duration;

/**
 * The settings of a lane that can change while it runs, as they are at one instant ({@link
 * Lane#settings()}); change them with {@link Lane#change()}. The others — name, kind, thread
 * factory, decorator, exception handler, CPU timing, ticker, stats interval, deadlock action and
 * detection, gate — are fixed when the lane is built.
 *
 * @param concurrency how many tasks may run at once
 * @param queueCapacity how many more may wait
 * @param overflow what the lane does with a task that arrives when it is full
 * @param shedTarget shedding's target queue wait ({@link LaneBuilder#shedWhenQueuedLongerThan});
 *     {@link Duration#ZERO} when shedding is off
 * @param shedInterval how long waits must stay above the target before new tasks are shed; {@link
 *     Duration#ZERO} when shedding is off
 * @param waitToRunRatio the lane is SATURATED when its queue wait exceeds this × its run time
 *     (used when {@code fixedWaitThreshold} is null)
 * @param fixedWaitThreshold the lane is SATURATED when its queue wait exceeds this, whatever the
 *     run time; null when the ratio rule is used
 * @param saturationWindow the sliding window of the saturation figures
 * @param saturationMinWait waits below this never make the lane SATURATED
 * @param enterAfter how long the condition must hold before the state worsens
 * @param exitAfter how long it must stop holding before the state is OK again
 */
public record LaneSettings(
    int concurrency,
    int queueCapacity,
    OverflowPolicy overflow,
    Duration shedTarget,
    Duration shedInterval,
    double waitToRunRatio,
    Duration fixedWaitThreshold,
    Duration saturationWindow,
    Duration saturationMinWait,
    Duration enterAfter,
    Duration exitAfter) {

  /** {@return whether new tasks may be shed ({@code shedTarget} above 0)} */
  public boolean shedding() {
    return !shedTarget.isZero();
  }

  /**
   * {@return the settings that differ from {@code before}, for people: {@code "queueCapacity 500
   * → 200, overflow reject → discard-oldest"}; empty when none does}
   *
   * @param before the settings to compare with
   */
  public String differencesFrom(LaneSettings before) {
    StringBuilder b = new StringBuilder();
    diff(b, "concurrency", before.concurrency, concurrency);
    diff(b, "queueCapacity", before.queueCapacity, queueCapacity);
    diff(b, "overflow", before.overflow, overflow);
    diff(b, "shedding", shedText(before), shedText(this));
    diff(b, "saturation threshold", thresholdText(before), thresholdText(this));
    diff(b, "saturationWindow", before.saturationWindow, saturationWindow);
    diff(b, "saturationMinWait", before.saturationMinWait, saturationMinWait);
    diff(b, "saturationHysteresis", before.enterAfter + ", " + before.exitAfter,
        enterAfter + ", " + exitAfter);
    return b.toString();
  }

  private static String shedText(LaneSettings s) {
    return s.shedding() ? s.shedTarget + " for " + s.shedInterval : "off";
  }

  private static String thresholdText(LaneSettings s) {
    return s.fixedWaitThreshold != null ? "wait > " + s.fixedWaitThreshold
        : "wait > " + s.waitToRunRatio + " × run";
  }

  private static void diff(StringBuilder b, String setting, Object was, Object is) {
    if (!java.util.Objects.equals(was, is)) {
      if (!b.isEmpty()) {
        b.append(", ");
      }
      b.append(setting).append(' ').append(was).append(" → ").append(is);
    }
  }
}
