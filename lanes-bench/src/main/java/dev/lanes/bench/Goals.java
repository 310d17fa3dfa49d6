package dev.lanes.bench;

import static dev.lanes.bench.ExecutorFactory.FJP;
import static dev.lanes.bench.ExecutorFactory.LANES;
import static dev.lanes.bench.ExecutorFactory.LANES_CPU_EVERY_TASK;
import static dev.lanes.bench.ExecutorFactory.LANES_VIRTUAL;
import static dev.lanes.bench.ExecutorFactory.MICROMETER;
import static dev.lanes.bench.ExecutorFactory.R4J_SEMAPHORE_VTHREADS;
import static dev.lanes.bench.ExecutorFactory.R4J_THREADPOOL;
import static dev.lanes.bench.ExecutorFactory.SPRING_VTHREADS_LIMIT;
import static dev.lanes.bench.ExecutorFactory.TPE_ABQ;
import static dev.lanes.bench.ExecutorFactory.TPE_LBQ;
import static dev.lanes.bench.ExecutorFactory.VTHREADS;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The benchmark issue's goals, judged from one run's results. A verdict is MET or MISSED on the
 * point estimate; "(within error)" or "(error bars overlap the target)" says whether the range the
 * error bars allow agrees. A goal whose results were not measured in this run says so.
 */
final class Goals {

  enum Verdict {
    MET,
    MISSED,
    NOT_MEASURED
  }

  record Judgement(String goal, String measured, Verdict verdict, String note) {}

  private final List<Row> rows;

  private Goals(List<Row> rows) {
    this.rows = rows;
  }

  static List<Judgement> judge(List<Row> rows) {
    return new Goals(rows).all();
  }

  private List<Judgement> all() {
    List<Judgement> out = new ArrayList<>();
    // The core-reshape issue's goals (#11): against the bare pool with the faster queue.
    out.add(atLeast("lanes throughput ≥ 1.0× tpe-abq (1 producer, tiny tasks)", "throughput",
        LANES, TPE_ABQ, 1.0));
    out.add(producersAtLeast("lanes throughput ≥ 1.0× tpe-abq (4 producers)", "4", LANES, TPE_ABQ,
        1.0));
    out.add(cpuAtMost("lanes CPU time per task ≤ 1.5× tpe-abq", "throughput", LANES, TPE_ABQ, 1.5));
    out.add(atLeast("lanes-virtual (cap 64) ≥ 1.0× r4j-semaphore-vthreads", "throughput-cap64",
        LANES_VIRTUAL, R4J_SEMAPHORE_VTHREADS, 1.0));
    out.add(atLeast("lanes-virtual (cap 64) ≥ 1.0× vthreads", "throughput-cap64", LANES_VIRTUAL,
        VTHREADS, 1.0));
    // #11: the baselines of the goals above must be known to within ± 10 % for a verdict to mean
    // something.
    out.add(baselineError("throughput", TPE_ABQ, null));
    out.add(baselineError("scaling-producers", TPE_ABQ, "4"));
    out.add(baselineError("throughput", MICROMETER, null));
    out.add(baselineError("throughput", R4J_THREADPOOL, null));
    out.add(baselineError("throughput-cap64", R4J_SEMAPHORE_VTHREADS, null));
    out.add(baselineError("throughput-cap64", VTHREADS, null));
    out.add(worstTpeLbqError());
    // Issue #27: the shared-latch workload (SharedLatchBenchmark), every ratio within its run.
    String one = "SharedLatchBenchmark.producers1";
    String four = "SharedLatchBenchmark.producers4";
    String async = "SharedLatchBenchmark.runAsync1";
    out.add(atLeast("shared-latch: lanes ≥ 1.0× tpe-abq (1 producer)", "shared-latch", one, LANES,
        TPE_ABQ, 1.0));
    out.add(atLeast("shared-latch: lanes through CompletableFuture.runAsync ≥ 1.0× tpe-abq through"
        + " runAsync", "shared-latch-async", async, LANES, TPE_ABQ, 1.0));
    out.add(atLeast("shared-latch: lanes ≥ 1.0× tpe-abq (4 producers)", "shared-latch-producers",
        four, LANES, TPE_ABQ, 1.0));
    out.add(atLeast("shared-latch: lanes ≥ 0.5× fjp (4 producers)", "shared-latch-producers", four,
        LANES, FJP, 0.5));
    out.add(atLeast("shared-latch: lanes ≥ 2.5× micrometer", "shared-latch", one, LANES, MICROMETER,
        2.5));
    out.add(atLeast("shared-latch: lanes ≥ 1.6× r4j-threadpool", "shared-latch", one, LANES,
        R4J_THREADPOOL, 1.6));
    out.add(atLeast("shared-latch: lanes-virtual (cap 2) ≥ 1.0× vthreads", "shared-latch", one,
        LANES_VIRTUAL, VTHREADS, 1.0));
    out.add(atLeast("shared-latch: lanes-virtual (cap 2) ≥ 0.8× tpe-abq", "shared-latch", one,
        LANES_VIRTUAL, TPE_ABQ, 0.8));
    out.add(methodBaselineError("shared-latch", one, TPE_ABQ));
    out.add(methodBaselineError("shared-latch-async", async, TPE_ABQ));
    out.add(methodBaselineError("shared-latch-producers", four, TPE_ABQ));
    out.add(methodBaselineError("shared-latch-producers", four, FJP));
    // Earlier goals (#6), kept for comparison.
    out.add(atLeast("lanes throughput ≥ 1.0× tpe-lbq", "throughput", LANES, TPE_LBQ, 1.0));
    out.add(atLeast("lanes throughput ≥ 2.5× micrometer", "throughput", LANES, MICROMETER, 2.5));
    out.add(
        atLeast("lanes throughput ≥ 1.6× r4j-threadpool", "throughput", LANES, R4J_THREADPOOL, 1.6));
    out.add(
        atLeast("lanes-cpu-every-task ≥ 0.25× tpe-lbq", "throughput", LANES_CPU_EVERY_TASK, TPE_LBQ,
            0.25));
    out.add(handoff());
    out.add(
        atLeast("lanes-virtual (cap 2) ≥ 25× spring-vthreads-limit", "throughput", LANES_VIRTUAL,
            SPRING_VTHREADS_LIMIT, 25));
    out.add(
        atLeast("lanes-virtual (cap 2) ≥ 1.0× vthreads", "throughput", LANES_VIRTUAL, VTHREADS, 1.0));
    out.add(flat(LANES));
    out.add(flat(LANES_VIRTUAL));
    out.add(memory());
    for (String lane : List.of(LANES, LANES_CPU_EVERY_TASK, LANES_VIRTUAL)) {
      out.add(atLeast("work-sized: " + lane + " within 5 % of tpe-lbq (≥ 0.95×)", "work", lane,
          TPE_LBQ, 0.95));
    }
    out.add(
        atLeast("health run: lanes with its defaults (deadlock detection, saturation tracking) "
            + "≥ 1.0× tpe-lbq", "health", LANES, TPE_LBQ, 1.0));
    // The agent's cost (#25): tpe-lbq in a JVM with the lanes agent ÷ in one without, same run.
    for (String[] w : new String[][] {
        {"agent-tiny", "tiny tasks", "0.7"},
        {"agent-work", "work-sized tasks", "0.97"},
        {"agent-tiny-distinct", "tiny tasks, one task object per task", "0.7"},
        {"agent-work-distinct", "work-sized tasks, one task object per task", "0.97"}}) {
      double target = Double.parseDouble(w[2]);
      String goal = "agent: instrumented tpe-lbq ≥ " + w[2] + "× bare, " + w[1];
      out.add(agentAllForks(goal + " (all forks)", w[0], target, Row.AGENT));
      out.add(agentFastForks(goal + " (fast forks' medians)", w[0], target, Row.AGENT));
      if (findArm(w[0], TPE_LBQ, Row.SAMPLED).isPresent()) {
        String sampled = "agent, sampled: tpe-lbq ≥ " + w[2] + "× bare, " + w[1];
        out.add(agentAllForks(sampled + " (all forks)", w[0], target, Row.SAMPLED));
        out.add(agentFastForks(sampled + " (fast forks' medians)", w[0], target, Row.SAMPLED));
      }
    }
    return out;
  }

  private Optional<Row> find(String runId, String benchmarkPrefix, String executor) {
    return rows.stream()
        .filter(r -> r.runId().equals(runId))
        .filter(r -> r.benchmark().startsWith(benchmarkPrefix))
        .filter(r -> r.executor().equals(executor))
        .findFirst();
  }

  private Optional<Row> find(String runId, String executor) {
    return find(runId, "", executor);
  }

  private Optional<Row> findArm(String runId, String executor, String arm) {
    return BenchReport.arm(rows.stream().filter(r -> r.runId().equals(runId)).toList(), executor,
        arm);
  }

  /** Instrumented ÷ bare tpe-lbq over all forks, with the error bars' range; CPU ratio in the note. */
  private Judgement agentAllForks(String goal, String runId, double target, String arm) {
    Optional<Row> bare = findArm(runId, TPE_LBQ, Row.BARE);
    Optional<Row> agent = findArm(runId, TPE_LBQ, arm);
    if (bare.isEmpty() || agent.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    Judgement j = ratioJudgement(goal, BenchReport.Ratio.of(agent.get(), bare.get()), target);
    double cpu = agent.get().cpuPerTask() / bare.get().cpuPerTask();
    return new Judgement(j.goal(), j.measured(), j.verdict(), j.note() + "; CPU per task "
        + (Double.isNaN(cpu) ? "not measured" : String.format(Locale.ROOT, "%.2f× (%.0f vs %.0f ns)",
            cpu, agent.get().cpuPerTask(), bare.get().cpuPerTask())));
  }

  /** The same on the medians of each arm's fast-mode forks ({@link AgentArms#modes}). */
  private Judgement agentFastForks(String goal, String runId, double target, String arm) {
    Optional<Row> bare = findArm(runId, TPE_LBQ, Row.BARE);
    Optional<Row> agent = findArm(runId, TPE_LBQ, arm);
    if (bare.isEmpty() || agent.isEmpty() || bare.get().forks().isEmpty()
        || agent.get().forks().isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    AgentArms.Modes b = AgentArms.modes(bare.get().forks());
    AgentArms.Modes a = AgentArms.modes(agent.get().forks());
    double q = a.medianScore() / b.medianScore();
    double cpu = a.medianCpu() / b.medianCpu();
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "%.2f× (%s vs %s)", q, BenchReport.big(a.medianScore()),
            BenchReport.big(b.medianScore())),
        q >= target ? Verdict.MET : Verdict.MISSED,
        String.format(Locale.ROOT, "fast forks: %d of %d instrumented, %d of %d bare; medians carry"
            + " no error bar; CPU per task %s", a.fast(), a.all(), b.fast(), b.all(),
            Double.isNaN(cpu) ? "not measured" : String.format(Locale.ROOT, "%.2f×", cpu)));
  }

  private Judgement atLeast(String goal, String runId, String a, String b, double target) {
    Optional<Row> ra = find(runId, a);
    Optional<Row> rb = find(runId, b);
    if (ra.isEmpty() || rb.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    return ratioJudgement(goal, BenchReport.Ratio.of(ra.get(), rb.get()), target);
  }

  /** As {@link #atLeast} on one benchmark method of a run with several. */
  private Judgement atLeast(String goal, String runId, String benchmark, String a, String b,
      double target) {
    Optional<Row> ra = find(runId, benchmark, a);
    Optional<Row> rb = find(runId, benchmark, b);
    if (ra.isEmpty() || rb.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    return ratioJudgement(goal, BenchReport.Ratio.of(ra.get(), rb.get()), target);
  }

  /** The error bar of {@code executor} in {@code benchmark} of {@code runId}. */
  private Judgement methodBaselineError(String runId, String benchmark, String executor) {
    String goal = "error bar of " + executor + " (" + runId + ", "
        + benchmark.substring(benchmark.indexOf('.') + 1) + ") ≤ ± 10 %";
    Optional<Row> r = find(runId, benchmark, executor);
    if (r.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    return errorJudgement(goal, r.get(), "JMH's 99.9 % confidence half-width ÷ score");
  }

  private static Judgement ratioJudgement(String goal, BenchReport.Ratio q, double target) {
    boolean met = q.point() >= target;
    String note =
        Double.isNaN(q.low()) || Double.isNaN(q.high())
            ? "no error bar (too few iterations)"
            : (q.low() >= target) == (q.high() >= target)
                ? "within error"
                : "error bars overlap the target";
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "%.2f× (range %s)", q.point(), q.range()),
        met ? Verdict.MET : Verdict.MISSED,
        note);
  }

  /** As {@link #atLeast} on the scaling-producers run with {@code producers} producers. */
  private Judgement producersAtLeast(String goal, String producers, String a, String b,
      double target) {
    Optional<Row> ra = findProducers(producers, a);
    Optional<Row> rb = findProducers(producers, b);
    if (ra.isEmpty() || rb.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    return ratioJudgement(goal, BenchReport.Ratio.of(ra.get(), rb.get()), target);
  }

  private Optional<Row> findProducers(String producers, String executor) {
    return rows.stream()
        .filter(r -> r.runId().equals("scaling-producers"))
        .filter(r -> producers.equals(r.params().get("producers")))
        .filter(r -> r.executor().equals(executor))
        .findFirst();
  }

  /** Largest error bar, as a share of the score, that a goal's baseline may have. */
  static final double BASELINE_ERROR_LIMIT = 0.10;

  /** The error bar of {@code executor}'s throughput in {@code runId} (at {@code producers}). */
  private Judgement baselineError(String runId, String executor, String producers) {
    String where = runId + (producers == null ? "" : ", " + producers + " producers");
    String goal = "error bar of " + executor + " (" + where + ") ≤ ± 10 %";
    Optional<Row> r =
        producers == null ? find(runId, executor) : findProducers(producers, executor);
    if (r.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    return errorJudgement(goal, r.get(), "JMH's 99.9 % confidence half-width ÷ score");
  }

  /** The widest error bar of {@code tpe-lbq}, the baseline of every ratio, over all throughput groups. */
  private Judgement worstTpeLbqError() {
    String goal = "error bar of tpe-lbq ≤ ± 10 % in every throughput table";
    Optional<Row> worst =
        rows.stream()
            .filter(BenchReport::isThroughput)
            .filter(r -> r.executor().equals(TPE_LBQ))
            .filter(r -> r.arm().isEmpty() || r.arm().equals(Row.BARE)) // an instrumented pool is no baseline
            .filter(r -> r.score() > 0 && !Double.isNaN(r.error()))
            .max(java.util.Comparator.comparingDouble(r -> r.error() / r.score()));
    if (worst.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    Row w = worst.get();
    String table = w.runId() + " " + w.benchmark()
        + (w.otherParams().isEmpty() ? "" : " (" + w.otherParams() + ")");
    return errorJudgement(goal, w, "widest: " + table);
  }

  private static Judgement errorJudgement(String goal, Row r, String note) {
    if (Double.isNaN(r.error()) || r.score() <= 0) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "no error bar (too few iterations)");
    }
    double share = r.error() / r.score();
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "± %.1f %% (%s ± %s)", 100 * share, BenchReport.big(r.score()),
            BenchReport.big(r.error())),
        share <= BASELINE_ERROR_LIMIT ? Verdict.MET : Verdict.MISSED,
        note);
  }

  /** CPU ns per task of {@code a} ÷ that of {@code b}, at most {@code target}. */
  private Judgement cpuAtMost(String goal, String runId, String a, String b, double target) {
    Optional<Row> ra = find(runId, a);
    Optional<Row> rb = find(runId, b);
    if (ra.isEmpty() || rb.isEmpty() || Double.isNaN(ra.get().cpuPerTask())
        || Double.isNaN(rb.get().cpuPerTask())) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "needs CpuTimeProfiler results");
    }
    double q = ra.get().cpuPerTask() / rb.get().cpuPerTask();
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "%.2f× (%.0f vs %.0f ns/task)", q, ra.get().cpuPerTask(),
            rb.get().cpuPerTask()),
        q <= target ? Verdict.MET : Verdict.MISSED,
        "process CPU time of the benchmark JVM ÷ tasks; mean over iterations");
  }

  private Judgement handoff() {
    String goal = "lanes handoff p50 ≤ 1.0× tpe-lbq p50";
    Optional<Row> lanes = find("handoff", LANES);
    Optional<Row> base = find("handoff", TPE_LBQ);
    if (lanes.isEmpty() || base.isEmpty()) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    double q = lanes.get().p50() / base.get().p50();
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "%.2f× (%.1f vs %.1f µs)", q, lanes.get().p50(),
            base.get().p50()),
        q <= 1.0 ? Verdict.MET : Verdict.MISSED,
        "percentiles carry no error bar");
  }

  /** Per-task cost = 1 / throughput; flat if the largest is within 20 % of the smallest. */
  private Judgement flat(String executor) {
    String goal = executor + " per-task cost flat within 20 % from 1,000 to 10,000,000 tasks";
    List<String> methods =
        List.of("ScalingBenchmark.tasks1k", "ScalingBenchmark.tasks100k", "ScalingBenchmark.tasks10m");
    List<Double> costs = new ArrayList<>();
    StringBuilder measured = new StringBuilder();
    for (String m : methods) {
      Optional<Row> r = find("scaling-tasks", m, executor);
      if (r.isEmpty()) {
        return new Judgement(goal, "–", Verdict.NOT_MEASURED, "needs all three batch sizes");
      }
      double ns = 1e9 / r.get().score();
      costs.add(ns);
      measured.append(measured.isEmpty() ? "" : " / ")
          .append(String.format(Locale.ROOT, "%.0f ns", ns));
    }
    double max = costs.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    double min = costs.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double spread = max / min;
    measured.append(String.format(Locale.ROOT, " (max/min %.2f)", spread));
    return new Judgement(
        goal, measured.toString(), spread <= 1.2 ? Verdict.MET : Verdict.MISSED, "1k / 100k / 10M");
  }

  private Judgement memory() {
    String goal = "memory per queued task in a virtual lane ≤ 56 bytes";
    Optional<Row> r = find("memory", LANES_VIRTUAL);
    if (r.isEmpty() || !r.get().secondary().containsKey("bytesPerQueuedTask")) {
      return new Judgement(goal, "–", Verdict.NOT_MEASURED, "");
    }
    double bytes = r.get().secondary().get("bytesPerQueuedTask");
    // Since issue #27 a lane's ring starts small and grows with what is queued, so its slots are
    // in the heap delta (before, they were allocated when the lane was built and had to be added).
    // A delta of a fraction of a byte either way is noise around none: print it as 0, not -0.
    double shown = Math.round(bytes) == 0 ? 0 : bytes;
    return new Judgement(
        goal,
        String.format(Locale.ROOT, "%.0f bytes", shown),
        bytes <= 56 ? Verdict.MET : Verdict.MISSED,
        "heap delta over 100,000 queued tasks, the ring's growth included (it doubles up to its"
            + " bound, a power of two, and keeps a segment until its entries are taken)");
  }

  static String markdown(List<Judgement> judgements) {
    StringBuilder out = new StringBuilder("| goal | measured | verdict | note |\n|---|---|---|---|\n");
    for (Judgement j : judgements) {
      out.append("| ").append(j.goal()).append(" | ").append(j.measured()).append(" | ")
          .append(j.verdict()).append(" | ").append(j.note()).append(" |\n");
    }
    return out.toString();
  }
}
