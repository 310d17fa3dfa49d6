package dev.lanes.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH result, flattened: which run and benchmark, its parameters, the score with its error
 * (JMH's 99.9 % confidence half-width), percentiles for sample-time results, and secondary
 * results (e.g. {@code bytesPerQueuedTask}), and each fork's own mean score and CPU per task, in
 * the order the forks ran.
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
    Map<String, Double> secondary,
    List<Fork> forks) {

  /** One fork's mean over its measurement iterations: score, and CPU ns per task (NaN if none). */
  record Fork(double score, double cpuPerTask) {}

  /** The parameter naming the JVM kind of an agent run's row: {@link #BARE} or {@link #AGENT}. */
  static final String ARM = "arm";

  static final String BARE = "bare";
  static final String AGENT = "agent";
  /** The agent with its option {@code sample=N} ({@code --agent-sample N}). */
  static final String SAMPLED = "sampled";

  Row {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    forks = List.copyOf(forks);
  }

  /** A row without per-fork figures. */
  Row(String runId, String suite, String benchmark, Map<String, String> params, Mode mode,
      double score, double error, String unit, double p50, double p90, double p99,
      Map<String, Double> secondary) {
    this(runId, suite, benchmark, params, mode, score, error, unit, p50, p90, p99, secondary,
        List.of());
  }

  /** The same result with one more parameter, e.g. {@code arm=agent}. */
  Row withParam(String key, String value) {
    Map<String, String> p = new LinkedHashMap<>(params);
    p.put(key, value);
    return new Row(runId, suite, benchmark, p, mode, score, error, unit, p50, p90, p99, secondary,
        forks);
  }

  /** {@link #BARE} or {@link #AGENT} in an agent run; "" elsewhere. */
  String arm() {
    return params.getOrDefault(ARM, "");
  }

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
    rr.getSecondaryResults().forEach((k, v) -> secondary.put(k, overIterations(k, v.getStatistics())));
    var stats = primary.getStatistics();
    List<Fork> forks = new ArrayList<>();
    for (BenchmarkResult br : rr.getBenchmarkResults()) {
      Result<?> cpu = br.getSecondaryResults().get(CpuTimeProfiler.KEY);
      forks.add(new Fork(br.getPrimaryResult().getScore(),
          cpu == null ? Double.NaN : cpu.getStatistics().getMean()));
    }
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
        secondary,
        forks);
  }

  /**
   * A secondary result over a row's iterations: the mean (an {@code @AuxCounters} EVENTS result's
   * score is the sum over them), but for the cache-line round trip the median. A round-trip window
   * in which one of the two spinning threads waited for a core (the JIT's compiler threads early
   * in a fork, for one) reads 300–430 µs where the others read about 70–450 ns; in the 2026-11-26
   * night run 1 to 7 of a row's 69–91 windows did, enough to make a mean of them say 17 µs.
   */
  static double overIterations(String key, org.openjdk.jmh.util.Statistics iterations) {
    return key.equals(LineRoundTripProfiler.KEY)
        ? iterations.getPercentile(50)
        : iterations.getMean();
  }

  /**
   * The median cache-line round trip over the row's iterations from {@link LineRoundTripProfiler},
   * or NaN if not measured.
   */
  double lineRoundTrip() {
    Double v = secondary.get(LineRoundTripProfiler.KEY);
    return v == null ? Double.NaN : v;
  }

  /** CPU ns per task from {@link CpuTimeProfiler}, or NaN if not measured. */
  double cpuPerTask() {
    Double v = secondary.get(CpuTimeProfiler.KEY);
    return v == null ? Double.NaN : v;
  }

  String executor() {
    return params.getOrDefault("executor", "");
  }

  /** Parameters other than the executor (and the arm), e.g. {@code cap=2 producers=4}. */
  String otherParams() {
    StringBuilder sb = new StringBuilder();
    params.forEach(
        (k, v) -> {
          if (!k.equals("executor") && !k.equals(ARM)) {
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
