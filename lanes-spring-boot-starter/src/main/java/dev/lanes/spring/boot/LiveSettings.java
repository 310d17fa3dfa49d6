package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.LaneChange;
import dev.lanes.LaneSettings;
import dev.lanes.OverflowPolicy;
import java.time.Duration;
import java.util.Set;

/**
 * The settings of a running lane that the starter changes live — from the actuator endpoint's
 * write operation and from a changed environment — with the names the properties use: each null
 * field is left as the lane has it. {@link #changeOf} turns them into one {@link LaneChange},
 * whose setters check each value with {@link dev.lanes.LaneBuilder}'s messages; settings the core
 * takes in pairs (overflow with block timeout, shed target with interval, enter-after with
 * exit-after) take the missing half from the lane's current settings.
 *
 * @param shedTarget {@link Duration#ZERO} turns shedding off
 */
record LiveSettings(
    Integer concurrency,
    Integer queueCapacity,
    LanesProperties.Overflow overflow,
    Duration blockTimeout,
    Duration shedTarget,
    Duration shedInterval,
    Double waitToRunRatio,
    Duration fixedWaitThreshold,
    Duration saturationWindow,
    Duration saturationMinWait,
    Duration enterAfter,
    Duration exitAfter) {

  /** The settings under {@code lanes.instances.<name>} that a running lane can change, dashed. */
  static final Set<String> PROPERTIES = Set.of("concurrency", "queue-capacity", "overflow",
      "block-timeout", "shed-target", "shed-interval", "wait-to-run-ratio", "fixed-wait-threshold",
      "saturation-window", "saturation-min-wait", "enter-after", "exit-after");

  boolean isEmpty() {
    return concurrency == null && queueCapacity == null && overflow == null && blockTimeout == null
        && shedTarget == null && shedInterval == null && waitToRunRatio == null
        && fixedWaitThreshold == null && saturationWindow == null && saturationMinWait == null
        && enterAfter == null && exitAfter == null;
  }

  /**
   * One change of {@code lane} with these settings (not applied).
   *
   * @throws IllegalArgumentException naming the lane, the setting and the value, as the builder
   */
  LaneChange changeOf(Lane lane) {
    String at = "lane \"" + lane.name() + "\": ";
    LaneSettings now = lane.settings();
    LaneChange change = lane.change();
    if (concurrency != null) {
      change.concurrency(concurrency);
    }
    if (queueCapacity != null) {
      change.queueCapacity(queueCapacity);
    }
    boolean blockingNow = now.overflow().toString().startsWith("block-caller");
    if (overflow != null) {
      if (overflow == LanesProperties.Overflow.BLOCK_CALLER) {
        if (blockTimeout == null) {
          throw new IllegalArgumentException(at + "blockTimeout is required with overflow block-caller");
        }
        change.overflow(OverflowPolicy.blockCaller(blockTimeout));
      } else if (blockTimeout != null) {
        throw new IllegalArgumentException(at + "blockTimeout applies only with overflow block-caller, was "
            + blockTimeout + " with overflow " + overflow.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
      } else {
        change.overflow(switch (overflow) {
          case REJECT -> OverflowPolicy.reject();
          case CALLER_RUNS -> OverflowPolicy.callerRuns();
          case DISCARD_OLDEST -> OverflowPolicy.discardOldest();
          case BLOCK_CALLER -> throw new AssertionError("handled above");
        });
      }
    } else if (blockTimeout != null) {
      if (!blockingNow) {
        throw new IllegalArgumentException(at + "blockTimeout applies only with overflow block-caller, was "
            + blockTimeout + " with overflow " + now.overflow());
      }
      change.overflow(OverflowPolicy.blockCaller(blockTimeout));
    }
    if (shedTarget != null && shedTarget.isZero()) {
      change.noShedding();
    } else if (shedTarget != null || shedInterval != null) {
      Duration target = shedTarget != null ? shedTarget : now.shedding() ? now.shedTarget() : null;
      Duration interval = shedInterval != null ? shedInterval : now.shedding() ? now.shedInterval() : null;
      if (target == null || interval == null) {
        throw new IllegalArgumentException(at + "shedding is off: give both shedTarget and shedInterval, was "
            + (target == null ? "shedInterval " + interval : "shedTarget " + target) + " alone");
      }
      change.shedWhenQueuedLongerThan(target, interval);
    }
    if (waitToRunRatio != null && fixedWaitThreshold != null) {
      throw new IllegalArgumentException(at + "give either waitToRunRatio or fixedWaitThreshold, not both (were "
          + waitToRunRatio + " and " + fixedWaitThreshold + ")");
    }
    if (waitToRunRatio != null) {
      change.saturatedWhenWaitExceedsRun(waitToRunRatio);
    }
    if (fixedWaitThreshold != null) {
      change.saturatedWhenWaitExceeds(fixedWaitThreshold);
    }
    if (saturationWindow != null) {
      change.saturationWindow(saturationWindow);
    }
    if (saturationMinWait != null) {
      change.saturationMinWait(saturationMinWait);
    }
    if (enterAfter != null || exitAfter != null) {
      change.saturationHysteresis(enterAfter != null ? enterAfter : now.enterAfter(),
          exitAfter != null ? exitAfter : now.exitAfter());
    }
    return change;
  }
}
