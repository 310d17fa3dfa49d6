package dev.lanes.bench;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.IterationType;

/**
 * How far apart the machine's cores are just before each measurement iteration: the time a cache
 * line takes to go from one spinning thread to another and back ({@link
 * SlowStateProbe#lineRoundTrip}), measured for {@value #MEASURE_MILLIS} ms before the iteration
 * starts (outside its timing). On a virtual machine the host moves the virtual CPUs and this
 * figure with them, and lanes' CPU per task follows it (BENCHMARKS.md, "Issue #27: four
 * producers, where the time goes"): with it beside each iteration's score, a slow fork can be
 * seen to have run while the cores were far apart, or not. Reported as the secondary result
 * {@value #KEY}; warm-up iterations are not measured, and an iteration before which not one
 * chunk of trips completed (both threads kept from a core) reports nothing.
 */
public final class LineRoundTripProfiler implements InternalProfiler {

  static final String KEY = "lineRoundTripNanos";

  /** How long each measurement lasts. */
  static final int MEASURE_MILLIS = 20;

  /** Measures a round trip for about the given nanoseconds (NaN if none completed). */
  interface Measure {
    double nanos(long forNanos) throws InterruptedException;
  }

  private final Measure measure;

  private double roundTrip = Double.NaN;

  /** The profiler JMH makes: {@link SlowStateProbe#lineRoundTrip}. */
  public LineRoundTripProfiler() {
    this(SlowStateProbe::lineRoundTrip);
  }

  LineRoundTripProfiler(Measure measure) {
    this.measure = measure;
  }

  @Override
  public String getDescription() {
    return "cache-line round trip between two spinning threads before each measurement iteration";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    roundTrip = Double.NaN;
    if (iterationParams.getType() != IterationType.MEASUREMENT) {
      return;
    }
    try {
      roundTrip = measure.nanos(MEASURE_MILLIS * 1_000_000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    if (Double.isNaN(roundTrip)) {
      return List.of();
    }
    return List.of(new ScalarResult(KEY, roundTrip, "ns", AggregationPolicy.AVG));
  }
}
