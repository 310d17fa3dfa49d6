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

  /**
   * Longest saturation window, fixed wait threshold, minimum wait, hysteresis and deadlock
   * detection period: beyond an hour these settings judge nothing a person watches, and their
   * nanoseconds stay far from {@code long}'s range (a {@link Duration} of about 292 years has none).
   */
  /** {@link LaneBuilder#MAX_QUEUE_CAPACITY}. */
  static final int MAX_QUEUE_CAPACITY = 1 << 24;
  /** {@link LaneBuilder#MAX_PLATFORM_CONCURRENCY}. */
  static final int MAX_PLATFORM_CONCURRENCY = 32_767;
  /** {@link LaneBuilder#MAX_VIRTUAL_CONCURRENCY}. */
  static final int MAX_VIRTUAL_CONCURRENCY = 1_000_000;
  /** {@link LaneBuilder#MAX_SHED_DURATION}. */
  static final Duration MAX_SHED_DURATION = Duration.ofHours(1);

  /** The largest concurrency of a lane of {@code kind}. */
  static int maxConcurrency(LaneKind kind) {
    return kind == LaneKind.VIRTUAL ? MAX_VIRTUAL_CONCURRENCY : MAX_PLATFORM_CONCURRENCY;
  }

  static final Duration MAX_HEALTH_DURATION = Duration.ofHours(1);

  /** Largest saturation wait-to-run ratio: a wait a million times the run time. */
  static final double MAX_WAIT_TO_RUN_RATIO = 1_000_000;

  static String prefix(String lane) {
    return "lane " + quote(lane) + ": ";
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
    if (ratio > MAX_WAIT_TO_RUN_RATIO) {
      throw new IllegalArgumentException(prefix(lane) + "saturation wait-to-run ratio must be at"
          + " most " + (long) MAX_WAIT_TO_RUN_RATIO + ", was " + ratio);
    }
    return ratio;
  }

  /** A health duration: above 0 and at most {@link #MAX_HEALTH_DURATION}. */
  static Duration positive(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be > 0, was " + d);
    }
    return atMost(lane, setting, d, MAX_HEALTH_DURATION);
  }

  /** A health duration: 0 or more and at most {@link #MAX_HEALTH_DURATION}. */
  static Duration notNegative(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative()) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be ≥ 0, was " + d);
    }
    return atMost(lane, setting, d, MAX_HEALTH_DURATION);
  }

  private static Duration atMost(String lane, String setting, Duration d, Duration max) {
    if (d.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          prefix(lane) + setting + " must be at most " + max + ", was " + d);
    }
    return d;
  }

  /** A builder-only duration between {@code min} and {@code max}, both included. */
  static Duration between(String lane, String setting, Duration d, Duration min, Duration max) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be between "
          + (min.equals(Duration.ofNanos(1)) ? "1ns" : min.toString()) + " and " + max + ", was "
          + d);
    }
    return d;
  }

  static Duration shedRange(String lane, String setting, Duration d) {
    Objects.requireNonNull(d, prefix(lane) + setting + " must not be null");
    if (d.isNegative() || d.isZero() || d.compareTo(MAX_SHED_DURATION) > 0) {
      throw new IllegalArgumentException(prefix(lane) + setting + " must be > 0 and at most "
          + MAX_SHED_DURATION + ", was " + d);
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

  /** {@code s} in double quotes, or {@code null}. */
  static String quote(String s) {
    return s == null ? "null" : '"' + s + '"';
  }
}
