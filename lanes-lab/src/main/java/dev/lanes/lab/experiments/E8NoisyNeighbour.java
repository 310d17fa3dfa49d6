package dev.lanes.lab.experiments;

import dev.lanes.TaskRecord;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.NoisyNeighbour;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * E8: slow requests, then fast ones, on an HTTP server whose handlers share one pool, then on a
 * lane per endpoint. For the fast requests: the latency the client saw, the server's run-time
 * figure (what a typical server metric reports), and the queue wait that explains the gap.
 */
public final class E8NoisyNeighbour implements Experiment {

  @Override
  public String id() {
    return "E8";
  }

  @Override
  public String question() {
    return "Noisy neighbour: do slow requests delay fast ones on a shared pool, and does the server's own run-time metric show it?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) {
    ExperimentResult result = new ExperimentResult(this);
    int slowCount = ctx.scale(60, 160);
    int fastCount = ctx.scale(60, 200);
    NoisyNeighbour.Sizes sizes = NoisyNeighbour.defaultSizes();
    result.setup(String.format(Locale.ROOT,
        "A JDK HttpServer on 127.0.0.1 hands each request to a lane. Load: %d slow requests"
            + " (answered after %d ms) at once, then %d fast requests (answered at once), one every"
            + " %d ms. Shared: both endpoints on one lane of %d threads. Lanes: /slow on a lane of"
            + " %d threads, /fast on a lane of %d (the same %d in total). Client latency: measured"
            + " by java.net.http.HttpClient; server run time and queue wait: the lanes' task records.",
        slowCount, NoisyNeighbour.SLOW_MS, fastCount, NoisyNeighbour.FAST_GAP_MS,
        NoisyNeighbour.SHARED_THREADS, sizes.slow(), sizes.fast(), sizes.slow() + sizes.fast()));
    TaskLog log = new TaskLog();
    ctx.status("E8 shared pool");
    NoisyNeighbour.Run shared = NoisyNeighbour.shared(ctx, "e8", slowCount, fastCount, log);
    ctx.status("E8 lanes");
    NoisyNeighbour.Run lanes = NoisyNeighbour.lanes(ctx, "e8", sizes, slowCount, fastCount, log);

    double sClient = Percentiles.of(shared.fastClientMs(), 99);
    double sRun = Percentiles.of(NoisyNeighbour.serverMs(shared.records(), "fast", false), 99);
    double sWait = Percentiles.of(NoisyNeighbour.serverMs(shared.records(), "fast", true), 99);
    double lClient = Percentiles.of(lanes.fastClientMs(), 99);
    double lRun = Percentiles.of(NoisyNeighbour.serverMs(lanes.records(), "fast", false), 99);
    double lWait = Percentiles.of(NoisyNeighbour.serverMs(lanes.records(), "fast", true), 99);
    double sSlow = Percentiles.of(shared.slowClientMs(), 99);
    double lSlow = Percentiles.of(lanes.slowClientMs(), 99);
    result.figure("shared_fast_client_p99_ms", sClient);
    result.figure("shared_fast_server_run_p99_ms", sRun);
    result.figure("shared_fast_queue_wait_p99_ms", sWait);
    result.figure("lanes_fast_client_p99_ms", lClient);
    result.figure("lanes_fast_server_run_p99_ms", lRun);
    result.figure("lanes_fast_queue_wait_p99_ms", lWait);
    result.figure("shared_fast_client_p50_ms", Percentiles.of(shared.fastClientMs(), 50));
    result.figure("lanes_fast_client_p50_ms", Percentiles.of(lanes.fastClientMs(), 50));
    result.figure("shared_slow_client_p99_ms", sSlow);
    result.figure("lanes_slow_client_p99_ms", lSlow);
    result.figure("slow_requests", (long) slowCount);
    result.figure("fast_requests", (long) fastCount);
    result.table(List.of("fast requests", "client p99 ms", "server run p99 ms", "queue wait p99 ms",
        "slow requests' client p99 ms"), List.of(
        List.of("shared pool", f(sClient), f(sRun), f(sWait), f(sSlow)),
        List.of("lane per endpoint", f(lClient), f(lRun), f(lWait), f(lSlow))));
    result.chart("E8-fast", "Fast requests, p99: what the client saw, what the server's run-time metric says, and the queue wait between them.",
        Charts.barsLog("E8: fast requests, p99", "ms", List.of("client latency", "server run time", "queue wait"),
            Charts.series("shared pool", List.of(sClient, sRun, sWait),
                "lane per endpoint", List.of(lClient, lRun, lWait))));
    result.chart("E8-timeline", "Each fast request's client latency, in the order sent.",
        Charts.lines("E8: fast request latency over the run", "request #", "client latency (ms)",
            twoSeries(
                "shared pool", series(shared.fastClientMs()),
                "lane per endpoint", series(lanes.fastClientMs()))));

    boolean metricsLie = sClient > 10 * Math.max(sRun, 0.1);
    boolean waitExplains = sWait >= 0.5 * sClient;
    boolean lanesHelp = lClient < 0.5 * sClient;
    boolean holds = metricsLie && waitExplains && lanesHelp;
    String v = String.format(Locale.ROOT,
        "On the shared pool the fast requests' p99 was %s ms at the client while the server's run"
            + " time said %s ms; their queue wait, %s ms, %s. With a lane per endpoint the fast"
            + " requests' client p99 was %s ms (queue wait %s ms)%s. The slow requests' p99 went"
            + " %s → %s ms.",
        f(sClient), f(sRun), f(sWait),
        waitExplains ? "explains the difference" : "does not explain all of it on this run",
        f(lClient), f(lWait),
        lanesHelp ? String.format(Locale.ROOT, ", %.0f× better", sClient / Math.max(lClient, 0.01))
            : ", not at least twice better on this run",
        f(sSlow), f(lSlow));
    if (!metricsLie) {
      v += " The server's run time was not a tenth of the client's latency here, so the 'lying"
          + " metric' did not show.";
    }
    result.verdict(holds, v);
    List<TaskRecord> all = new ArrayList<>(shared.records());
    all.addAll(lanes.records());
    result.tasks(all);
    return result;
  }

  private static double[][] series(List<Double> ys) {
    double[] x = new double[ys.size()];
    double[] y = new double[ys.size()];
    for (int i = 0; i < ys.size(); i++) {
      x[i] = i + 1;
      y[i] = ys.get(i);
    }
    return new double[][] {x, y};
  }

  private static java.util.Map<String, double[][]> twoSeries(String a, double[][] av, String b, double[][] bv) {
    java.util.Map<String, double[][]> m = new java.util.LinkedHashMap<>();
    m.put(a, av);
    m.put(b, bv);
    return m;
  }

  static String f(double ms) {
    return E1PoolOrThreadPerTask.fmt(ms);
  }
}
