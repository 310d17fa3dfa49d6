package dev.lanes;

import java.time.Duration;
import java.util.Objects;

/**
 * The checks of a lane's settings, shared by {@link LaneBuilder} (when a lane is built) and {@link
 * LaneChange} (when a running lane is changed), so a value is refused with the same message
 * either way: it names the lane, the setting, the bound and the value ({@code lane "db":
 * queueCapacity must be between 1 and 16777216, was 0}). Stateless.
 */
final class SettingChecks {
  private SettingChecks() {}

  static String prefix(String lane) {
    return "lane " + LaneBuilder.quote(lane) + ": ";
  }

  static int range(String lane, String setting, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          prefix(lane) + setting + " must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  static OverflowPolicy overflow(String lane, OverflowPolicy overflow) {
    Objects.requireNonNull(overflow, prefix(lane) + "overflow must not be null");
    if (overflow.kind() == OverflowPolicy.Kind.BLOCK_CALLER) {
      Duration t = overflow.timeout();
      if (t.isNegative() || t.isZero() || t.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            prefix(lane) + "overflow block-caller timeout must be between 1ns and PT24H, was " + t);
      }
    }
    return overflow;
  }

  static double waitToRunRatio(String lane, double ratio) {
    if (!(ratio > 0) || Double.isInfinite(ratio)) {
      throw new IllegalArgumentException(
          prefix(lane) + "saturation wait-to-run ratio must be a finite number > 0, was " + ratio);
    }
    return ratio;
  }

  static Duration positive(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be > 0, was " + d);
    }
    return d;
  }

  static Duration notNegative(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative()) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be ≥ 0, was " + d);
    }
    return d;
  }

  static Duration shedRange(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative() || d.isZero() || d.compareTo(LaneBuilder.MAX_SHED_DURATION) > 0) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be > 0 and at most "
          + LaneBuilder.MAX_SHED_DURATION + ", was " + d);
    }
    return d;
  }

  /** A gate rules out caller-runs: the caller would run the task without a pass. */
  static void gateAllows(String lane, LaneGate gate, OverflowPolicy overflow) {
    if (gate != null && overflow.kind() == OverflowPolicy.Kind.CALLER_RUNS) {
      throw new IllegalArgumentException(prefix(lane) + "a gate cannot go with overflow " + overflow
          + ": the caller would run the task without passing the gate");
    }
  }
}
