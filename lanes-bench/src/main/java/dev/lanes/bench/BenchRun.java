package dev.lanes.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One call of the JMH runner: which benchmarks (a regular expression), which parameter values,
 * and how long to warm up and measure (null = the benchmark's own annotations).
 *
 * @param id file name of the JSON results, e.g. {@code throughput-cap64}
 * @param suite the question it answers (what {@code --only} selects)
 * @param include regular expression of benchmark methods
 * @param params parameter values (an empty map = the annotations' values)
 * @param iterations warm-up and measurement iterations and their length, or null
 */
record BenchRun(
    String id,
    String suite,
    String include,
    Map<String, List<String>> params,
    Iterations iterations) {

  /**
   * Warm-up iterations of {@code warmupSeconds} each, then measurement iterations of {@code
   * seconds} each, in each of {@code forks} JVMs.
   */
  record Iterations(int warmups, int warmupSeconds, int measurements, int seconds, int forks) {
    /** Seconds of warm-up and measurement per benchmark and parameter set (JVM starts not counted). */
    int totalSeconds() {
      return (warmups * warmupSeconds + measurements * seconds) * forks;
    }
  }

  BenchRun {
    params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  /** The same run with the {@code executor} values narrowed to {@code keep} (baseline kept). */
  BenchRun onlyExecutors(java.util.Set<String> keep) {
    List<String> executors = params.get("executor");
    if (executors == null) {
      return this;
    }
    List<String> narrowed =
        executors.stream()
            .filter(e -> keep.contains(e) || e.equals(ExecutorFactory.TPE_LBQ))
            .toList();
    Map<String, List<String>> p = new LinkedHashMap<>(params);
    p.put("executor", narrowed);
    return new BenchRun(id, suite, include, p, iterations);
  }

  /** True if, after narrowing, there is something besides the baseline to measure. */
  boolean measuresSomething() {
    List<String> executors = params.get("executor");
    return executors == null
        || executors.stream().anyMatch(e -> !e.equals(ExecutorFactory.TPE_LBQ));
  }
}
