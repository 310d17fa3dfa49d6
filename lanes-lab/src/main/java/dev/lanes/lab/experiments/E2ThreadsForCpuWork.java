package dev.lanes.lab.experiments;

import dev.lanes.Lane;
import dev.lanes.TaskRecord;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.ContextSwitches;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.ThreadCounter;
import dev.lanes.lab.support.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * E2: the same batch of CPU-bound tasks on a CPU lane with threads = cores, 2 × cores and 4 ×
 * cores. Measures wall time, context switches and mean run time per task (a task's run time
 * grows when threads share cores, while its CPU time does not).
 */
public final class E2ThreadsForCpuWork implements Experiment {

  private static final int[] FACTORS = {1, 2, 4};

  @Override
  public String id() {
    return "E2";
  }

  @Override
  public String question() {
    return "How many threads for CPU-bound work?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) {
    ExperimentResult result = new ExperimentResult(this);
    int cores = ctx.cores();
    int tasks = ctx.scale(200, 1_000);
    int units = 3;
    result.setup(String.format(Locale.ROOT,
        "%d CPU-bound tasks (random access over a 256 KB array, ~%d ms each) submitted at once to"
            + " a lanes CPU lane with %d, %d and %d threads (1×, 2× and 4× the %d cores), one size"
            + " after the other, in 3 rounds after a warm-up; each figure is the median of its"
            + " rounds. Context switches: /proc, whole process.",
        tasks, units, cores, 2 * cores, 4 * cores, cores));
    TaskLog log = new TaskLog();
    ctx.status("E2 warm-up");
    warmUp(ctx, cores, units);
    int rounds = 3;
    List<List<Double>> msByFactor = new ArrayList<>();
    List<List<Double>> ctxByFactor = new ArrayList<>();
    for (int f : FACTORS) {
      msByFactor.add(new ArrayList<>());
      ctxByFactor.add(new ArrayList<>());
    }
    // Rounds alternate the three sizes, so a burst of load from elsewhere on the machine hits
    // all of them; each figure is the median over the rounds.
    for (int round = 1; round <= rounds; round++) {
      for (int fi = 0; fi < FACTORS.length; fi++) {
        int f = FACTORS[fi];
        ctx.status("E2 round " + round + ", " + f + "x cores");
        String name = "e2-cpu-" + f + "x-round-" + round;
        long ctx0 = ContextSwitches.total();
        long t0 = System.nanoTime();
        // The counting factory adds each thread's switches when it ends (close() ends them).
        try (Lane lane = log.follow(Lane.cpu(name).concurrency(f * cores).queueCapacity(tasks)
            .threadFactory(ThreadCounter.platform(name)).cpuTimeEveryTask()
            .daemon(true).build())) {
          List<CompletableFuture<Long>> futures = new ArrayList<>();
          for (int i = 0; i < tasks; i++) {
            long seed = ctx.seed() + i;
            futures.add(lane.submit("cpu", () -> Work.cpu(units, seed)));
          }
          CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
        }
        msByFactor.get(fi).add((System.nanoTime() - t0) / 1e6);
        long c1 = ContextSwitches.total();
        ctxByFactor.get(fi).add(ctx0 < 0 || c1 < 0 ? -1.0 : (double) (c1 - ctx0));
      }
    }
    List<Double> ms = new ArrayList<>();
    List<Double> ctxs = new ArrayList<>();
    List<Double> runMean = new ArrayList<>();
    List<Double> cpuMean = new ArrayList<>();
    for (int fi = 0; fi < FACTORS.length; fi++) {
      ms.add(Percentiles.of(msByFactor.get(fi), 50));
      ctxs.add(Percentiles.of(ctxByFactor.get(fi), 50));
      String prefix = "e2-cpu-" + FACTORS[fi] + "x-";
      List<TaskRecord> rs = log.records().stream().filter(r -> r.lane().startsWith(prefix)).toList();
      runMean.add(rs.stream().mapToLong(TaskRecord::runNanos).average().orElse(0) / 1e6);
      cpuMean.add(rs.stream().filter(r -> r.cpuNanos() >= 0).mapToLong(TaskRecord::cpuNanos)
          .average().orElse(-1e6) / 1e6);
    }
    boolean ctxAvailable = ContextSwitches.available();
    result.figure("tasks", (long) tasks);
    result.figure("rounds", (long) rounds);
    result.figure("cores", (long) cores);
    String[] tags = {"1x", "2x", "4x"};
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < FACTORS.length; i++) {
      result.figure("ms_" + tags[i], ms.get(i));
      result.figure("ctx_" + tags[i], ctxs.get(i).longValue());
      result.figure("run_mean_ms_" + tags[i], runMean.get(i));
      result.figure("cpu_mean_ms_" + tags[i], cpuMean.get(i));
      rows.add(List.of(tags[i] + " (" + FACTORS[i] * cores + " threads)", E1PoolOrThreadPerTask.fmt(ms.get(i)),
          ctxAvailable ? String.format(Locale.ROOT, "%,d", ctxs.get(i).longValue()) : "unavailable",
          String.format(Locale.ROOT, "%.2f", runMean.get(i)), String.format(Locale.ROOT, "%.2f", cpuMean.get(i))));
    }
    result.figure("context_switches_available", ctxAvailable);
    result.table(List.of("threads", "wall ms", "context switches", "mean run ms/task", "mean CPU ms/task"), rows);
    List<String> cats = List.of("1x cores", "2x cores", "4x cores");
    result.chart("E2-time", "Wall time for the same CPU-bound batch (lower is better).",
        Charts.bars("E2: wall time", "ms", cats, Charts.series("wall time", ms)));
    if (ctxAvailable) {
      result.chart("E2-ctx", "Context switches during each run (/proc, whole process).",
          Charts.bars("E2: context switches", "switches", cats, Charts.series("context switches", ctxs)));
    }
    result.chart("E2-run", "Mean run time vs mean CPU time per task: the gap is time spent waiting for a core.",
        Charts.bars("E2: per-task run and CPU time", "ms", cats,
            Charts.series("run time", runMean, "CPU time", cpuMean)));

    // The claim: more threads than cores do not make CPU-bound work faster (within 5 %), and
    // cost more context switches.
    double best = Math.min(ms.get(1), ms.get(2));
    boolean noFaster = ms.get(0) <= best * 1.05;
    boolean moreSwitches = !ctxAvailable || ctxs.get(2) > ctxs.get(0);
    String v = String.format(Locale.ROOT,
        "%d threads took %s ms, %d took %s ms, %d took %s ms. ",
        cores, E1PoolOrThreadPerTask.fmt(ms.get(0)), 2 * cores, E1PoolOrThreadPerTask.fmt(ms.get(1)),
        4 * cores, E1PoolOrThreadPerTask.fmt(ms.get(2)))
        + (noFaster ? "More threads than cores did not finish the work sooner"
            : "Here more threads were more than 5 % faster, so this run does not show the"
                + " cores-only rule (on a machine busy with other processes, more threads win a"
                + " larger share of the CPU, since the OS is fair per thread)")
        + (ctxAvailable
            ? String.format(Locale.ROOT, "; context switches went %,d → %,d → %,d", ctxs.get(0).longValue(),
                ctxs.get(1).longValue(), ctxs.get(2).longValue())
                + (moreSwitches ? "" : " (no increase at 4×, unlike the expectation)")
            : "; context switches are unavailable here (no /proc)")
        + String.format(Locale.ROOT,
            ", and each task's run time grew from %.1f to %.1f ms while its CPU time stayed about %.1f ms.",
            runMean.get(0), runMean.get(2), cpuMean.get(0));
    result.verdict(noFaster && moreSwitches, v);
    result.tasks(log.records());
    return result;
  }

  private static void warmUp(LabContext ctx, int cores, int units) {
    try (Lane lane = Lane.cpu("e2-warm-up").daemon(true).build()) {
      List<CompletableFuture<Long>> fs = new ArrayList<>();
      for (int i = 0; i < cores * 8; i++) {
        long seed = ctx.seed() - i;
        fs.add(lane.submit("warm-up", () -> Work.cpu(units, seed)));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
    }
  }
}
