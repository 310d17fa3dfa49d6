package dev.lanes.adapt;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How an {@link AdaptiveLimit} moves a lane's concurrency: its bounds, how many run-time samples a
 * decision takes, how fast it grows, how much a rise in run time it tolerates, how strongly it
 * cuts, and how long it remembers the lowest run time. Immutable; made by {@link #builder()}.
 *
 * <p>The builder refuses a value outside its range at once, naming the setting, the bound and the
 * value; {@link AdaptiveLimit#attach} checks what depends on the lane (a bound above what the
 * lane's kind allows, an initial limit outside the bounds) and names the lane as well.
 */
public final class AdaptiveSettings {

  /** The largest limit a setting may name (a virtual lane's own bound). */
  public static final int MAX_LIMIT = 1_000_000;

  private static final AdaptiveSettings DEFAULTS = builder().build();

  private final int minLimit;
  private final int maxLimit;
  private final int initialLimit; // 0: the lane's concurrency when attached
  private final int samplesPerDecision;
  private final int probeSamples;
  private final double growthFactor;
  private final double runTimeTolerance;
  private final double smoothing;
  private final Duration baselineHorizon;
  private final Duration minRunTimeRise;

  private AdaptiveSettings(Builder b) {
    this.minLimit = b.minLimit;
    this.maxLimit = b.maxLimit;
    this.initialLimit = b.initialLimit;
    this.samplesPerDecision = b.samplesPerDecision;
    this.probeSamples = b.probeSamples;
    this.growthFactor = b.growthFactor;
    this.runTimeTolerance = b.runTimeTolerance;
    this.smoothing = b.smoothing;
    this.baselineHorizon = b.baselineHorizon;
    this.minRunTimeRise = b.minRunTimeRise;
  }

  /** {@return the default settings} The values are those the {@link Builder}'s setters name. */
  public static AdaptiveSettings defaults() {
    return DEFAULTS;
  }

  /** {@return a builder with every setting at its default} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the lowest limit the controller sets} */
  public int minLimit() {
    return minLimit;
  }

  /** {@return the highest limit the controller sets} */
  public int maxLimit() {
    return maxLimit;
  }

  /**
   * {@return the limit the lane starts at when attached, or 0 for "the lane's concurrency then,
   * brought within the bounds"}
   */
  public int initialLimit() {
    return initialLimit;
  }

  /** {@return how many run-time samples one decision takes once probing has ended} */
  public int samplesPerDecision() {
    return samplesPerDecision;
  }

  /** {@return how many run-time samples one decision takes while probing (before the first cut)} */
  public int probeSamples() {
    return probeSamples;
  }

  /** {@return the factor the limit grows by per decision while probing} */
  public double growthFactor() {
    return growthFactor;
  }

  /**
   * {@return how far the recent run time may rise above its baseline before the controller cuts:
   * it cuts when recent &gt; baseline × (1 + tolerance)}
   */
  public double runTimeTolerance() {
    return runTimeTolerance;
  }

  /**
   * {@return the fraction of the way a cut goes towards its target limit × baseline ÷ recent (1:
   * all the way; smaller: gentler cuts)}
   */
  public double smoothing() {
    return smoothing;
  }

  /** {@return how long the lowest (smoothed) run time is remembered as the baseline} */
  public Duration baselineHorizon() {
    return baselineHorizon;
  }

  /**
   * {@return the smallest rise of run time above its baseline that counts as congestion, whatever
   * the ratio} Tasks of a few microseconds vary by more than any tolerance from scheduling alone.
   */
  public Duration minRunTimeRise() {
    return minRunTimeRise;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdaptiveSettings s
        && minLimit == s.minLimit
        && maxLimit == s.maxLimit
        && initialLimit == s.initialLimit
        && samplesPerDecision == s.samplesPerDecision
        && probeSamples == s.probeSamples
        && Double.compare(growthFactor, s.growthFactor) == 0
        && Double.compare(runTimeTolerance, s.runTimeTolerance) == 0
        && Double.compare(smoothing, s.smoothing) == 0
        && baselineHorizon.equals(s.baselineHorizon)
        && minRunTimeRise.equals(s.minRunTimeRise);
  }

  @Override
  public int hashCode() {
    return Objects.hash(minLimit, maxLimit, initialLimit, samplesPerDecision, probeSamples,
        growthFactor, runTimeTolerance, smoothing, baselineHorizon, minRunTimeRise);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "AdaptiveSettings[minLimit=%d, maxLimit=%d, initialLimit=%s, samplesPerDecision=%d,"
            + " probeSamples=%d, growthFactor=%s, runTimeTolerance=%s, smoothing=%s,"
            + " baselineHorizon=%s, minRunTimeRise=%s]",
        minLimit, maxLimit, initialLimit == 0 ? "lane's" : Integer.toString(initialLimit),
        samplesPerDecision, probeSamples, growthFactor, runTimeTolerance, smoothing,
        baselineHorizon, minRunTimeRise);
  }

  /**
   * Builds {@link AdaptiveSettings}. Each setter checks its value's range (the message names the
   * setting, the bound and the value) and refuses a setting given twice; {@link #build()} checks
   * that the bounds are in order.
   */
  public static final class Builder {
    private int minLimit = 1;
    private int maxLimit = 1_000;
    private int initialLimit;
    private int samplesPerDecision = 20;
    private int probeSamples = 4;
    private double growthFactor = 2.0;
    private double runTimeTolerance = 0.2;
    private double smoothing = 1.0;
    private Duration baselineHorizon = Duration.ofSeconds(30);
    private Duration minRunTimeRise = Duration.ofMillis(1);
    private final java.util.Set<String> given = new java.util.HashSet<>();

    private Builder() {}

    private void once(String setting, Object previous) {
      if (!given.add(setting)) {
        throw new IllegalStateException(
            "adaptive limit: " + setting + " was already set to " + previous);
      }
    }

    private static void range(String setting, long value, long min, long max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(String.format(Locale.ROOT,
            "adaptive limit: %s must be between %d and %d, was %d", setting, min, max, value));
      }
    }

    private static void range(String setting, double value, double min, double max,
        boolean minExclusive) {
      if (!(minExclusive ? value > min : value >= min) || !(value <= max)) {
        throw new IllegalArgumentException(String.format(Locale.ROOT,
            "adaptive limit: %s must be %s %s and ≤ %s, was %s", setting,
            minExclusive ? ">" : "≥", min, max, value));
      }
    }

    /** The lowest limit, 1 to {@value #MAX_LIMIT}; default 1. */
    public Builder minLimit(int minLimit) {
      once("minLimit", this.minLimit);
      range("minLimit", minLimit, 1, MAX_LIMIT);
      this.minLimit = minLimit;
      return this;
    }

    /**
     * The highest limit, 1 to {@value #MAX_LIMIT} (a platform lane allows at most 32,767); default
     * 1,000.
     */
    public Builder maxLimit(int maxLimit) {
      once("maxLimit", this.maxLimit);
      range("maxLimit", maxLimit, 1, MAX_LIMIT);
      this.maxLimit = maxLimit;
      return this;
    }

    /**
     * The limit to start at, within the bounds; default: the lane's concurrency when attached,
     * brought within the bounds.
     */
    public Builder initialLimit(int initialLimit) {
      once("initialLimit", this.initialLimit);
      range("initialLimit", initialLimit, 1, MAX_LIMIT);
      this.initialLimit = initialLimit;
      return this;
    }

    /** Run-time samples per decision after probing, 1 to 100,000; default 20. */
    public Builder samplesPerDecision(int samples) {
      once("samplesPerDecision", this.samplesPerDecision);
      range("samplesPerDecision", samples, 1, 100_000);
      this.samplesPerDecision = samples;
      return this;
    }

    /** Run-time samples per decision while probing, 1 to 100,000; default 4. */
    public Builder probeSamples(int samples) {
      once("probeSamples", this.probeSamples);
      range("probeSamples", samples, 1, 100_000);
      this.probeSamples = samples;
      return this;
    }

    /** The growth factor per decision while probing, &gt; 1 and ≤ 100; default 2. */
    public Builder growthFactor(double factor) {
      once("growthFactor", this.growthFactor);
      range("growthFactor", factor, 1, 100, true);
      this.growthFactor = factor;
      return this;
    }

    /**
     * How far run time may rise above its baseline before a cut, &gt; 0 and ≤ 10; default 0.2
     * (20 %).
     */
    public Builder runTimeTolerance(double tolerance) {
      once("runTimeTolerance", this.runTimeTolerance);
      range("runTimeTolerance", tolerance, 0, 10, true);
      this.runTimeTolerance = tolerance;
      return this;
    }

    /** How far a cut goes towards its target, &gt; 0 and ≤ 1; default 1 (all the way). */
    public Builder smoothing(double smoothing) {
      once("smoothing", this.smoothing);
      range("smoothing", smoothing, 0, 1, true);
      this.smoothing = smoothing;
      return this;
    }

    /** How long the baseline run time is remembered, 1 ms to 1 day; default 30 s. */
    public Builder baselineHorizon(Duration horizon) {
      once("baselineHorizon", this.baselineHorizon);
      Objects.requireNonNull(horizon, "adaptive limit: baselineHorizon must not be null");
      if (horizon.compareTo(Duration.ofMillis(1)) < 0 || horizon.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(
            "adaptive limit: baselineHorizon must be between 1 ms and 1 day, was " + horizon);
      }
      this.baselineHorizon = horizon;
      return this;
    }

    /** The smallest rise of run time that counts as congestion, 0 to 1 hour; default 1 ms. */
    public Builder minRunTimeRise(Duration rise) {
      once("minRunTimeRise", this.minRunTimeRise);
      Objects.requireNonNull(rise, "adaptive limit: minRunTimeRise must not be null");
      if (rise.isNegative() || rise.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "adaptive limit: minRunTimeRise must be between 0 and 1 hour, was " + rise);
      }
      this.minRunTimeRise = rise;
      return this;
    }

    /**
     * {@return the settings}
     *
     * @throws IllegalArgumentException if minLimit &gt; maxLimit, or initialLimit is outside them
     */
    public AdaptiveSettings build() {
      if (minLimit > maxLimit) {
        throw new IllegalArgumentException("adaptive limit: minLimit must be ≤ maxLimit "
            + maxLimit + ", was " + minLimit);
      }
      if (initialLimit != 0 && (initialLimit < minLimit || initialLimit > maxLimit)) {
        throw new IllegalArgumentException("adaptive limit: initialLimit must be between minLimit "
            + minLimit + " and maxLimit " + maxLimit + ", was " + initialLimit);
      }
      return new AdaptiveSettings(this);
    }
  }
}
