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
 * @param agentArms true: each benchmark and parameter set runs in two kinds of JVM, without and
 *     with {@code -javaagent:lanes-agent.jar}, {@code iterations.forks()} of each, alternating
 *     ({@link AgentArms})
 */
record BenchRun(
    String id,
    String suite,
    String include,
    Map<String, List<String>> params,
    Iterations iterations,
    boolean agentArms) {

  BenchRun(String id, String suite, String include, Map<String, List<String>> params,
      Iterations iterations) {
    this(id, suite, include, params, iterations, false);
  }

  /** JVM kinds each fork count applies to: 2 for an agent run (bare and instrumented), else 1. */
  int arms() {
    return agentArms ? 2 : 1;
  }

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
            .filter(e -> keep.contains(e) || isBaseline(e))
            .toList();
    Map<String, List<String>> p = new LinkedHashMap<>(params);
    p.put("executor", narrowed);
    return new BenchRun(id, suite, include, p, iterations, agentArms);
  }

  /**
   * True if, after narrowing, there is something besides the baseline to measure (in an agent
   * run the baseline is the bare JVM, so any executor is).
   */
  boolean measuresSomething() {
    List<String> executors = params.get("executor");
    return executors == null
        || (agentArms && !executors.isEmpty())
        || executors.stream().anyMatch(e -> !isBaseline(e));
  }

  /**
   * The baselines {@code --executors} always keeps: {@code tpe-lbq}, and in the shared-latch suite
   * (whose goals are ratios to it) {@code tpe-abq}.
   */
  private boolean isBaseline(String executor) {
    return executor.equals(ExecutorFactory.TPE_LBQ)
        || (suite.equals("shared-latch") && executor.equals(ExecutorFactory.TPE_ABQ));
  }
}
