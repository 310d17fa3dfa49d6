package dev.lanes.lab.experiments;

import dev.lanes.advisor.SizingAdvice;
import dev.lanes.TaskRecord;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.MixedWorkload;
import dev.lanes.lab.support.NoisyNeighbour;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * E9: runs the lanes of E5 (mixed workload) and E8 (noisy neighbour) at their default sizes, asks
 * the sizing advisor for each lane's size from the measured figures, re-runs both with the
 * recommended sizes, and compares before and after.
 */
public final class E9SizingAdvice implements Experiment {

  @Override
  public String id() {
    return "E9";
  }

  @Override
  public String question() {
    return "Can the numbers size the lanes?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) {
    ExperimentResult result = new ExperimentResult(this);
    int perKind = ctx.scale(60, 300);
    int slowCount = ctx.scale(60, 160);
    int fastCount = ctx.scale(60, 200);
    MixedWorkload.Sizes mixedBefore = MixedWorkload.defaultSizes(ctx.cores());
    NoisyNeighbour.Sizes serverBefore = NoisyNeighbour.defaultSizes();
    result.setup(String.format(Locale.ROOT,
        "The lanes of E5 (concurrency: cpu %d, file-io %d, net-io %d; %d tasks) and of E8 (slow %d,"
            + " fast %d; %d slow + %d fast requests) run at those sizes with CPU timing on every"
            + " task; lanes' SizingAdvisor (target utilisation %.1f, acceptable wait %d ms, at least"
            + " %d samples, a concurrency of at most %d) recommends a concurrency per lane from the measured wait,"
            + " run and CPU figures; then both run again at the recommended sizes.",
        mixedBefore.cpu(), mixedBefore.file(), mixedBefore.net(), perKind * 3, serverBefore.slow(),
        serverBefore.fast(), slowCount, fastCount, MixedWorkload.ADVISOR.targetUtilisation(),
        MixedWorkload.ADVISOR.acceptableWait().toMillis(), MixedWorkload.ADVISOR.minSamples(),
        MixedWorkload.ADVISOR.maxConcurrency()));
    TaskLog log = new TaskLog();
    ctx.status("E9 mixed, default sizes");
    MixedWorkload.Run m0 = MixedWorkload.onLanes(ctx, "e9-before", mixedBefore, perKind, log);
    MixedWorkload.Sizes mixedAfter = new MixedWorkload.Sizes(
        recommended(m0.advice(), "e9-before-cpu"), recommended(m0.advice(), "e9-before-file-io"),
        recommended(m0.advice(), "e9-before-net-io"));
    ctx.status("E9 mixed, advised sizes");
    MixedWorkload.Run m1 = MixedWorkload.onLanes(ctx, "e9-after", mixedAfter, perKind, log);

    ctx.status("E9 server, default sizes");
    NoisyNeighbour.Run s0 = NoisyNeighbour.lanes(ctx, "e9-before", serverBefore, slowCount, fastCount, log);
    NoisyNeighbour.Sizes serverAfter = new NoisyNeighbour.Sizes(
        recommended(s0.advice(), "e9-before-slow"), recommended(s0.advice(), "e9-before-fast"));
    ctx.status("E9 server, advised sizes");
    NoisyNeighbour.Run s1 = NoisyNeighbour.lanes(ctx, "e9-after", serverAfter, slowCount, fastCount, log);

    boolean allAdvised = m0.advice().values().stream().allMatch(SizingAdvice::enoughData)
        && s0.advice().values().stream().allMatch(SizingAdvice::enoughData);
    double mixedIo0 = Percentiles.of(MixedWorkload.waits(m0.records(), "file-io", "net-io"), 99);
    double mixedIo1 = Percentiles.of(MixedWorkload.waits(m1.records(), "file-io", "net-io"), 99);
    double slow0 = Percentiles.of(s0.slowClientMs(), 99);
    double slow1 = Percentiles.of(s1.slowClientMs(), 99);
    double fast0 = Percentiles.of(s0.fastClientMs(), 99);
    double fast1 = Percentiles.of(s1.fastClientMs(), 99);
    result.figure("advice_for_every_lane", allAdvised);
    result.figure("e5_cpu_concurrency_before", (long) mixedBefore.cpu());
    result.figure("e5_cpu_concurrency_after", (long) mixedAfter.cpu());
    result.figure("e5_file_concurrency_before", (long) mixedBefore.file());
    result.figure("e5_file_concurrency_after", (long) mixedAfter.file());
    result.figure("e5_net_concurrency_before", (long) mixedBefore.net());
    result.figure("e5_net_concurrency_after", (long) mixedAfter.net());
    result.figure("e5_total_ms_before", m0.totalMs());
    result.figure("e5_total_ms_after", m1.totalMs());
    result.figure("e5_io_wait_p99_ms_before", mixedIo0);
    result.figure("e5_io_wait_p99_ms_after", mixedIo1);
    result.figure("e8_slow_concurrency_before", (long) serverBefore.slow());
    result.figure("e8_slow_concurrency_after", (long) serverAfter.slow());
    result.figure("e8_fast_concurrency_before", (long) serverBefore.fast());
    result.figure("e8_fast_concurrency_after", (long) serverAfter.fast());
    result.figure("e8_slow_client_p99_ms_before", slow0);
    result.figure("e8_slow_client_p99_ms_after", slow1);
    result.figure("e8_fast_client_p99_ms_before", fast0);
    result.figure("e8_fast_client_p99_ms_after", fast1);

    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, SizingAdvice> e : m0.advice().entrySet()) {
      rows.add(adviceRow(e.getValue()));
    }
    for (Map.Entry<String, SizingAdvice> e : s0.advice().entrySet()) {
      rows.add(adviceRow(e.getValue()));
    }
    result.table(List.of("lane", "concurrency now", "recommended", "measured W/C", "utilisation", "enough data", "advisor's reasoning"), rows);
    result.chart("E9-before-after", "Key latency before and after sizing the lanes as advised (lower is better).",
        Charts.barsLog("E9: before and after the advice", "ms",
            List.of("E5 total time", "E5 IO wait p99", "E8 slow p99", "E8 fast p99"),
            Charts.series("default sizes", List.of(m0.totalMs(), mixedIo0, slow0, fast0),
                "advised sizes", List.of(m1.totalMs(), mixedIo1, slow1, fast1))));

    // The claim: the advisor can size every lane from its figures, and the advised sizes make the
    // figure of the lanes it resized (E5: the IO lanes' wait; E8: the slow endpoint's latency)
    // better by 10 % or more on at least one, while no figure this verdict names gets worse (by
    // more than 10 % and more than NOISE_MS: p99s of a few ms move that much between runs here).
    String[] names = {"E5 total time", "E5 IO wait p99", "E8 slow requests' p99", "E8 fast requests' p99"};
    double[][] cited = {{m0.totalMs(), m1.totalMs()}, {mixedIo0, mixedIo1}, {slow0, slow1}, {fast0, fast1}};
    boolean someBetter = mixedIo1 <= 0.90 * mixedIo0 || slow1 <= 0.90 * slow0;
    List<String> worse = new ArrayList<>();
    List<String> slightlyWorse = new ArrayList<>();
    for (int i = 0; i < cited.length; i++) {
      double before = cited[i][0];
      double after = cited[i][1];
      String change = String.format(Locale.ROOT, "%s (%s → %s ms)", names[i], f(before), f(after));
      if (after > 1.10 * before && after - before > NOISE_MS) {
        worse.add(change);
      } else if (after > before) {
        slightlyWorse.add(change);
      }
    }
    result.figure("figures_worse_after", (long) worse.size());
    boolean holds = allAdvised && someBetter && worse.isEmpty();
    String v = String.format(Locale.ROOT,
        "The advisor recommended a concurrency of cpu %s, file-io %s, net-io %s for E5, and slow %s, fast %s"
            + " for E8. E5 total time went %s → %s ms (IO wait p99 %s → %s ms); E8 slow requests' p99"
            + " %s → %s ms, fast requests' p99 %s → %s ms. ",
        change(mixedBefore.cpu(), mixedAfter.cpu()), change(mixedBefore.file(), mixedAfter.file()),
        change(mixedBefore.net(), mixedAfter.net()), change(serverBefore.slow(), serverAfter.slow()),
        change(serverBefore.fast(), serverAfter.fast()),
        f(m0.totalMs()), f(m1.totalMs()), f(mixedIo0), f(mixedIo1), f(slow0), f(slow1), f(fast0), f(fast1));
    if (capped(mixedAfter.net()) || capped(serverAfter.slow()) || capped(mixedAfter.file())) {
      v += String.format(Locale.ROOT, "A recommendation marked \"capped\" is the advisor's upper bound"
          + " (maxConcurrency %d): for lanes that mostly wait, cores × (1 + W/C) asked for more; the table"
          + " gives each lane's reasoning. ", MixedWorkload.ADVISOR.maxConcurrency());
    }
    if (!allAdvised) {
      v += "Some lanes had too few samples for a recommendation (see the table). ";
    }
    if (holds) {
      v += "Sized from their own measurements, the resized lanes waited less, and no figure named here"
          + " got worse beyond run-to-run noise (10 % and " + f(NOISE_MS) + " ms)"
          + (slightlyWorse.isEmpty() ? "." : "; within that noise: " + String.join("; ", slightlyWorse) + ".");
    } else if (!worse.isEmpty()) {
      v += "Worse after the advice (more than 10 % and " + f(NOISE_MS) + " ms): " + String.join("; ", worse) + ".";
    } else if (!someBetter) {
      v += "The advised sizes were not clearly better (10 % or more) on the resized lanes' figures on this run.";
    }
    result.verdict(holds, v);
    List<TaskRecord> all = new ArrayList<>(m0.records());
    all.addAll(m1.records());
    all.addAll(s0.records());
    all.addAll(s1.records());
    result.tasks(all);
    return result;
  }

  /** A change of p99 smaller than this is run-to-run noise here, whatever its ratio. */
  static final double NOISE_MS = 5;

  private static boolean capped(int concurrency) {
    return concurrency >= MixedWorkload.ADVISOR.maxConcurrency();
  }

  private static String change(int before, int after) {
    return before + " → " + after + (capped(after) ? " (capped)" : "");
  }

  private static int recommended(Map<String, SizingAdvice> advice, String lane) {
    SizingAdvice a = advice.get(lane);
    return a.enoughData() ? a.recommendedConcurrency() : a.currentConcurrency();
  }

  private static List<String> adviceRow(SizingAdvice a) {
    String reasoning = a.reasoning() + (a.warnings().isEmpty() ? "" : " Warnings: " + String.join("; ", a.warnings()));
    return List.of(a.lane(), Integer.toString(a.currentConcurrency()), Integer.toString(a.recommendedConcurrency()),
        Double.isNaN(a.blockingRatio()) ? "–" : String.format(Locale.ROOT, "%.2f", a.blockingRatio()),
        String.format(Locale.ROOT, "%.2f", a.utilisation()), a.enoughData() ? "yes" : "no", reasoning);
  }

  static String f(double ms) {
    return E1PoolOrThreadPerTask.fmt(ms);
  }
}
