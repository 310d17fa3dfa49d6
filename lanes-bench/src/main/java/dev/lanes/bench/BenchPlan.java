package dev.lanes.bench;

import static dev.lanes.bench.ExecutorFactory.ALL;
import static dev.lanes.bench.ExecutorFactory.CAPPED_VIRTUAL;
import static dev.lanes.bench.ExecutorFactory.FJP;
import static dev.lanes.bench.ExecutorFactory.LANES;
import static dev.lanes.bench.ExecutorFactory.LANES_CPU_EVERY_TASK;
import static dev.lanes.bench.ExecutorFactory.LANES_VIRTUAL;
import static dev.lanes.bench.ExecutorFactory.MICROMETER;
import static dev.lanes.bench.ExecutorFactory.R4J_THREADPOOL;
import static dev.lanes.bench.ExecutorFactory.TPE_ABQ;
import static dev.lanes.bench.ExecutorFactory.TPE_LBQ;
import static dev.lanes.bench.ExecutorFactory.VTHREADS;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What {@code ./lanes bench} runs, in full and in {@code --quick} mode. The full plan runs every
 * benchmark in at least 3 forks, so that a baseline's error bar can be told from a real
 * difference; the quick plan runs one fork of short iterations (a smoke test of the figures, not a
 * verdict). {@link #estimateMinutes} says how long a plan takes.
 *
 * <p>The tiny-task throughput suites ({@code throughput}, {@code throughput-cap64}, both halves of
 * {@code scaling}, {@code health}) run 10 one-second iterations per fork. On a shared 2-core
 * machine their baselines vary from iteration to iteration (sd 10–20 % of the mean at 1 s) and from
 * fork to fork (4–17 %, one fork sometimes a third slower than the rest), and have rare iterations
 * 2–4× faster than the rest (e.g. {@code tpe-abq} at 30 M tasks/s in one 2-second iteration, 7–10 M
 * in the others). JMH's 99.9 % error half-width is {@code t × sd / √n} over all iterations: 4.14 ×
 * sd / √15 ≈ 1.07 sd for 3 forks of 5, 3.46 × sd / √60 ≈ 0.45 sd for 6 forks of 10, 3.39 × sd /
 * √100 ≈ 0.34 sd for 10 forks of 10, and more forks dilute a slow one. In the 2026-11-23 10:52 full
 * run with 6 forks, {@code tpe-abq} in {@code throughput} (fork means 6.99–9.43 M tasks/s) and
 * {@code tpe-lbq} in the 1,000-task batch of {@code scaling} (4.57–7.91 M) came out at ± 10.9 % and
 * ± 12.2 %, so those two suites run {@link #FULL_NOISY_FORKS} forks; in the 16:26 full run {@code
 * tpe-lbq} at 2 producers in {@code scaling-producers} came out at ± 11.3 % with 6 forks (fork
 * means 5.67–7.60 M), so that suite runs {@link #FULL_NOISY_FORKS} too; {@code health}, whose
 * baseline stayed within ± 10 % with 6, keeps {@link #FULL_TINY_FORKS}. The 10 M-task batch of
 * {@code scaling} takes longer than a second, so its iterations are one batch each. {@code
 * throughput-cap64} runs {@link #FULL_CAP64_FORKS} forks: there {@code r4j-semaphore-vthreads} runs
 * at 40–65 % of its usual rate in some JVMs, steadily within each (4 of 10 in the 10:52 run:
 * 1.63–2.93 against 4.17–4.45 M tasks/s), so only more forks narrow its bar. Suites whose baselines
 * were within ± 10 % with 3 forks of 5 × 2 s (handoff, work) keep that plan.
 *
 * <p>The full plan must fit in one working session with time to write up (issue #27: the run
 * behind BENCHMARKS.md is one run, and a session lasts three hours): about 140 minutes of
 * iterations, which took 155 minutes with the JVM starts in the last full run. Issue #27's
 * shared-latch suite added 38 minutes, so the tiny-task suites warm up for 2 × 1 s instead of 2 ×
 * 2 s (the hot path is compiled within the first batches), scaling-tasks runs only the baseline and
 * the two lanes whose per-task cost must stay flat, and scaling-producers runs 1 and 4 producers
 * on the baseline, {@code tpe-abq} and lanes (the shared-latch suite sweeps 2, 4 and 8).
 */
final class BenchPlan {

  /** The suites, in run order; {@code --only} takes these names. */
  static final List<String> SUITES =
      List.of("throughput", "shared-latch", "handoff", "scaling", "memory", "work", "health",
          "agent");

  /**
   * Executors of the {@code shared-latch} suite with one producer (issue #27's table), baseline
   * {@code tpe-abq} first.
   */
  static final List<String> SHARED_LATCH =
      List.of(TPE_ABQ, TPE_LBQ, LANES, LANES_VIRTUAL, VTHREADS, FJP, MICROMETER, R4J_THREADPOOL);

  /** Executors of the {@code shared-latch} suite through {@code CompletableFuture.runAsync}. */
  static final List<String> SHARED_LATCH_ASYNC = List.of(TPE_ABQ, LANES, FJP);

  /**
   * Executors of the {@code shared-latch} producers sweep (2, 4, 8 producers; 1 is in the
   * one-producer run).
   */
  static final List<String> SHARED_LATCH_SWEEP = List.of(TPE_ABQ, LANES, FJP);

  /** Fewest forks of any benchmark in the full plan. */
  static final int FULL_FORKS = 3;

  /** Forks of {@code health} in the full plan. */
  static final int FULL_TINY_FORKS = 6;

  /**
   * Forks of {@code throughput}, {@code scaling-tasks} and {@code scaling-producers} in the full
   * plan, whose baselines were wider than ± 10 % with {@link #FULL_TINY_FORKS} (see the class
   * comment).
   */
  static final int FULL_NOISY_FORKS = 10;

  /**
   * Forks of each arm (bare JVM, JVM with the agent) of the {@code agent} suite in the full plan:
   * as many as the noisiest tiny-task suites, since its forks are as bimodal (BENCHMARKS.md, "Issue
   * #24") and a 0.97× goal needs a narrow bar.
   */
  static final int FULL_AGENT_FORKS = 10;

  /** Forks of the cap-64 throughput suite in the full plan (see the class comment). */
  static final int FULL_CAP64_FORKS = 16;

  private static final BenchRun.Iterations FULL = new BenchRun.Iterations(3, 2, 5, 2, FULL_FORKS);
  private static final BenchRun.Iterations FULL_TINY =
      new BenchRun.Iterations(2, 1, 10, 1, FULL_TINY_FORKS);
  private static final BenchRun.Iterations FULL_NOISY =
      new BenchRun.Iterations(2, 1, 10, 1, FULL_NOISY_FORKS);
  private static final BenchRun.Iterations FULL_CAP64 =
      new BenchRun.Iterations(2, 1, 10, 1, FULL_CAP64_FORKS);
  private static final BenchRun.Iterations FULL_AGENT =
      new BenchRun.Iterations(2, 2, 10, 1, FULL_AGENT_FORKS);
  private static final BenchRun.Iterations FULL_MEMORY =
      new BenchRun.Iterations(1, 1, 3, 1, FULL_FORKS);
  private static final BenchRun.Iterations QUICK = new BenchRun.Iterations(1, 1, 3, 1, 1);
  private static final BenchRun.Iterations QUICK_MEMORY = new BenchRun.Iterations(0, 1, 1, 1, 1);

  /**
   * Executors of the scaling-tasks suite in the full plan: the baseline and the two whose per-task
   * cost must stay flat (the 10M-task batch rules out thread-per-task ones anyway).
   */
  private static final List<String> SCALING_TASKS_FULL = List.of(TPE_LBQ, LANES, LANES_VIRTUAL);

  /**
   * Executors and producers of the scaling-producers suite in the full plan: the baseline, the
   * goal's peer ({@code tpe-abq}) and lanes at 1 and 4 producers (the shared-latch suite sweeps 2,
   * 4 and 8).
   */
  private static final List<String> SCALING_PRODUCERS_FULL = List.of(TPE_LBQ, TPE_ABQ, LANES);

  private BenchPlan() {}

  static List<BenchRun> full() {
    List<BenchRun> runs = new ArrayList<>();
    runs.add(throughput("throughput", ALL, "2", FULL_NOISY));
    // vthreads has no cap; it runs here too so the cap-64 goal has its peer in the same run
    runs.add(throughput("throughput-cap64",
        withBaseline(Stream.concat(CAPPED_VIRTUAL.stream(), Stream.of(ExecutorFactory.VTHREADS))
            .toList()), "64", FULL_CAP64));
    runs.addAll(sharedLatch(FULL_NOISY, FULL_TINY));
    runs.add(run("handoff", "handoff", "HandoffBenchmark", executors(ALL, "2"), FULL));
    runs.add(
        run("scaling-tasks", "scaling", "ScalingBenchmark\\.tasks",
            executors(SCALING_TASKS_FULL, "2"), FULL_NOISY));
    runs.add(
        run("scaling-producers", "scaling", "ScalingBenchmark\\.producers",
            with(executors(SCALING_PRODUCERS_FULL, "2"), "producers", List.of("1", "4")),
            FULL_NOISY));
    runs.add(run("memory", "memory", "MemoryPerQueuedTaskBenchmark", Map.of(), FULL_MEMORY));
    runs.add(
        run("work", "work", "(WorkSizedBenchmark|TaskSizeBenchmark)", executors(ALL, "2"), FULL));
    runs.add(run("health", "health", "HealthFeaturesBenchmark", Map.of(), FULL_TINY));
    runs.addAll(agent(List.of(TPE_LBQ, TPE_ABQ), List.of(TPE_LBQ), FULL_AGENT));
    return runs;
  }

  static List<BenchRun> quick() {
    List<String> scaling = List.of(TPE_LBQ, LANES, LANES_VIRTUAL);
    List<BenchRun> runs = new ArrayList<>();
    runs.add(throughput("throughput", ALL, "2", QUICK));
    runs.addAll(sharedLatch(QUICK, QUICK));
    runs.add(run("handoff", "handoff", "HandoffBenchmark", executors(ALL, "2"), QUICK));
    runs.add(
        run("scaling-tasks", "scaling", "ScalingBenchmark\\.tasks(1k|100k)$",
            executors(scaling, "2"), QUICK));
    runs.add(
        run("scaling-producers", "scaling", "ScalingBenchmark\\.producers",
            with(executors(List.of(TPE_LBQ, LANES), "2"), "producers", List.of("1", "2", "4")),
            QUICK));
    runs.add(
        run("memory", "memory", "MemoryPerQueuedTaskBenchmark",
            Map.of("executor", List.of(TPE_LBQ, LANES, LANES_VIRTUAL, VTHREADS)), QUICK_MEMORY));
    runs.add(
        run("work", "work", "(WorkSizedBenchmark|TaskSizeBenchmark)",
            executors(List.of(TPE_LBQ, LANES, LANES_CPU_EVERY_TASK, LANES_VIRTUAL), "2"), QUICK));
    runs.add(run("health", "health", "HealthFeaturesBenchmark", Map.of(), QUICK));
    runs.addAll(agent(List.of(TPE_LBQ, TPE_ABQ), List.of(TPE_LBQ), QUICK));
    return runs;
  }

  /**
   * The {@code shared-latch} suite (issue #27, {@link SharedLatchBenchmark}): one producer on
   * {@link #SHARED_LATCH}, one producer through {@code CompletableFuture.runAsync} on {@link
   * #SHARED_LATCH_ASYNC}, then the producers sweep on {@link #SHARED_LATCH_SWEEP} ({@code sweep}:
   * fewer forks in the full plan).
   */
  private static List<BenchRun> sharedLatch(BenchRun.Iterations it, BenchRun.Iterations sweep) {
    return List.of(
        run("shared-latch", "shared-latch", "SharedLatchBenchmark\\.producers1$",
            executors(SHARED_LATCH, "2"), it),
        run("shared-latch-async", "shared-latch", "SharedLatchBenchmark\\.runAsync1$",
            executors(SHARED_LATCH_ASYNC, "2"), it),
        run("shared-latch-producers", "shared-latch",
            "SharedLatchBenchmark\\.producers[248]$", executors(SHARED_LATCH_SWEEP, "2"), sweep));
  }

  /**
   * The {@code agent} suite (issue #25): each workload in JVMs without and with the lanes agent.
   * {@code agent-tiny} and {@code agent-work} are {@code throughput}'s and {@code work}'s batches
   * as they are (one shared {@code Runnable} per batch) on {@code executors}; {@code
   * agent-tiny-distinct} and {@code agent-work-distinct} the same batches with one {@code
   * Runnable} object per task ({@link AgentCostBenchmark}) on {@code distinctExecutors}.
   */
  private static List<BenchRun> agent(List<String> executors, List<String> distinctExecutors,
      BenchRun.Iterations it) {
    return List.of(
        agentRun("agent-tiny", "ThroughputBenchmark\\.batch$", executors, it),
        agentRun("agent-work", "WorkSizedBenchmark\\.batch$", executors, it),
        agentRun("agent-tiny-distinct", "AgentCostBenchmark\\.tinyDistinct$", distinctExecutors,
            it),
        agentRun("agent-work-distinct", "AgentCostBenchmark\\.workDistinct$", distinctExecutors,
            it));
  }

  private static BenchRun agentRun(String id, String method, List<String> executors,
      BenchRun.Iterations it) {
    return new BenchRun(id, "agent", "dev\\.lanes\\.bench\\." + method,
        executors(executors, "2"), it, true);
  }

  /**
   * Minutes the plan's warm-up and measurement iterations take: for each run, its benchmark
   * methods (matched in JMH's {@code META-INF/BenchmarkList}) × parameter combinations × forks ×
   * JVM kinds ({@link BenchRun#arms()}) × iterations. A lower bound: JVM starts and set-up come
   * on top.
   */
  static long estimateMinutes(List<BenchRun> plan, String benchmarkList) {
    long seconds = 0;
    for (BenchRun r : plan) {
      long combos = 1;
      for (List<String> values : r.params().values()) {
        combos *= values.size();
      }
      BenchRun.Iterations it = r.iterations();
      seconds += combos * methods(r, benchmarkList) * r.arms()
          * (it == null ? 0 : it.totalSeconds());
    }
    return Math.round(seconds / 60.0);
  }

  /** Benchmark methods a run selects. Each list line: JMH S len class S len generated S len method. */
  static long methods(BenchRun run, String benchmarkList) {
    java.util.regex.Pattern p = java.util.regex.Pattern.compile(run.include());
    return benchmarkList.lines()
        .map(l -> l.split(" "))
        .filter(t -> t.length > 9)
        .filter(t -> p.matcher(t[3] + "." + t[9]).find())
        .count();
  }

  /** JMH's list of benchmarks in this jar, or "" if the annotation processor did not run. */
  static String benchmarkList() {
    try (var in = BenchPlan.class.getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
      return in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static BenchRun throughput(
      String id, List<String> executors, String cap, BenchRun.Iterations it) {
    return run(id, "throughput", "ThroughputBenchmark", executors(executors, cap), it);
  }

  private static BenchRun run(
      String id,
      String suite,
      String classPattern,
      Map<String, List<String>> params,
      BenchRun.Iterations it) {
    return new BenchRun(id, suite, "dev\\.lanes\\.bench\\." + classPattern, params, it);
  }

  private static Map<String, List<String>> executors(List<String> executors, String cap) {
    Map<String, List<String>> p = new LinkedHashMap<>();
    p.put("executor", executors);
    p.put("cap", List.of(cap));
    return p;
  }

  private static Map<String, List<String>> with(
      Map<String, List<String>> params, String key, List<String> values) {
    Map<String, List<String>> p = new LinkedHashMap<>(params);
    p.put(key, values);
    return p;
  }

  private static List<String> withBaseline(List<String> executors) {
    return Stream.concat(Stream.of(TPE_LBQ), executors.stream()).toList();
  }
}
