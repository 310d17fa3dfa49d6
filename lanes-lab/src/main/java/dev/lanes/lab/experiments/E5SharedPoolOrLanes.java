package dev.lanes.lab.experiments;

import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.MixedWorkload;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * E5: a mixed workload (CPU, file IO, network IO in equal parts, interleaved) on one shared pool
 * versus a lane per kind with the same total number of threads. Compares per-kind queue wait and
 * run time, and total time.
 */
public final class E5SharedPoolOrLanes implements Experiment {

  @Override
  public String id() {
    return "E5";
  }

  @Override
  public String question() {
    return "One shared pool or a lane per kind?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) {
    ExperimentResult result = new ExperimentResult(this);
    int perKind = ctx.scale(60, 300);
    MixedWorkload.Sizes sizes = MixedWorkload.defaultSizes(ctx.cores());
    result.setup(String.format(Locale.ROOT,
        "%d tasks, a third each: CPU (random access over a 256 KB array, ~%d ms), file IO (write"
            + " %,d lines to a new temporary file, delete it) and network IO (GET on the local"
            + " server, answered after %d ms), interleaved and submitted at once. Shared: one"
            + " blocking lane of %d threads. Lanes: a CPU lane of %d, a file-IO lane of %d and a"
            + " network lane of %d threads (the same %d in total). Queue wait and run time come"
            + " from each task's record.",
        perKind * 3, MixedWorkload.CPU_UNITS, MixedWorkload.FILE_LINES, MixedWorkload.NET_DELAY_MS,
        sizes.total(), sizes.cpu(), sizes.file(), sizes.net(), sizes.total()));
    TaskLog log = new TaskLog();
    ctx.status("E5 shared pool");
    MixedWorkload.Run shared = MixedWorkload.onShared(ctx, "e5", sizes.total(), perKind, log);
    ctx.status("E5 lanes");
    MixedWorkload.Run lanes = MixedWorkload.onLanes(ctx, "e5", sizes, perKind, log);

    double sharedIo = Percentiles.of(MixedWorkload.waits(shared.records(), "file-io", "net-io"), 99);
    double lanesIo = Percentiles.of(MixedWorkload.waits(lanes.records(), "file-io", "net-io"), 99);
    result.figure("tasks", (long) perKind * 3);
    result.figure("shared_threads", (long) sizes.total());
    result.figure("shared_io_wait_p99_ms", sharedIo);
    result.figure("lanes_io_wait_p99_ms", lanesIo);
    result.figure("shared_total_ms", shared.totalMs());
    result.figure("lanes_total_ms", lanes.totalMs());
    List<List<String>> rows = new ArrayList<>();
    List<Double> sharedWaitP99 = new ArrayList<>();
    List<Double> lanesWaitP99 = new ArrayList<>();
    List<Double> sharedRunP50 = new ArrayList<>();
    List<Double> lanesRunP50 = new ArrayList<>();
    for (String kind : MixedWorkload.KINDS) {
      String n = kind.replace('-', '_');
      for (String variant : List.of("shared", "lanes")) {
        MixedWorkload.Run r = variant.equals("shared") ? shared : lanes;
        List<Double> w = MixedWorkload.waits(r.records(), kind);
        List<Double> run = MixedWorkload.runs(r.records(), kind);
        double w50 = Percentiles.of(w, 50);
        double w99 = Percentiles.of(w, 99);
        double r50 = Percentiles.of(run, 50);
        double r99 = Percentiles.of(run, 99);
        result.figure(variant + "_" + n + "_wait_p50_ms", w50);
        result.figure(variant + "_" + n + "_wait_p99_ms", w99);
        result.figure(variant + "_" + n + "_run_p50_ms", r50);
        result.figure(variant + "_" + n + "_run_p99_ms", r99);
        (variant.equals("shared") ? sharedWaitP99 : lanesWaitP99).add(w99);
        (variant.equals("shared") ? sharedRunP50 : lanesRunP50).add(r50);
        rows.add(List.of(kind, variant, f(w50), f(w99), f(r50), f(r99)));
      }
    }
    result.table(List.of("kind", "where", "queue wait p50 ms", "queue wait p99 ms",
        "run p50 ms", "run p99 ms"), rows);
    result.chart("E5-wait", "p99 queue wait per kind of task: shared pool vs a lane per kind.",
        Charts.barsLog("E5: queue wait p99", "ms", MixedWorkload.KINDS,
            Charts.series("shared pool", sharedWaitP99, "lane per kind", lanesWaitP99)));
    result.chart("E5-run", "Median run time per kind of task (CPU tasks run slower when they share cores with more threads).",
        Charts.barsLog("E5: run time p50", "ms", MixedWorkload.KINDS,
            Charts.series("shared pool", sharedRunP50, "lane per kind", lanesRunP50)));

    boolean holds = lanesIo <= 0.5 * sharedIo;
    String v = String.format(Locale.ROOT,
        "IO tasks' p99 queue wait was %s ms on the shared pool and %s ms with a lane per kind",
        f(sharedIo), f(lanesIo))
        + (holds ? String.format(Locale.ROOT, " (%.1f× shorter): ", sharedIo / Math.max(lanesIo, 0.001))
            + "behind their own kind only, IO tasks no longer wait for CPU work."
            : ": separate lanes did not at least halve the IO wait on this run.")
        + String.format(Locale.ROOT, " Total time: shared %s ms, lanes %s ms. CPU tasks' median run"
            + " time: shared %s ms, own lane %s ms.", f(shared.totalMs()), f(lanes.totalMs()),
            f(sharedRunP50.get(0)), f(lanesRunP50.get(0)))
        + String.format(Locale.ROOT, " CPU tasks' p99 queue wait: shared %s ms, own lane %s ms%s.",
            f(sharedWaitP99.get(0)), f(lanesWaitP99.get(0)),
            lanesWaitP99.get(0) > 1.1 * sharedWaitP99.get(0)
                ? String.format(Locale.ROOT, " — worse in their own lane, which has %d threads (= cores) for all"
                    + " of them, where the shared pool ran them on up to %d", sizes.cpu(), sizes.total())
                : "");
    if (lanes.totalMs() > 1.1 * shared.totalMs()) {
      v += String.format(Locale.ROOT, " The lanes took longer in total: their CPU work had only %d"
          + " threads (= cores) against the shared pool's %d, and on a machine busy with other"
          + " processes fewer threads get a smaller share of the CPU.", sizes.cpu(), sizes.total());
    }
    result.verdict(holds, v);
    List<dev.lanes.TaskRecord> all = new ArrayList<>(shared.records());
    all.addAll(lanes.records());
    result.tasks(all);
    return result;
  }

  static String f(double ms) {
    return E1PoolOrThreadPerTask.fmt(ms);
  }
}
