package dev.lanes.lab.experiments;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.AdaptiveSettings;
import dev.lanes.adapt.LimitChange;
import dev.lanes.advisor.SizingAdvice;
import dev.lanes.advisor.SizingAdvisor;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.Downstream;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.Work;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * E10: the adaptive limit (module lanes-adapt) against free and static limits. (a) The source
 * writing's two workloads (a short computation; the same plus a 50 ms wait), 10,000 tasks: a
 * virtual thread per task, a virtual lane capped at 30, and the same lane with an adaptive limit
 * starting at 30. (b) A downstream of known capacity (a fair semaphore of 16 guarding a 50–150 ms
 * call) under open-loop arrivals at 0.5×, 1.0× and 1.4× its capacity: static limits swept against
 * the adaptive one (with the core's shedding on queue wait). (c) The downstream's capacity halves
 * mid-run. (d) On the steady workload of (b) at 1.0×, the adaptive lane's converged limit against
 * the load's concurrency by Little's law, with the sizing advisor's recommendation (the same figure
 * plus its headroom) reported beside it. Two goals are the ones the law allows, each stated with the
 * measurement that shows why and missed if this run's figures do not show it: pure CPU gives no
 * run-time signal, so the adaptive lane is held to a lane at the limit it reached; the advisor adds
 * 25 % headroom by design, so the limit is held to Little's law without it.
 */
public final class E10Adapt implements Experiment {

  private static final int CAP = 30;
  private static final int DELAY_MS = 50;
  private static final int CPU_STEPS = 25_000;
  private static final int CAPACITY = 16;
  private static final double CALL_MIN_MS = 50;
  private static final double CALL_MAX_MS = 150;
  /** The downstream's throughput: 16 calls of 100 ms on average at once. */
  private static final double CAPACITY_PER_SEC = CAPACITY / ((CALL_MIN_MS + CALL_MAX_MS) / 2 / 1000);
  private static final Duration SHED_TARGET = Duration.ofMillis(100);
  /**
   * A tenth of the target. Shedding starts once the head has waited more than the target for a
   * whole interval; the queue then holds about (target + interval) × arrival rate tasks, and the
   * last one admitted waits that many ÷ the service rate: (100 + 10) ms × 1.4 ≈ 155 ms at 1.4×
   * capacity while the limit holds at the capacity. Measured, the p99 of admitted waits is higher:
   * 194, 198 and 204 ms in three quiet full runs (2026-11-25), right at the goal's bound of twice
   * the target — the limit's dips below the capacity take the rest, and the goal misses now and
   * then. (CoDel's 5 ms / 100 ms are for packets, not 100 ms calls; with 25 ms the lab measured
   * 217 ms.)
   */
  private static final Duration SHED_INTERVAL = Duration.ofMillis(10);
  /** Half the downstream's capacity: the adaptive lane has to find the rest. */
  private static final int ADAPTIVE_START = 8;
  private static final double[] LOADS = {0.5, 1.0, 1.4};

  /** Keeps the computation's result alive so the JIT cannot drop it. */
  private static volatile long sink;

  @Override
  public String id() {
    return "E10";
  }

  @Override
  public String question() {
    return "Can a lane find its own limit: as fast as free where nothing is congested, as good as"
        + " the best static limit where something is?";
  }

  /** A limit over time: the times (s) and limits of each step, starting at 0. */
  private record Steps(List<double[]> points) {
    static Steps start(double limit) {
      List<double[]> p = new CopyOnWriteArrayList<>();
      p.add(new double[] {0, limit});
      return new Steps(p);
    }

    void add(double atSec, double limit) {
      points.add(new double[] {atSec, limit});
    }

    double max() {
      return points.stream().mapToDouble(p -> p[1]).max().orElse(0);
    }

    /** The limit at {@code t}. */
    double at(double t) {
      double v = points.get(0)[1];
      for (double[] p : points) {
        if (p[0] <= t) {
          v = p[1];
        }
      }
      return v;
    }

    /** Time-weighted share of [from, to] during which the limit is within [lo, hi]. */
    double shareWithin(double from, double to, double lo, double hi) {
      double inside = 0;
      double step = (to - from) / 2000;
      for (int i = 0; i < 2000; i++) {
        double v = at(from + (i + 0.5) * step);
        if (v >= lo && v <= hi) {
          inside += step;
        }
      }
      return to > from ? inside / (to - from) : 0;
    }

    double meanOver(double from, double to) {
      double sum = 0;
      int n = 2000;
      for (int i = 0; i < n; i++) {
        sum += at(from + (i + 0.5) * (to - from) / n);
      }
      return sum / n;
    }

    /** The first time at or after {@code from} at which the limit is within [lo, hi], or NaN. */
    double firstWithin(double from, double lo, double hi) {
      double v = at(from);
      if (v >= lo && v <= hi) {
        return from;
      }
      for (double[] p : points) {
        if (p[0] >= from && p[1] >= lo && p[1] <= hi) {
          return p[0];
        }
      }
      return Double.NaN;
    }

    /** Step-shaped xs and ys for a line chart, ending at {@code end}. */
    double[][] series(double end) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      double last = points.get(0)[1];
      for (double[] p : points) {
        xs.add(p[0]);
        ys.add(last);
        xs.add(p[0]);
        ys.add(p[1]);
        last = p[1];
      }
      xs.add(end);
      ys.add(last);
      return new double[][] {
        xs.stream().mapToDouble(Double::doubleValue).toArray(),
        ys.stream().mapToDouble(Double::doubleValue).toArray()
      };
    }
  }

  /** What one lane did under one load in (b). */
  private record Served(String name, int staticLimit, double throughputPerSec, double p99TotalMs,
      double p99WaitMs, long completed, long shed, long otherRejected, long unfinished,
      int peakInFlight, Steps limit, List<TaskRecord> records, SizingAdvice advice, LaneStats adviceStats) {}

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    int tasks = ctx.scale(1_000, 10_000);
    int cpuReps = ctx.scale(3, 5);
    int delayReps = ctx.scale(2, 3);
    double loadSec = ctx.scale(2, 12);
    int[] statics = ctx.quick() ? new int[] {8, 16, 32} : new int[] {4, 8, 12, 16, 24, 32, 64};
    double halveTotal = ctx.scale(8, 24);
    double halveAt = ctx.scale(2, 8);
    result.setup(String.format(Locale.ROOT,
        "(a) %,d tasks of the source writing's two workloads (a short computation; the same plus a"
            + " %d ms sleep): free (a virtual thread per task, the JDK's executor), a virtual lane"
            + " capped at %d, and the same lane with an adaptive limit (module lanes-adapt, default"
            + " settings but maxLimit %,d) starting at %d; median of %d runs (CPU) and %d runs"
            + " (with the wait; the capped run once, it takes the longest); on pure CPU each adaptive run also records every"
            + " task's run time by the limit in force when it started, and is followed by the same lane held at that run's"
            + " peak limit. (b) A downstream of"
            + " capacity %d (a fair semaphore guarding a call of %.0f–%.0f ms, so %.0f calls/s)"
            + " under Poisson arrivals at 0.5×, 1.0× and 1.4× that for %.0f s each (identical"
            + " arrivals and call times for every lane): virtual lanes with static limits %s, and an"
            + " adaptive lane (default settings, starting at %d) that also sheds on queue wait"
            + " (shedWhenQueuedLongerThan(%d ms, %d ms): the last task admitted before shedding starts"
            + " waits about (target + interval) × arrival rate ÷ service rate); after the arrivals each lane gets up to"
            + " %.0f s to finish, then what never started is returned. (c) The same adaptive lane at"
            + " 1.0× of the original capacity for %.0f s; at %.0f s the capacity drops from %d to"
            + " %d. (d) On the steady workload of (b) at 1.0×, the adaptive lane's limit"
            + " (time-weighted mean over the second half of the arrivals) against the load's concurrency by Little's law"
            + " (arrival rate × mean run time from the lane's stats at the end of the arrivals), and"
            + " SizingAdvisor.defaults()'s recommendation from the same stats.",
        tasks, DELAY_MS, CAP, tasks, CAP, cpuReps, delayReps, CAPACITY, CALL_MIN_MS, CALL_MAX_MS,
        CAPACITY_PER_SEC, loadSec, Arrays.toString(statics), ADAPTIVE_START,
        SHED_TARGET.toMillis(), SHED_INTERVAL.toMillis(), drainSec(loadSec), halveTotal, halveAt,
        CAPACITY, CAPACITY / 2));
    List<TaskRecord> kept = new ArrayList<>();

    // ---------------------------------------------------------------- (a) the seed's workloads
    ctx.status("E10a warm-up");
    free(Math.min(tasks, 1_000), 0, ctx.seed());
    adaptive(Math.min(tasks, 1_000), 0, ctx.seed(), null);
    Map<String, Double> a = new LinkedHashMap<>();
    Steps delayLimit = null;
    List<RunTimes> cpuRuns = new ArrayList<>();
    List<Steps> cpuSteps = new ArrayList<>();
    List<Double> heldAtPeak = new ArrayList<>();
    for (String workload : List.of("cpu", "delay")) {
      int delay = workload.equals("cpu") ? 0 : DELAY_MS;
      int reps = workload.equals("cpu") ? cpuReps : delayReps;
      List<Double> f = new ArrayList<>();
      List<Double> c = new ArrayList<>();
      List<Double> ad = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        ctx.status("E10a " + workload + " run " + (r + 1) + "/" + reps);
        f.add(free(tasks, delay, ctx.seed() + r));
        if (workload.equals("cpu") || r == 0) {
          c.add(capped(tasks, delay, ctx.seed() + r));
        }
        Steps steps = Steps.start(CAP);
        RunTimes runs = delay == 0 ? new RunTimes(tasks) : null;
        ad.add(adaptive(tasks, delay, ctx.seed() + r, steps, runs));
        if (delay > 0) {
          delayLimit = steps;
        } else {
          cpuRuns.add(runs);
          cpuSteps.add(steps);
          // What the law can do without a run-time signal: the same lane held where the limit went.
          heldAtPeak.add(held(tasks, delay, ctx.seed() + r, (int) steps.max()));
        }
      }
      a.put(workload + "_free_ms", median(f));
      a.put(workload + "_capped_ms", median(c));
      a.put(workload + "_adaptive_ms", median(ad));
    }
    a.forEach(result::figure);
    double delayRatio = a.get("delay_adaptive_ms") / a.get("delay_free_ms");
    double cpuBest = Math.min(a.get("cpu_free_ms"), a.get("cpu_capped_ms"));
    double cpuRatio = a.get("cpu_adaptive_ms") / cpuBest;
    result.figure("delay_adaptive_over_free", delayRatio);
    result.figure("cpu_adaptive_over_best", cpuRatio);
    result.figure("delay_adaptive_peak_limit", delayLimit.max());
    // Pure CPU: did run time per task rise as the limit grew? (the law's only signal)
    CpuSignal signal = cpuSignal(cpuRuns, cpuSteps, CAP);
    double cpuPeak = median(cpuSteps.stream().map(Steps::max).toList());
    double cpuHeld = median(heldAtPeak);
    double cpuOverHeld = a.get("cpu_adaptive_ms") / cpuHeld;
    double cpuOverFree = a.get("cpu_adaptive_ms") / a.get("cpu_free_ms");
    double tolerance = AdaptiveSettings.defaults().runTimeTolerance();
    result.figure("cpu_adaptive_peak_limit", cpuPeak);
    result.figure("cpu_held_at_peak_ms", cpuHeld);
    result.figure("cpu_adaptive_over_held", cpuOverHeld);
    result.figure("cpu_adaptive_over_free", cpuOverFree);
    result.figure("cpu_run_us_at_start", signal.atStartMeanMicros());
    result.figure("cpu_run_us_at_peak", signal.atPeakMeanMicros());
    result.figure("cpu_tasks_at_start", signal.atStartTasks());
    result.figure("cpu_tasks_at_peak", signal.atPeakTasks());
    result.figure("cpu_run_time_rise", signal.rise());
    result.figure("cpu_run_us_median_at_start", signal.atStartMedianMicros());
    result.figure("cpu_run_us_median_at_peak", signal.atPeakMedianMicros());
    result.figure("cpu_run_time_median_rise", signal.medianRise());

    // ---------------------------------------------------------------- (b) known capacity
    Map<Double, List<Served>> byLoad = new LinkedHashMap<>();
    for (double load : LOADS) {
      ctx.status(String.format(Locale.ROOT, "E10b load %.1f×", load));
      byLoad.put(load, serve(ctx, load, loadSec, statics));
    }
    for (Map.Entry<Double, List<Served>> e : byLoad.entrySet()) {
      for (Served s : e.getValue()) {
        String key = String.format(Locale.ROOT, "b_%s_%s_", loadTag(e.getKey()), s.name());
        result.figure(key + "throughput_per_s", s.throughputPerSec());
        result.figure(key + "p99_total_ms", s.p99TotalMs());
        result.figure(key + "p99_wait_ms", s.p99WaitMs());
        result.figure(key + "shed", s.shed());
        result.figure(key + "unfinished", s.unfinished());
        if (s.staticLimit() == 0 || s.staticLimit() == CAPACITY) {
          kept.addAll(s.records());
        }
      }
    }

    // ---------------------------------------------------------------- (c) capacity halves
    ctx.status("E10c capacity 16 → 8");
    Steps halved = halves(ctx, halveTotal, halveAt, kept);
    double lo25 = CAPACITY / 2 * 0.75;
    double hi25 = CAPACITY / 2 * 1.25;
    double lo20 = CAPACITY / 2 * 0.80;
    double hi20 = CAPACITY / 2 * 1.20;
    double reachedAt = halved.firstWithin(halveAt, lo25, hi25);
    double settleSec = reachedAt - halveAt;
    double shareAfter = Double.isNaN(reachedAt) ? 0 : halved.shareWithin(reachedAt, halveTotal, lo20, hi20);
    double meanAfter = Double.isNaN(reachedAt) ? Double.NaN : halved.meanOver(reachedAt, halveTotal);
    double meanBefore = halved.meanOver(halveAt / 2, halveAt);
    result.figure("c_seconds_to_within_25pct", Double.isNaN(settleSec) ? -1 : settleSec);
    result.figure("c_share_within_20pct_after", shareAfter);
    result.figure("c_mean_limit_after", meanAfter);
    result.figure("c_mean_limit_before_halving", meanBefore);

    // ---------------------------------------------------------------- (d) the advisor agrees?
    Served steady = find(byLoad.get(1.0), 0);
    double converged = steady.limit().meanOver(loadSec / 2, loadSec);
    double advised = steady.advice().recommendedConcurrency();
    boolean adviceEnough = steady.advice().enoughData();
    double agreeRatio = Math.max(converged, advised) / Math.min(converged, advised);
    // The load's concurrency by Little's law, from the snapshot the advisor read: arrival rate
    // (submitted ÷ uptime) × mean run time (of the tasks that ran); the advisor's figure before
    // it divides by its target utilisation.
    LaneStats steadyStats = steady.adviceStats();
    double arrivalPerSec = steadyStats.submitted() / (steadyStats.uptimeNanos() / 1e9);
    double meanRunMs = steadyStats.sinceStart().runTime().mean() / 1e6;
    double littles = arrivalPerSec * (steadyStats.sinceStart().runTime().mean() / 1e9); // as the advisor computes it
    double littleRatio = Math.max(converged, littles) / Math.min(converged, littles);
    double utilisation = SizingAdvisor.defaults().targetUtilisation();
    // The advisor's recommendation is this figure ÷ its target utilisation, rounded up (shown, not assumed).
    boolean adviceIsLittles = adviceEnough && advised == Math.max(1, Math.min(SizingAdvisor.defaults().maxConcurrency(),
        Math.ceil(littles / utilisation)));
    result.figure("d_converged_limit", converged);
    result.figure("d_advised_concurrency", advised);
    result.figure("d_advised_enough_data", adviceEnough);
    result.figure("d_ratio", agreeRatio);
    result.figure("d_arrival_per_s", arrivalPerSec);
    result.figure("d_mean_run_ms", meanRunMs);
    result.figure("d_littles_law_concurrency", littles);
    result.figure("d_converged_over_littles", converged / littles);
    result.figure("d_advice_is_littles_over_utilisation", adviceIsLittles);

    // ---------------------------------------------------------------- goals
    List<List<String>> rows = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    boolean g1 = delayRatio <= 1.5;
    goal(rows, missed, "E10a CPU + 50 ms wait, " + String.format(Locale.ROOT, "%,d", tasks) + " tasks",
        "adaptive within 1.5× of free",
        String.format(Locale.ROOT, "free %s, capped-30 %s, adaptive %s ms (%.2f× free; limit peaked at %,.0f)",
            f(a.get("delay_free_ms")), f(a.get("delay_capped_ms")), f(a.get("delay_adaptive_ms")), delayRatio,
            delayLimit.max()),
        g1, g1 ? "" : "no change without samples: the first tasks end only after 50 ms, so the adaptive run takes at least one task"
            + " duration longer than free, which is most of free's time when there are few tasks (the quick run)");
    String cpuWhy = cpuGoalMissed(signal, tolerance, cpuOverHeld, cpuRatio);
    boolean g2 = cpuWhy.isEmpty();
    goal(rows, missed, "E10a pure CPU",
        String.format(Locale.ROOT, "adaptive within 10 %% of the same lane held at the limit's peak (%,.0f), with the mean run time"
            + " per task flat as the limit grew (within the law's tolerance, +%.0f %%). Replaces \"within 10 %% of the best of free /"
            + " capped\" (%.2f× here): a virtual thread is not time-sliced, so CPU work gives the law no run-time signal, the limit"
            + " grows to the demand, and the best it can do is run like a lane at that limit, whether or not capping would be faster",
            cpuPeak, 100 * tolerance, cpuRatio),
        String.format(Locale.ROOT, "mean run time per task %.1f µs started at limit ≤ %d (%,d tasks) vs %.1f µs at ≥ half the peak"
            + " (%,d tasks): %.2f× (medians %.1f vs %.1f µs: %.2f×); limit peaked at %,.0f; adaptive %s ms vs held at the"
            + " peak %s ms (%.2f×); free %s, capped-30 %s ms (adaptive %.2f× free, %.2f× the best)",
            signal.atStartMeanMicros(), 2 * CAP, signal.atStartTasks(), signal.atPeakMeanMicros(), signal.atPeakTasks(),
            signal.rise(), signal.atStartMedianMicros(), signal.atPeakMedianMicros(), signal.medianRise(), cpuPeak,
            f(a.get("cpu_adaptive_ms")), f(cpuHeld), cpuOverHeld, f(a.get("cpu_free_ms")),
            f(a.get("cpu_capped_ms")), cpuOverFree, cpuRatio),
        g2, cpuWhy);
    Served s16at1 = find(byLoad.get(1.0), CAPACITY);
    Served adAt1 = find(byLoad.get(1.0), 0);
    boolean g3t = adAt1.throughputPerSec() >= 0.95 * s16at1.throughputPerSec();
    boolean g3p = adAt1.p99TotalMs() <= 1.25 * s16at1.p99TotalMs();
    goal(rows, missed, "E10b at 1.0× capacity", "throughput ≥ 95 % of static-16, p99 (wait + run) ≤ 1.25× static-16's",
        String.format(Locale.ROOT, "throughput %.1f vs %.1f /s (%.0f %%); p99 %s vs %s ms (%.2f×); shed %d",
            adAt1.throughputPerSec(), s16at1.throughputPerSec(), 100 * adAt1.throughputPerSec() / s16at1.throughputPerSec(),
            f(adAt1.p99TotalMs()), f(s16at1.p99TotalMs()), adAt1.p99TotalMs() / s16at1.p99TotalMs(), adAt1.shed()),
        g3t && g3p, (g3t ? "" : "throughput below 95 %. ") + (g3p ? "" : "p99 above 1.25×."));
    Served s16at14 = find(byLoad.get(1.4), CAPACITY);
    Served adAt14 = find(byLoad.get(1.4), 0);
    double target = SHED_TARGET.toMillis();
    boolean g4t = adAt14.throughputPerSec() >= 0.90 * s16at14.throughputPerSec();
    boolean g4w = adAt14.p99WaitMs() <= 2 * target;
    goal(rows, missed, "E10b at 1.4× capacity",
        "throughput ≥ 90 % of static-16; admitted tasks' wait p99 ≤ 2× the admission target (" + (long) target + " ms)",
        String.format(Locale.ROOT, "throughput %.1f vs %.1f /s (%.0f %%); admitted wait p99 %s ms (static-16: %s ms); shed %,d",
            adAt14.throughputPerSec(), s16at14.throughputPerSec(), 100 * adAt14.throughputPerSec() / s16at14.throughputPerSec(),
            f(adAt14.p99WaitMs()), f(s16at14.p99WaitMs()), adAt14.shed()),
        g4t && g4w, (g4t ? "" : "throughput below 90 %. ") + (g4w ? "" : "admitted wait p99 above twice the target."));
    Served adAt05 = find(byLoad.get(0.5), 0);
    boolean g5 = adAt05.limit().max() <= Math.max(ADAPTIVE_START, adAt05.peakInFlight()) && adAt05.shed() == 0;
    goal(rows, missed, "E10b at 0.5× capacity", "the limit does not grow past what is used; nothing shed",
        String.format(Locale.ROOT, "limit peaked at %.0f, tasks in flight peaked at %d (started at %d); shed %d",
            adAt05.limit().max(), adAt05.peakInFlight(), ADAPTIVE_START, adAt05.shed()),
        g5, g5 ? "" : (adAt05.shed() > 0 ? "tasks were shed. " : "the limit went past the peak of tasks in flight."));
    boolean g6 = !Double.isNaN(settleSec) && settleSec <= 5 && shareAfter >= 0.9;
    goal(rows, missed, "E10c capacity 16 → 8", "limit within 8 ± 25 % in ≤ 5 s, then within ± 20 %",
        String.format(Locale.ROOT, "within ± 25 %% after %s s; then within ± 20 %% for %.0f %% of the time (mean %.1f); before: mean %.1f",
            Double.isNaN(settleSec) ? "never" : String.format(Locale.ROOT, "%.1f", settleSec), 100 * shareAfter,
            meanAfter, meanBefore),
        g6, g6 ? "" : (Double.isNaN(settleSec) || settleSec > 5 ? "too slow to come down. "
            : "it steps one or two above the new capacity before each cut (9, 10 against 8: the tolerance is 20 %); met needs ≥ 90 %"
            + " of the time within ± 20 %."));
    String littleWhy = littleGoalMissed(adviceEnough, converged, littles);
    boolean g7 = littleWhy.isEmpty();
    goal(rows, missed, "E10d advisor vs adaptive (steady: E10b at 1.0×)",
        String.format(Locale.ROOT, "converged limit within 25 %% of the load's concurrency by Little's law (arrival rate × mean run"
            + " time: the advisor's figure before its headroom). Replaces \"recommendation and converged limit within 25 %% of each"
            + " other\", which the advisor's design rules out: it divides Little's law by its target utilisation %.2f, i.e. adds"
            + " %.0f %% headroom, so a limit at the load's concurrency is already %.2f× from the recommendation (here %.0f vs %.1f:"
            + " %.2f×)", utilisation, 100 * (1 / utilisation - 1), 1 / utilisation, advised, converged, agreeRatio),
        String.format(Locale.ROOT, "arrival %.1f/s × mean run %.1f ms = %.1f (the lane's stats at the end of the arrivals, as the"
            + " advisor read them; run time includes waiting for the downstream's permits while the limit is above %d); converged"
            + " %.1f (mean over the second half of E10b at 1.0×): %.2f×. Advisor %.0f (%s; %s ⌈%.1f ÷ %.2f⌉)",
            arrivalPerSec, meanRunMs, littles, CAPACITY, converged, littleRatio, advised,
            steady.advice().reasoning().split("\\. Queue")[0], adviceIsLittles ? "=" : "≠", littles, utilisation),
        g7, littleWhy);
    result.table(List.of("workload", "goal", "measured (this run)", "met?", "why missed"), rows);

    // ---------------------------------------------------------------- charts
    result.chart("E10-seed", "The source writing's workloads: total time for free, capped at 30 and adaptive (log scale; lower is better).",
        Charts.barsLog("E10a: free, capped, adaptive", "ms", List.of("pure CPU", "CPU + 50 ms"),
            Charts.series("free (virtual thread per task)", List.of(a.get("cpu_free_ms"), a.get("delay_free_ms")),
                "capped at 30", List.of(a.get("cpu_capped_ms"), a.get("delay_capped_ms")),
                "adaptive (starts at 30)", List.of(a.get("cpu_adaptive_ms"), a.get("delay_adaptive_ms")))));
    Map<String, double[][]> seedSeries = new LinkedHashMap<>();
    double seedEnd = a.get("delay_adaptive_ms") / 1000;
    seedSeries.put("adaptive limit", delayLimit.series(seedEnd));
    seedSeries.put("capped at 30", new double[][] {{0, seedEnd}, {CAP, CAP}});
    result.chart("E10-seed-limit", "E10a CPU + 50 ms: the adaptive limit over time (one run), against the cap of 30.",
        Charts.lines("E10a: limit over time", "seconds", "limit", seedSeries, Charts.Scale.LOG));
    for (double load : LOADS) {
      Map<String, double[][]> ls = new LinkedHashMap<>();
      Served ad = find(byLoad.get(load), 0);
      double end = loadSec + drainSec(loadSec);
      ls.put("adaptive limit", ad.limit().series(end));
      for (int st : statics) {
        ls.put("static " + st, new double[][] {{0, end}, {st, st}});
      }
      result.chart("E10-limit-" + loadTag(load),
          String.format(Locale.ROOT, "E10b at %.1f× capacity: the adaptive limit over time against the static limits swept (capacity %d).", load, CAPACITY),
          Charts.lines(String.format(Locale.ROOT, "E10b %.1f×: limit over time", load), "seconds", "limit", ls));
    }
    List<String> cats = new ArrayList<>();
    for (int st : statics) {
      cats.add("static " + st);
    }
    cats.add("adaptive");
    Map<String, List<Double>> thr = new LinkedHashMap<>();
    Map<String, List<Double>> p99 = new LinkedHashMap<>();
    for (double load : LOADS) {
      List<Double> t = new ArrayList<>();
      List<Double> p = new ArrayList<>();
      for (int st : statics) {
        t.add(find(byLoad.get(load), st).throughputPerSec());
        p.add(find(byLoad.get(load), st).p99TotalMs());
      }
      t.add(find(byLoad.get(load), 0).throughputPerSec());
      p.add(find(byLoad.get(load), 0).p99TotalMs());
      thr.put(String.format(Locale.ROOT, "%.1f× capacity", load), t);
      p99.put(String.format(Locale.ROOT, "%.1f× capacity", load), p);
    }
    result.chart("E10-throughput", "E10b: completed calls per second, static limits swept and adaptive (higher is better; the downstream serves " + (int) CAPACITY_PER_SEC + "/s).",
        Charts.bars("E10b: throughput", "calls/s", cats, thr));
    result.chart("E10-p99", "E10b: p99 of wait + run of completed calls (log scale; lower is better). Shed calls are not in it: they failed fast.",
        Charts.barsLog("E10b: p99 wait + run", "ms", cats, p99));
    Map<String, double[][]> hs = new LinkedHashMap<>();
    hs.put("adaptive limit", halved.series(halveTotal));
    hs.put("capacity", new double[][] {{0, halveAt, halveAt, halveTotal}, {CAPACITY, CAPACITY, CAPACITY / 2, CAPACITY / 2}});
    result.chart("E10-halves", "E10c: the downstream's capacity drops from 16 to 8; the adaptive limit over time.",
        Charts.markX(Charts.lines("E10c: capacity halves", "seconds", "limit", hs), halveAt, CAPACITY * 1.35, "capacity 16 → 8", halveAt + halveTotal * 0.12));

    long met = rows.stream().filter(r -> r.get(3).equals("met")).count();
    boolean holds = missed.isEmpty();
    String v = String.format(Locale.ROOT,
        "%d of %d goals met. With a 50 ms wait, the adaptive lane took %s ms against free %s ms (%.2f×) and capped-30 %s ms;"
            + " on pure CPU %s ms against %s ms for the same lane held at the limit's peak of %,.0f (%.2f×; %.2f× the best of free"
            + " and capped-30, %s ms), mean run time per task having moved %.2f× as the limit grew. Against a downstream of capacity 16 at 1.0× it"
            + " delivered %.0f %% of static-16's throughput with a p99 of %.2f× static-16's; at 1.4× %.0f %% with"
            + " admitted waits' p99 at %s ms (target %d ms) and %,d calls shed. When the capacity halved, the limit"
            + " came within 8 ± 25 %% %s. On the steady load the limit converged to %.1f against the load's concurrency by"
            + " Little's law of %.1f (%.2f×); the advisor, which adds %.0f %% headroom, said %.0f (%.2f× the limit).",
        met, rows.size(), f(a.get("delay_adaptive_ms")), f(a.get("delay_free_ms")), delayRatio, f(a.get("delay_capped_ms")),
        f(a.get("cpu_adaptive_ms")), f(cpuHeld), cpuPeak, cpuOverHeld, cpuRatio, f(cpuBest), signal.rise(),
        100 * adAt1.throughputPerSec() / s16at1.throughputPerSec(), adAt1.p99TotalMs() / s16at1.p99TotalMs(),
        100 * adAt14.throughputPerSec() / s16at14.throughputPerSec(), f(adAt14.p99WaitMs()), (long) target, adAt14.shed(),
        Double.isNaN(settleSec) ? "never" : String.format(Locale.ROOT, "after %.1f s", settleSec), converged, littles,
        littleRatio, 100 * (1 / utilisation - 1), advised, agreeRatio);
    if (!holds) {
      v += " Missed: " + String.join("; ", missed) + ".";
    }
    result.verdict(holds, v);
    result.tasks(kept);
    return result;
  }

  private static void goal(List<List<String>> rows, List<String> missed, String workload, String goal,
      String measured, boolean met, String why) {
    rows.add(List.of(workload, goal, measured, met ? "met" : "missed", met ? "" : why.strip()));
    if (!met) {
      missed.add(workload);
    }
  }

  private static Served find(List<Served> served, int staticLimit) {
    return served.stream().filter(s -> s.staticLimit() == staticLimit).findFirst().orElseThrow();
  }

  private static String loadTag(double load) {
    return String.format(Locale.ROOT, "%.1fx", load).replace('.', '_');
  }

  private static double drainSec(double loadSec) {
    return Math.max(3, loadSec / 2);
  }

  static String f(double ms) {
    return E1PoolOrThreadPerTask.fmt(ms);
  }

  private static double median(List<Double> xs) {
    return Percentiles.of(xs, 50);
  }

  // ---------------------------------------------------------------- (a)

  private static Runnable seedTask(int delayMs, long seed) {
    return () -> {
      sink = Work.xorshift(seed, CPU_STEPS);
      if (delayMs > 0) {
        sleep(delayMs);
      }
    };
  }

  private static double free(int tasks, int delayMs, long seed) {
    long t0 = System.nanoTime();
    try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < tasks; i++) {
        ex.execute(seedTask(delayMs, seed + i));
      }
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double capped(int tasks, int delayMs, long seed) {
    return held(tasks, delayMs, seed, CAP);
  }

  /** The virtual lane held at {@code limit}, no adaptive limit. */
  private static double held(int tasks, int delayMs, long seed, int limit) {
    long t0 = System.nanoTime();
    String name = limit == CAP ? "e10a-capped" : "e10a-held-at-peak";
    try (Lane lane = Lane.virtual(name, limit).queueCapacity(tasks).build()) {
      for (int i = 0; i < tasks; i++) {
        lane.execute(seedTask(delayMs, seed + i));
      }
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double adaptive(int tasks, int delayMs, long seed, Steps steps) {
    return adaptive(tasks, delayMs, seed, steps, null);
  }

  /**
   * One adaptive run; {@code runs}, if given, gets every task's start (s since the run began) and
   * run time, on the same clock as {@code steps} (a second listener storing two longs per task;
   * its cost is inside the adaptive run's time, which the goal compares with a lane held at the
   * peak without one).
   */
  private static double adaptive(int tasks, int delayMs, long seed, Steps steps, RunTimes runs) {
    long t0 = System.nanoTime();
    try (Lane lane = Lane.virtual("e10a-adaptive", CAP).queueCapacity(tasks).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(tasks).build())) {
      if (steps != null) {
        limit.onChange(c -> steps.add((System.nanoTime() - t0) / 1e9, c.to()));
      }
      if (runs != null) {
        runs.t0 = t0;
        lane.onTask(runs::add);
      }
      for (int i = 0; i < tasks; i++) {
        lane.execute(seedTask(delayMs, seed + i));
      }
      lane.close();
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  /** Start and run time of each task of one adaptive run (E10a, pure CPU), lock-free. */
  private static final class RunTimes {
    final long[] startedNanos;
    final long[] runNanos;
    final AtomicInteger count = new AtomicInteger();
    volatile long t0;

    RunTimes(int tasks) {
      startedNanos = new long[tasks];
      runNanos = new long[tasks];
    }

    void add(TaskRecord r) {
      if (r.outcome() != TaskOutcome.COMPLETED) {
        return;
      }
      int i = count.getAndIncrement();
      if (i < runNanos.length) {
        startedNanos[i] = r.startedNanos();
        runNanos[i] = r.runNanos();
      }
    }
  }

  /**
   * Run time per task by the limit in force when the task started, pooled over the runs: tasks
   * started while the limit was at most twice its start ("at start") against those started while
   * it was at least half its peak in that run ("at peak"). The mean is what the law judges by (a
   * window's mean); the median says whether a rise is the typical task or a tail of tasks stopped
   * mid-run (a carrier descheduled by the OS, a GC pause).
   */
  record CpuSignal(long atStartTasks, double atStartMeanMicros, double atStartMedianMicros,
      long atPeakTasks, double atPeakMeanMicros, double atPeakMedianMicros) {
    double rise() {
      return atPeakMeanMicros / atStartMeanMicros;
    }

    double medianRise() {
      return atPeakMedianMicros / atStartMedianMicros;
    }
  }

  private static CpuSignal cpuSignal(List<RunTimes> runs, List<Steps> steps, double startLimit) {
    List<Double> atStart = new ArrayList<>();
    List<Double> atPeak = new ArrayList<>();
    for (int k = 0; k < runs.size(); k++) {
      RunTimes r = runs.get(k);
      Steps st = steps.get(k);
      double peak = st.max();
      int n = Math.min(r.count.get(), r.runNanos.length);
      for (int i = 0; i < n; i++) {
        double limitThen = st.at((r.startedNanos[i] - r.t0) / 1e9);
        if (limitThen <= 2 * startLimit) {
          atStart.add(r.runNanos[i] / 1e3);
        }
        if (limitThen >= peak / 2) {
          atPeak.add(r.runNanos[i] / 1e3);
        }
      }
    }
    return new CpuSignal(atStart.size(), mean(atStart), atStart.isEmpty() ? Double.NaN : median(atStart),
        atPeak.size(), mean(atPeak), atPeak.isEmpty() ? Double.NaN : median(atPeak));
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  /** Fewer tasks than this in either group of {@link CpuSignal}: too few to say run time was flat. */
  static final int MIN_SIGNAL_TASKS = 20;

  /**
   * E10a pure CPU, the goal the law allows: with no run-time signal the limit can only grow to the
   * demand, so the adaptive lane is held to the same lane held at the limit's peak — and that goal
   * stands only if the mean run time per task stayed flat as the limit grew, within {@code
   * tolerance} (the law's own: above it, and by at least its minRunTimeRise, the law cuts). Returns
   * "" when met, else why not.
   */
  static String cpuGoalMissed(CpuSignal s, double tolerance, double adaptiveOverHeld, double oldRatio) {
    double rise = s.rise();
    if (s.atStartTasks() < MIN_SIGNAL_TASKS || s.atPeakTasks() < MIN_SIGNAL_TASKS || Double.isNaN(rise)) {
      return String.format(Locale.ROOT, "too few tasks to compare run time at the start and at the peak (%d and %d, need %d"
          + " each), so the replacement is not shown; the old goal (within 10 %% of the best of free / capped) stands at %.2f×",
          s.atStartTasks(), s.atPeakTasks(), MIN_SIGNAL_TASKS, oldRatio);
    }
    if (rise > 1 + tolerance) {
      String where = s.medianRise() <= 1 + tolerance
          ? String.format(Locale.ROOT, " (the median moved %.2f×: the rise is in the tail, tasks stopped mid-run, e.g. by a"
              + " descheduled carrier or a GC pause, not the typical task; but the law judges by means)", s.medianRise())
          : String.format(Locale.ROOT, " (the median too: %.2f×)", s.medianRise());
      return String.format(Locale.ROOT, "run time per task rose %.2f× as the limit grew, %.1f → %.1f µs, more than the law's tolerance"
          + " of %.0f %%%s: this run shows a signal, so it does not justify the replacement; the old goal (within 10 %% of the best"
          + " of free / capped) stands at %.2f×", rise, s.atStartMeanMicros(), s.atPeakMeanMicros(), 100 * tolerance, where, oldRatio);
    }
    if (adaptiveOverHeld > 1.10) {
      return String.format(Locale.ROOT, "run time was flat (%.2f×), but the adaptive lane took %.2f× the time of the lane held at"
          + " the same limit: the controller's own cost", rise, adaptiveOverHeld);
    }
    return "";
  }

  /**
   * E10d: the converged limit against the load's concurrency by Little's law. Returns "" when met
   * (within 25 % either way, with the advisor's data enough), else why not.
   */
  static String littleGoalMissed(boolean enoughData, double converged, double littles) {
    if (!enoughData) {
      return "the advisor had too few samples, so the lane's figures are not enough to apply Little's law";
    }
    double ratio = Math.max(converged, littles) / Math.min(converged, littles);
    if (ratio > 1.25) {
      return String.format(Locale.ROOT, "the converged limit %.1f is %.2f× the load's concurrency %.1f", converged, ratio, littles);
    }
    return "";
  }

  private static void sleep(long ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  // ---------------------------------------------------------------- (b)

  /** One lane under test in (b) or (c): the lane, its own downstream, its in-flight count. */
  private static final class Subject {
    final String name;
    final int staticLimit; // 0: adaptive
    final Lane lane;
    final Downstream downstream = new Downstream(CAPACITY);
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger peak = new AtomicInteger();
    final Map<TaskOutcome, AtomicInteger> refused = new ConcurrentHashMap<>();
    final TaskLog log = new TaskLog();
    final Steps steps;
    AdaptiveLimit limit;

    Subject(String prefix, int staticLimit, long t0) {
      this.staticLimit = staticLimit;
      this.name = staticLimit == 0 ? "adaptive" : "static_" + staticLimit;
      if (staticLimit == 0) {
        lane = log.follow(Lane.virtual(prefix + "-adaptive", ADAPTIVE_START).queueCapacity(100_000)
            .shedWhenQueuedLongerThan(SHED_TARGET, SHED_INTERVAL).exceptionHandler(this::interrupted).build());
        steps = Steps.start(ADAPTIVE_START);
        limit = AdaptiveLimit.attach(lane);
        limit.onChange(c -> steps.add((System.nanoTime() - t0) / 1e9, c.to()));
      } else {
        lane = log.follow(Lane.virtual(prefix + "-static-" + staticLimit, staticLimit).queueCapacity(100_000)
            .exceptionHandler(this::interrupted).build());
        steps = Steps.start(staticLimit);
      }
    }

    /** A call still running when the drain deadline passed is interrupted by shutdownNow: counted, not printed. */
    private void interrupted(Thread t, Throwable e) {
      if (!(e.getCause() instanceof InterruptedException)) {
        System.err.println("E10: a call failed: " + e);
      }
    }

    void submit(long callMs) {
      try {
        lane.execute(() -> {
          int now = inFlight.incrementAndGet();
          peak.accumulateAndGet(now, Math::max);
          try {
            downstream.call(callMs);
          } finally {
            inFlight.decrementAndGet();
          }
        });
      } catch (LaneRejectedException e) {
        refused.computeIfAbsent(e.reason(), k -> new AtomicInteger()).incrementAndGet();
      }
    }

    /** Waits for the accepted tasks up to {@code deadline}, then returns those never started. */
    long finish(long deadlineNanos) throws InterruptedException {
      lane.shutdown();
      long left = deadlineNanos - System.nanoTime();
      long unfinished = 0;
      if (!lane.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
        unfinished = lane.shutdownNow().size();
        lane.awaitTermination(30, TimeUnit.SECONDS);
      }
      if (limit != null) {
        limit.close();
      }
      lane.close();
      return unfinished;
    }

    long refused(TaskOutcome o) {
      AtomicInteger n = refused.get(o);
      return n == null ? 0 : n.get();
    }

    Served served() {
      List<TaskRecord> done = log.records().stream().filter(r -> r.outcome() == TaskOutcome.COMPLETED).toList();
      List<Double> totals = new ArrayList<>();
      List<Double> waits = new ArrayList<>();
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (TaskRecord r : done) {
        totals.add((r.queueWaitNanos() + r.runNanos()) / 1e6);
        waits.add(r.queueWaitMillis());
        first = Math.min(first, r.acceptedNanos());
        last = Math.max(last, r.endedNanos());
      }
      double secs = done.isEmpty() ? 1 : (last - first) / 1e9;
      long otherRefused = refused.entrySet().stream().filter(e -> e.getKey() != TaskOutcome.SHED)
          .mapToLong(e -> e.getValue().get()).sum();
      return new Served(name, staticLimit, done.size() / secs, Percentiles.of(totals, 99),
          Percentiles.of(waits, 99), done.size(), refused(TaskOutcome.SHED), otherRefused, 0,
          peak.get(), steps, log.records(), null, null);
    }
  }

  private static List<Served> serve(LabContext ctx, double load, double seconds, int[] statics) throws Exception {
    long t0 = System.nanoTime();
    String prefix = "e10b-" + loadTag(load);
    List<Subject> subjects = new ArrayList<>();
    try {
      for (int st : statics) {
        subjects.add(new Subject(prefix, st, t0));
      }
      subjects.add(new Subject(prefix, 0, t0));
      drive(ctx.seed(), load * CAPACITY_PER_SEC, seconds, t0, subjects, null, 0);
      // The advisor reads the adaptive lane's own figures at the end of the arrivals (E10d).
      // One snapshot: E10d applies Little's law to the same figures the advisor reads.
      LaneStats adviceStats = subjects.get(subjects.size() - 1).lane.stats();
      SizingAdvice advice = SizingAdvisor.defaults().advise(adviceStats, ctx.cores());
      long deadline = t0 + (long) ((seconds + drainSec(seconds)) * 1e9);
      List<Served> out = new ArrayList<>();
      for (Subject s : subjects) {
        long unfinished = s.finish(deadline);
        Served v = s.served();
        out.add(new Served(v.name(), v.staticLimit(), v.throughputPerSec(), v.p99TotalMs(), v.p99WaitMs(),
            v.completed(), v.shed(), v.otherRejected(), unfinished, v.peakInFlight(), v.limit(), v.records(),
            s.staticLimit == 0 ? advice : null, s.staticLimit == 0 ? adviceStats : null));
      }
      return out;
    } finally {
      for (Subject s : subjects) {
        s.lane.shutdownNow();
      }
    }
  }

  /**
   * Open-loop Poisson arrivals at {@code ratePerSec} for {@code seconds}, the same arrival times and
   * call durations for every subject; at {@code halveAtSec} (if &gt; 0) {@code onHalve} runs once.
   */
  private static void drive(long seed, double ratePerSec, double seconds, long t0, List<Subject> subjects,
      Runnable onHalve, double halveAtSec) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double at = 0;
    boolean halvedYet = onHalve == null;
    while (true) {
      at += -Math.log(1 - rnd.nextDouble()) / ratePerSec;
      if (at >= seconds) {
        break;
      }
      long callMs = Math.round(CALL_MIN_MS + rnd.nextDouble() * (CALL_MAX_MS - CALL_MIN_MS));
      if (!halvedYet && at >= halveAtSec) {
        waitUntil(t0 + (long) (halveAtSec * 1e9));
        onHalve.run();
        halvedYet = true;
      }
      waitUntil(t0 + (long) (at * 1e9));
      for (Subject s : subjects) {
        s.submit(callMs);
      }
    }
    waitUntil(t0 + (long) (seconds * 1e9));
  }

  /** Paces the arrivals (not a synchronisation: nothing else is waited for). */
  private static void waitUntil(long nanoTime) {
    for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  // ---------------------------------------------------------------- (c)

  private static Steps halves(LabContext ctx, double seconds, double halveAt, List<TaskRecord> kept) throws Exception {
    long t0 = System.nanoTime();
    Subject s = new Subject("e10c", 0, t0);
    try {
      drive(ctx.seed() + 1, CAPACITY_PER_SEC, seconds, t0, List.of(s), () -> s.downstream.reduceTo(CAPACITY / 2), halveAt);
      s.finish(t0 + (long) ((seconds + 3) * 1e9));
      kept.addAll(s.log.records());
      return s.steps;
    } finally {
      s.lane.shutdownNow();
    }
  }
}
