package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.options.TimeValue;

/** The round-trip profiler measures before measurement iterations only, and the tables show it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LineRoundTripProfilerTest {

  private static final IterationParams WARMUP =
      new IterationParams(IterationType.WARMUP, 1, TimeValue.seconds(1), 1);
  private static final IterationParams MEASUREMENT =
      new IterationParams(IterationType.MEASUREMENT, 1, TimeValue.seconds(1), 1);

  @Test
  void measuresBeforeEachMeasurementIterationAndNotBeforeWarmUps() {
    java.util.List<Long> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    LineRoundTripProfiler profiler = new LineRoundTripProfiler(nanos -> {
      asked.add(nanos);
      return 123.0;
    });

    profiler.beforeIteration(null, WARMUP);
    assertThat(profiler.afterIteration(null, WARMUP, null)).isEmpty();
    assertThat(asked).isEmpty();

    profiler.beforeIteration(null, MEASUREMENT);
    List<? extends Result> results = new ArrayList<>(profiler.afterIteration(null, MEASUREMENT, null));
    assertThat(asked).containsExactly(LineRoundTripProfiler.MEASURE_MILLIS * 1_000_000L);
    assertThat(results).hasSize(1);
    assertThat(results.get(0).getLabel()).isEqualTo(LineRoundTripProfiler.KEY);
    assertThat(results.get(0).getScore()).isEqualTo(123.0);
    assertThat(results.get(0).getScoreUnit()).isEqualTo("ns");
  }

  @Test
  void reportsNothingWhenNoRoundTripCompleted() {
    LineRoundTripProfiler profiler = new LineRoundTripProfiler(nanos -> Double.NaN);
    profiler.beforeIteration(null, MEASUREMENT);
    assertThat(profiler.afterIteration(null, MEASUREMENT, null)).isEmpty();
  }

  @Test
  void theThroughputTableShowsTheRoundTripOrADashWithoutOne() {
    Row measured = row("lanes", Map.of(CpuTimeProfiler.KEY, 150.0,
        LineRoundTripProfiler.KEY, 123.4));
    Row unmeasured = row("tpe-lbq", Map.of(CpuTimeProfiler.KEY, 200.0));
    String tables = BenchReport.tables(
        BenchPlan.full().stream().filter(r -> r.id().equals("throughput")).toList(),
        List.of(unmeasured, measured));
    assertThat(tables).contains("| round trip (ns) |")
        .contains("| 150.0 | 0.75 | 123.4 |")
        .contains("| 200.0 | 1.00 | – |");
  }

  @Test
  void aRowTakesTheMedianRoundTripOverItsIterationsAndTheMeanOfTheRest() {
    org.openjdk.jmh.util.ListStatistics iterations = new org.openjdk.jmh.util.ListStatistics();
    for (double v : new double[] {80, 90, 70, 350_000}) { // one window without a core
      iterations.addValue(v);
    }
    assertThat(Row.overIterations(LineRoundTripProfiler.KEY, iterations)).isEqualTo(85.0);
    assertThat(Row.overIterations(CpuTimeProfiler.KEY, iterations)).isEqualTo(87_560.0);
  }

  private static Row row(String executor, Map<String, Double> secondary) {
    return new Row("throughput", "throughput", "ThroughputBenchmark.batch",
        Map.of("executor", executor, "cap", "2"), Mode.Throughput, 1e6, 1e4, "ops/s", 0, 0, 0,
        secondary);
  }
}
