package dev.lanes.lab.experiments;

import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.redis.harness.PermitLatency;
import dev.lanes.redis.harness.RedisServerProcess;
import dev.lanes.redis.harness.SharedCapScenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.XYChart;

/**
 * E13: a lane cap shared on Redis by 4 JVMs (separate processes), cap 20, demand 3 × the cap,
 * against a local slow server that counts the requests in flight. Runs lanes-redis's scenario
 * ({@link SharedCapScenario}: a private redis-server, the workers, one SIGKILL, a Redis outage) and
 * measures the permit overhead on its own ({@link PermitLatency}), then judges every goal row of
 * issue 15 from those figures. Without a usable {@code redis-server} it reports "not run" and why.
 */
public final class E13SharedCapAcrossJvms implements Experiment {

  static final int CAP = 20;
  static final int INSTANCES = 4;
  static final long TASK_MS = 100;
  static final long LEASE_MS = 2_000;

  private final java.util.function.Supplier<RedisServerProcess> redisServer;

  public E13SharedCapAcrossJvms() {
    this(RedisServerProcess::start);
  }

  /** With another way to start Redis (tests: one that fails, to check the "not run" report). */
  E13SharedCapAcrossJvms(java.util.function.Supplier<RedisServerProcess> redisServer) {
    this.redisServer = redisServer;
  }

  @Override
  public String id() {
    return "E13";
  }

  @Override
  public String question() {
    return "Does a lane cap shared on Redis hold across 4 JVMs at 3× demand, through a SIGKILL and a Redis outage?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    long steadySeconds = ctx.scale(2, 5);
    long outageSeconds = ctx.scale(3, 10);
    int latencyIterations = ctx.scale(2_500, 12_500);
    result.setup(String.format(Locale.ROOT,
        "%d JVMs (separate processes), each a virtual lane of cap %d with a SharedCap of %d on a"
            + " private redis-server on 127.0.0.1; each JVM keeps %d tasks submitted (demand %d, 3 ×"
            + " the cap), every task one HTTP call that the local slow server holds for %d ms and"
            + " counts while in flight (exactly, and sampled every 10 ms). Lease %d ms, fault policy"
            + " fail-fast. Phases: 1 s warm-up, %d s steady (use of the cap, shares), SIGKILL of one"
            + " JVM while it holds permits, %d s steady, Redis stopped for %d s and started again"
            + " empty, %d s steady, stop.%s Beforehand, on a separate redis-server: %,d acquire +"
            + " release pairs by one caller, awaited in turn (the first fifth not counted).",
        INSTANCES, CAP, CAP, 3 * CAP / INSTANCES, 3 * CAP, TASK_MS, LEASE_MS, steadySeconds,
        Math.max(1, steadySeconds / 2), outageSeconds, Math.max(1, steadySeconds / 2),
        ctx.quick() ? " Quick run: shorter phases and a " + outageSeconds + " s outage (the full run"
            + " stops Redis for 10 s)." : "", latencyIterations));

    // 0. Redis: without a usable server there is nothing to measure; say so in one line.
    Histogram latency;
    String redisVersion;
    ctx.status("E13 starting redis-server");
    RedisServerProcess probe;
    try {
      probe = redisServer.get();
    } catch (RuntimeException e) {
      return notRun(result, e);
    }
    try (RedisServerProcess redis = probe) {
      redisVersion = redis.version();
      ctx.status("E13 permit acquire + release on loopback");
      latency = PermitLatency.permits(redis.uri(), latencyIterations);
    }

    ctx.status("E13 4 JVMs sharing a cap of " + CAP + " (kill, outage)");
    Path dir = ctx.tempDir().resolve("E13");
    Map<String, Object> s = SharedCapScenario.run(dir, CAP, INSTANCES, TASK_MS, LEASE_MS,
        steadySeconds, outageSeconds, "fail-fast");

    long overshoot = num(s, "overshoot_max");
    double use = dbl(s, "use_mean");
    double permitsInUse = dbl(s, "permits_in_use_mean");
    double p50 = latency.getValueAtPercentile(50) / 1e6;
    double p99 = latency.getValueAtPercentile(99) / 1e6;
    long killBack = num(s, "kill_permits_back_ms");
    long killTakenUp = num(s, "kill_taken_up_ms");
    long recovery = num(s, "outage_recovery_ms");
    long flowing = num(s, "outage_flowing_ms");
    long accepted = num(s, "tasks_accepted");
    long ended = num(s, "tasks_ended");
    @SuppressWarnings("unchecked")
    Map<String, Object> shares = (Map<String, Object>) s.get("shares");

    result.figure("ran", true);
    result.figure("cap", (long) CAP);
    result.figure("instances", (long) INSTANCES);
    result.figure("demand", num(s, "demand"));
    result.figure("lease_ms", LEASE_MS);
    result.figure("outage_s", outageSeconds);
    result.figure("overshoot_max", overshoot);
    result.figure("peak_in_flight", num(s, "peak_in_flight"));
    result.figure("use_mean", use);
    result.figure("permits_in_use_mean", permitsInUse);
    result.figure("served_per_s", dbl(s, "served_per_s"));
    result.figure("permit_p50_ms", p50);
    result.figure("permit_p99_ms", p99);
    result.figure("permit_samples", latency.getTotalCount());
    result.figure("kill_permits_held", num(s, "kill_permits_held"));
    result.figure("kill_permits_back_ms", killBack);
    result.figure("kill_taken_up_ms", killTakenUp);
    result.figure("outage_recovery_ms", recovery);
    result.figure("outage_flowing_ms", flowing);
    result.figure("tasks_accepted", accepted);
    result.figure("tasks_ended", ended);
    double minShare = 1;
    double maxShare = 0;
    for (Map.Entry<String, Object> e : shares.entrySet()) {
      double v = ((Number) e.getValue()).doubleValue();
      result.figure("share_" + e.getKey(), v);
      minShare = Math.min(minShare, v);
      maxShare = Math.max(maxShare, v);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> refused = (Map<String, Object>) s.get("refused");
    long refusedTotal = 0;
    for (Map.Entry<String, Object> e : refused.entrySet()) {
      long v = ((Number) e.getValue()).longValue();
      result.figure("refused_" + e.getKey().toLowerCase(Locale.ROOT), v);
      refusedTotal += v;
    }

    // The goals of issue 15, each judged from this run.
    double fair = 0.25;
    List<Goal> goals = List.of(
        new Goal("requests in flight at the downstream, sampled", "never above the cap (0 overshoot)",
            "overshoot " + overshoot + " (peak " + num(s, "peak_in_flight") + " of " + CAP + ")",
            overshoot == 0, "the peak is counted exactly on every arrival at the server"),
        new Goal("use of the cap when demand exceeds it", "≥ 90 % of the cap on average",
            pct(use) + " in flight at the downstream; permits in use at Redis " + pct(permitsInUse),
            use >= 0.9, "a permit is also held while the task's HTTP call is set up and its answer"
                + " read, outside the downstream's count (" + pct(permitsInUse - use) + " here)"),
        new Goal("permit acquire + release overhead on loopback", "p50 ≤ 1 ms, p99 ≤ 5 ms",
            String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms (n = %,d)", p50, p99,
                latency.getTotalCount()),
            p50 <= 1 && p99 <= 5, "one caller; the benchmark (BENCHMARKS.md) has error bars"),
        new Goal("one of the 4 JVMs killed with SIGKILL while holding permits",
            "its permits back within 2 × lease (" + 2 * LEASE_MS + " ms); others take them up",
            num(s, "kill_permits_held") + " permits back in " + ms(killBack) + "; the others filled"
                + " the cap " + ms(killTakenUp) + " after the kill",
            killBack >= 0 && killBack <= 2 * LEASE_MS && killTakenUp >= 0,
            killBack < 0 ? "the permits did not come back within 10 × lease"
                : killTakenUp < 0 ? "the others did not fill the cap within 10 × lease"
                : "the lease lapsed on Redis's clock and the next call handed the permits on"),
        new Goal("Redis stopped for " + outageSeconds + " s, then started (empty)",
            "per the policy (fail-fast), no hang, no task lost, recovery within 2 s",
            String.format(Locale.ROOT, "every JVM healthy again %s and requests flowing %s after"
                + " redis-server was ready; %,d tasks accepted, %,d ended, %,d refused (fail-fast)",
                ms(recovery), ms(flowing), accepted, ended, refusedTotal),
            accepted == ended && flowing >= 0 && flowing <= 2_000 && recovery <= 2_000,
            accepted != ended ? (accepted - ended) + " accepted tasks never ended"
                : "recovery counts until requests flow at the downstream: health returns at the"
                    + " first probe, grants after a settle time (2 probes + a call timeout)"),
        new Goal("fairness across instances at equal demand", "each share within ± 20 % of 1/4",
            String.format(Locale.ROOT, "shares %.3f – %.3f %s", minShare, maxShare, shares),
            minShare >= fair * 0.8 && maxShare <= fair * 1.2, "shares of the requests served in"
                + " the first steady phase"));
    List<List<String>> rows = new ArrayList<>();
    boolean holds = true;
    List<String> missed = new ArrayList<>();
    for (Goal g : goals) {
      rows.add(List.of(g.measure, g.goal, g.measured, g.met ? "met" : "MISSED", g.note));
      holds &= g.met;
      if (!g.met) {
        missed.add(g.measure + " (" + g.measured + ")");
      }
    }
    result.table(List.of("measure (issue 15)", "goal", "measured", "verdict", "why / how"), rows);

    chart(result, dir, outageSeconds);
    result.chart("E13-shares", "Each JVM's part of the requests served in the first steady phase"
            + " (equal demand; the goal is 1/4 ± 20 %).",
        Charts.bars("E13: share of the cap per JVM", "share of requests served",
            new ArrayList<>(shares.keySet()), Charts.series("share",
                shares.values().stream().map(v -> ((Number) v).doubleValue()).toList())));

    String v = String.format(Locale.ROOT,
        "%d JVMs sharing a cap of %d on Redis %s: at most %d requests in flight at the downstream"
            + " (overshoot %d), %s of the cap in use on average (permits at Redis %s), shares %.3f–%.3f;"
            + " a permit costs p50 %.2f ms, p99 %.2f ms; the killed JVM's %d permits came back in %s;"
            + " after a %d s Redis outage requests flowed again %s after Redis returned, with %,d of"
            + " %,d accepted tasks ended. ",
        INSTANCES, CAP, redisVersion.replaceAll(" \\(.*", ""), num(s, "peak_in_flight"), overshoot,
        pct(use), pct(permitsInUse), minShare, maxShare, p50, p99, num(s, "kill_permits_held"),
        ms(killBack), outageSeconds, ms(flowing), ended, accepted);
    v += holds ? "Every goal of issue 15 was met in this run."
        : "Missed here: " + String.join("; ", missed) + ".";
    result.verdict(holds, v);
    return result;
  }

  private record Goal(String measure, String goal, String measured, boolean met, String note) {}

  /** Requests in flight over time with the cap, the kill and the outage marked. */
  private static void chart(ExperimentResult result, Path dir, long outageSeconds) throws IOException {
    List<String> samples = Files.readAllLines(dir.resolve("in-flight.csv"));
    double[] xs = new double[samples.size() - 1];
    double[] ys = new double[samples.size() - 1];
    for (int i = 1; i < samples.size(); i++) {
      String[] c = samples.get(i).split(",");
      xs[i - 1] = Long.parseLong(c[0]) / 1000.0;
      ys[i - 1] = Long.parseLong(c[1]);
    }
    Map<String, Double> events = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(dir.resolve("events.csv"));
    for (String line : lines.subList(1, lines.size())) {
      int comma = line.indexOf(',');
      events.putIfAbsent(line.substring(comma + 1), Long.parseLong(line.substring(0, comma)) / 1000.0);
    }
    double end = xs.length == 0 ? 1 : xs[xs.length - 1];
    Map<String, double[][]> series = new LinkedHashMap<>();
    series.put("in flight at the slow server (every 10 ms)", new double[][] {xs, ys});
    series.put("cap", new double[][] {{0, end}, {CAP, CAP}});
    XYChart chart = Charts.lines("E13: requests in flight across 4 JVMs vs the shared cap",
        "seconds since the load started", "requests in flight", series);
    chart.getStyler().setYAxisMax(CAP * 1.45);
    chart.getStyler().setMarkerSize(0); // 10 ms samples: a line, not dots
    mark(chart, events, "kill w0", CAP * 1.35, "SIGKILL of w0");
    mark(chart, events, "redis stopped", CAP * 1.22, "Redis stopped");
    mark(chart, events, "redis started", CAP * 1.35, "Redis back (" + outageSeconds + " s)");
    result.chart("E13-in-flight", "Requests in flight at the slow server, all 4 JVMs together, against"
        + " the shared cap of " + CAP + "; dashed lines: the SIGKILL of one JVM, Redis stopped and"
        + " Redis started again (empty). After the kill, the permits freed by the others' tasks go to"
        + " the oldest waiters, which include the dead JVM's until their waiter lease (2 s) lapses:"
        + " those permits are held by nobody until their own lease lapses, so fewer requests run"
        + " for about a lease. During the outage nothing runs (fail-fast).", chart);
  }

  private static void mark(XYChart chart, Map<String, Double> events, String event, double y, String label) {
    Double x = events.get(event);
    if (x != null) {
      Charts.markX(chart, x, y, label);
    }
  }

  private static ExperimentResult notRun(ExperimentResult result, RuntimeException e) {
    String reason = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
    result.figure("ran", false);
    result.verdict(false, "Not run: no usable redis-server (" + reason + ").");
    return result;
  }

  private static long num(Map<String, Object> s, String key) {
    Object v = s.get(key);
    if (!(v instanceof Number n)) {
      throw new IllegalStateException("E13: the scenario's summary has no figure " + key + ": " + s);
    }
    return n.longValue();
  }

  private static double dbl(Map<String, Object> s, String key) {
    Object v = s.get(key);
    if (!(v instanceof Number n)) {
      throw new IllegalStateException("E13: the scenario's summary has no figure " + key + ": " + s);
    }
    return n.doubleValue();
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%.0f %%", 100 * fraction);
  }

  private static String ms(long millis) {
    return millis < 0 ? "never (timed out)" : String.format(Locale.ROOT, "%,d ms", millis);
  }
}
