package dev.lanes.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH result, flattened: which run and benchmark, its parameters, the score with its error
 * (JMH's 99.9 % confidence half-width), percentiles for sample-time results, and secondary
 * results (e.g. {@code bytesPerQueuedTask}).
 */
record Row(
    String runId,
    String suite,
    String benchmark,
    Map<String, String> params,
    Mode mode,
    double score,
    double error,
    String unit,
    double p50,
    double p90,
    double p99,
    Map<String, Double> secondary) {

  static Row of(BenchRun run, RunResult rr) {
    BenchmarkParams bp = rr.getParams();
    Map<String, String> params = new LinkedHashMap<>();
    for (String k : bp.getParamsKeys()) {
      params.put(k, bp.getParam(k));
    }
    String full = bp.getBenchmark();
    String[] parts = full.split("\\.");
    String shortName =
        parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : full;
    Result<?> primary = rr.getPrimaryResult();
    Map<String, Double> secondary = new LinkedHashMap<>();
    // The mean over iterations: an @AuxCounters EVENTS result's score is the sum over them.
    rr.getSecondaryResults().forEach((k, v) -> secondary.put(k, v.getStatistics().getMean()));
    var stats = primary.getStatistics();
    return new Row(
        run.id(),
        run.suite(),
        shortName,
        params,
        bp.getMode(),
        primary.getScore(),
        primary.getScoreError(),
        primary.getScoreUnit(),
        stats.getPercentile(50),
        stats.getPercentile(90),
        stats.getPercentile(99),
        secondary);
  }

  /** CPU ns per task from {@link CpuTimeProfiler}, or NaN if not measured. */
  double cpuPerTask() {
    Double v = secondary.get(CpuTimeProfiler.KEY);
    return v == null ? Double.NaN : v;
  }

  String executor() {
    return params.getOrDefault("executor", "");
  }

  /** Parameters other than the executor, e.g. {@code cap=2 producers=4}. */
  String otherParams() {
    StringBuilder sb = new StringBuilder();
    params.forEach(
        (k, v) -> {
          if (!k.equals("executor")) {
            sb.append(sb.isEmpty() ? "" : " ").append(k).append('=').append(v);
          }
        });
    return sb.toString();
  }

  /** Rows compared with each other: same benchmark method, same parameters but the executor. */
  String groupKey() {
    return runId + "|" + benchmark + "|" + otherParams();
  }
}
