package dev.lanes.lab.experiments;

import dev.lanes.HealthEvent;
import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneRejectedException;
import dev.lanes.TaskOutcome;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.report.Format;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.Work;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * E12: the two-level fan-out of the writing on speeding up external API calls. Each of N outer
 * items (a pull request) needs three blocking calls to a downstream API (the lab's local server,
 * answering after a fixed delay). Three ways: one call after another; {@code CompletableFuture}
 * fan-out on the common ForkJoinPool (outer and inner {@code supplyAsync} on {@code
 * ForkJoinPool.commonPool()} — the wrong place for blocking calls); and fan-out on two lanes, one per level, as the writing's
 * two Spring executors. Then the nested fan-out on one small lane — outer tasks wait for inner
 * tasks queued behind them in the same lane, a starvation deadlock that lanes' detector reports
 * (built with {@code failOnDeadlock()}, the waits fail instead of hanging) — against two lanes,
 * which never deadlock.
 *
 * <p>Threads: lanes are closed (or, for the deadlocking lane, shut down now) before each part
 * ends; the common-pool part waits for every future it made.
 */
public final class E12FanOut implements Experiment {

  private static final int INNER_CALLS = 3;
  private static final int OUTER_THREADS = 10;
  private static final int INNER_THREADS = 10;
  private static final int SMALL_LANE_THREADS = 2;
  private static final double GOAL_FASTER_PERCENT = 30;
  private static final long GOAL_DETECT_MS = 1_000;

  /** The most threads the common pool had, seen at the end of an outer task; reset per run. */
  private static final AtomicInteger COMMON_POOL_PEAK = new AtomicInteger();

  private record Deadlock(boolean detected, double detectMs, int completed, int failedByDeadlock,
      int otherFailures, double ms) {}

  @Override
  public String id() {
    return "E12";
  }

  @Override
  public String question() {
    return "Fan-out: sequential calls, CompletableFuture on the common pool, or two lanes — and does nested fan-out on one small lane deadlock?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    int outer = ctx.scale(8, 16);
    int delayMs = ctx.scale(20, 40);
    int rounds = ctx.scale(1, 3);
    int commonParallelism = ForkJoinPool.getCommonPoolParallelism();
    COMMON_POOL_PEAK.set(0);
    result.setup(String.format(Locale.ROOT,
        "%d outer items, each needing %d blocking GETs on the local server (answered after %d ms):"
            + " sequential (one call after another on one thread); CompletableFuture fan-out on the"
            + " common ForkJoinPool, named as the executor (parallelism %d here: cores − 1; given no"
            + " executor, CompletableFuture would use it only from parallelism 2, and otherwise start a"
            + " thread per task) for both levels; and fan-out on"
            + " two blocking lanes, outer (%d threads) and inner (%d threads), as the writing's two"
            + " executors. %d round(s) in alternating order after a warm-up; the median is reported."
            + " Then nested fan-out, %d outer items each fanning out %d calls and joining them: on"
            + " one blocking lane of %d threads built with failOnDeadlock() (detection time from the"
            + " moment every thread waits to the DEADLOCKED event), and on two lanes of %d threads each.",
        outer, INNER_CALLS, delayMs, commonParallelism, OUTER_THREADS, INNER_THREADS, rounds,
        2 * SMALL_LANE_THREADS, INNER_CALLS, SMALL_LANE_THREADS, SMALL_LANE_THREADS));
    HttpClient client = ctx.client();
    URI uri = ctx.server().uri("/api", delayMs);
    TaskLog log = new TaskLog();
    ctx.status("E12 warm-up");
    for (int i = 0; i < 3; i++) {
      Work.http(client, uri);
    }
    double[] seq = new double[rounds];
    double[] common = new double[rounds];
    double[] lanes = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      for (int step = 0; step < 3; step++) {
        int which = (step + r) % 3; // alternate the order between rounds
        ctx.status("E12 round " + (r + 1) + ": " + List.of("sequential", "common pool", "two lanes").get(which));
        switch (which) {
          case 0 -> seq[r] = sequential(client, uri, outer);
          case 1 -> common[r] = commonPool(client, uri, outer);
          default -> lanes[r] = twoLanes(client, uri, outer, r, log);
        }
      }
    }
    double seqMs = median(seq);
    double commonMs = median(common);
    double lanesMs = median(lanes);
    double lanesFaster = 100 * (1 - lanesMs / seqMs);
    double commonFaster = 100 * (1 - commonMs / seqMs);

    ctx.status("E12 nested fan-out, one small lane");
    Deadlock one = nested(client, uri, true, log);
    ctx.status("E12 nested fan-out, two lanes");
    Deadlock two = nested(client, uri, false, log);

    result.figure("outer_items", (long) outer);
    result.figure("inner_calls", (long) INNER_CALLS);
    result.figure("delay_ms", (long) delayMs);
    result.figure("common_pool_parallelism", (long) commonParallelism);
    result.figure("common_pool_peak_threads", (long) COMMON_POOL_PEAK.get());
    result.figure("sequential_ms", seqMs);
    result.figure("common_pool_ms", commonMs);
    result.figure("two_lanes_ms", lanesMs);
    result.figure("two_lanes_faster_percent", lanesFaster);
    result.figure("common_pool_faster_percent", commonFaster);
    result.figure("one_lane_deadlock_detected", one.detected());
    result.figure("one_lane_detect_ms", one.detected() ? one.detectMs() : -1.0);
    result.figure("one_lane_outer_completed", (long) one.completed());
    result.figure("one_lane_outer_failed_by_deadlock", (long) one.failedByDeadlock());
    result.figure("one_lane_outer_failed_otherwise", (long) one.otherFailures());
    result.figure("two_lanes_deadlock_detected", two.detected());
    result.figure("two_lanes_outer_completed", (long) two.completed());
    result.figure("two_lanes_nested_ms", two.ms());

    result.chart("E12-time", "Time to make every call: one after another, fanned out on the common pool, fanned out on two lanes (median of the rounds).",
        Charts.bars("E12: fan-out of " + outer * INNER_CALLS + " blocking calls", "ms",
            List.of("sequential", "common pool", "two lanes"),
            Charts.series("total ms", List.of(seqMs, commonMs, lanesMs))));
    result.chart("E12-nested", "Nested fan-out: outer tasks that completed and that failed because"
            + " the deadlock they formed was broken (their awaited calls failed with reason DEADLOCK).",
        Charts.stacked("E12: nested fan-out outcomes", "outer tasks",
            List.of("one lane of " + SMALL_LANE_THREADS, "two lanes of " + SMALL_LANE_THREADS),
            Charts.series("completed", List.of((double) one.completed(), (double) two.completed()),
                "failed: deadlock broken", List.of((double) one.failedByDeadlock(), (double) two.failedByDeadlock()))));

    boolean fasterMet = lanesFaster >= GOAL_FASTER_PERCENT;
    boolean detectMet = one.detected() && one.detectMs() <= GOAL_DETECT_MS;
    boolean twoMet = !two.detected() && two.completed() == 2 * SMALL_LANE_THREADS;
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("fan-out on two lanes vs sequential", "≥ 30 % faster (seed: 26.7–49.2 %)",
        String.format(Locale.ROOT, "%s ms vs %s ms: %.1f %% faster", f(lanesMs), f(seqMs), lanesFaster),
        fasterMet ? "met" : "missed: the lanes' fan-out was not 30 % faster here"));
    rows.add(List.of("fan-out on the common pool vs sequential", "(for comparison)",
        String.format(Locale.ROOT, "%s ms: %.1f %% faster", f(commonMs), commonFaster), "—"));
    rows.add(List.of("nested fan-out on one lane of " + SMALL_LANE_THREADS, "reported as a deadlock within 1 s",
        one.detected() ? "DEADLOCKED after " + f(one.detectMs()) + " ms" : "not reported",
        detectMet ? "met" : one.detected() ? "missed: reported after more than 1 s" : "missed: not reported"));
    rows.add(List.of("nested fan-out on two lanes of " + SMALL_LANE_THREADS, "no deadlock",
        String.format(Locale.ROOT, "%d of %d outer tasks completed in %s ms%s", two.completed(),
            2 * SMALL_LANE_THREADS, f(two.ms()), two.detected() ? ", DEADLOCKED reported" : ", no deadlock reported"),
        twoMet ? "met" : "missed"));
    result.table(List.of("E12 goal (issue 14)", "goal", "measured", "met?"), rows);

    boolean holds = fasterMet && detectMet && twoMet;
    String v = String.format(Locale.ROOT,
        "%d blocking calls took %s ms one after another, %s ms fanned out on the common pool (%.0f %%"
            + " faster: its parallelism is %d, but it grew to %d threads, as the pool adds a spare"
            + " for a worker that waits in CompletableFuture.join — threads nobody sized for this"
            + " work) and %s ms fanned out on two lanes (%.0f %% faster, %s the 30 %% goal). ",
        outer * INNER_CALLS, f(seqMs), f(commonMs), commonFaster, commonParallelism,
        COMMON_POOL_PEAK.get(), f(lanesMs), lanesFaster, fasterMet ? "meeting" : "missing");
    v += one.detected()
        ? String.format(Locale.ROOT, "Nested fan-out on one lane of %d threads deadlocked — every thread waited"
            + " on calls queued behind it — and lanes reported it %s ms after it formed; failOnDeadlock"
            + " failed the awaited calls, so %d outer task(s) failed instead of hanging and %d completed. ",
            SMALL_LANE_THREADS, f(one.detectMs()), one.failedByDeadlock(), one.completed())
        : "Nested fan-out on one small lane was NOT reported as a deadlock. ";
    v += twoMet
        ? String.format(Locale.ROOT, "On two lanes the same work completed in %s ms with no deadlock: the"
            + " calls wait in a lane no outer task holds.", f(two.ms()))
        : String.format(Locale.ROOT, "On two lanes, %d of %d outer tasks completed%s.", two.completed(),
            2 * SMALL_LANE_THREADS, two.detected() ? " and a deadlock was reported" : "");
    result.verdict(holds, v);
    result.tasks(log.records());
    return result;
  }

  private static double sequential(HttpClient client, URI uri, int outer) {
    long t0 = System.nanoTime();
    for (int i = 0; i < outer; i++) {
      for (int j = 0; j < INNER_CALLS; j++) {
        Work.http(client, uri);
      }
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double commonPool(HttpClient client, URI uri, int outer) throws Exception {
    long t0 = System.nanoTime();
    List<CompletableFuture<Integer>> outers = new ArrayList<>();
    for (int i = 0; i < outer; i++) {
      // The pool named: without an executor, CompletableFuture uses the common pool only when its
      // parallelism is at least 2, and otherwise starts a thread per task.
      outers.add(CompletableFuture.supplyAsync(() -> {
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int j = 0; j < INNER_CALLS; j++) {
          calls.add(CompletableFuture.supplyAsync(() -> Work.http(client, uri), ForkJoinPool.commonPool()));
        }
        int sum = calls.stream().mapToInt(CompletableFuture::join).sum();
        COMMON_POOL_PEAK.accumulateAndGet(ForkJoinPool.commonPool().getPoolSize(), Math::max);
        return sum;
      }, ForkJoinPool.commonPool()));
    }
    CompletableFuture.allOf(outers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double twoLanes(HttpClient client, URI uri, int outer, int round, TaskLog log)
      throws Exception {
    try (Lane outerLane = log.follow(Lane.blocking("e12-outer-" + (round + 1), OUTER_THREADS).daemon(true).build());
        Lane innerLane = log.follow(Lane.blocking("e12-inner-" + (round + 1), INNER_THREADS).daemon(true).build())) {
      long t0 = System.nanoTime();
      List<CompletableFuture<Integer>> outers = new ArrayList<>();
      for (int i = 0; i < outer; i++) {
        outers.add(outerLane.submit("outer", () -> {
          List<CompletableFuture<Integer>> calls = new ArrayList<>();
          for (int j = 0; j < INNER_CALLS; j++) {
            calls.add(innerLane.submit("call", () -> Work.http(client, uri)));
          }
          return calls.stream().mapToInt(CompletableFuture::join).sum();
        }));
      }
      CompletableFuture.allOf(outers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
      return (System.nanoTime() - t0) / 1e6;
    }
  }

  /**
   * Nested fan-out of {@code 2 × SMALL_LANE_THREADS} outer tasks: on one lane (outer and inner
   * tasks share it) or on two. Both lanes fail a proven deadlock, so a false alarm on two lanes
   * would show as well as a real one on one.
   */
  private static Deadlock nested(HttpClient client, URI uri, boolean oneLane, TaskLog log)
      throws Exception {
    String name = oneLane ? "e12-one-lane" : "e12-nested-outer";
    Lane outerLane = log.follow(Lane.blocking(name, SMALL_LANE_THREADS).failOnDeadlock().daemon(true).build());
    Lane innerLane = oneLane ? outerLane
        : log.follow(Lane.blocking("e12-nested-inner", SMALL_LANE_THREADS).failOnDeadlock().daemon(true).build());
    AtomicInteger waiting = new AtomicInteger();
    AtomicLong cycleFormed = new AtomicLong(-1);
    AtomicLong detectedAt = new AtomicLong(-1);
    Consumer<HealthEvent> onDeadlock = e -> {
      if (e.to() == LaneHealth.DEADLOCKED) {
        detectedAt.compareAndSet(-1, System.nanoTime());
      }
    };
    outerLane.onHealth(onDeadlock);
    innerLane.onHealth(onDeadlock);
    int outers = 2 * SMALL_LANE_THREADS;
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      for (int i = 0; i < outers; i++) {
        futures.add(outerLane.submit("outer", () -> {
          List<CompletableFuture<Integer>> calls = new ArrayList<>();
          for (int j = 0; j < INNER_CALLS; j++) {
            calls.add(innerLane.submit("call", () -> Work.http(client, uri)));
          }
          // The cycle is formed when every thread of the lane waits on a call queued behind it.
          if (waiting.incrementAndGet() == SMALL_LANE_THREADS) {
            cycleFormed.compareAndSet(-1, System.nanoTime());
          }
          return calls.stream().mapToInt(CompletableFuture::join).sum();
        }));
      }
      try {
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, x) -> null)
            .get(15, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        // Counted below: a task still running after the bound is neither completed nor failed.
      }
      double ms = (System.nanoTime() - t0) / 1e6;
      int completed = 0;
      int byDeadlock = 0;
      int other = 0;
      for (CompletableFuture<Integer> f : futures) {
        if (!f.isDone()) {
          continue;
        }
        if (!f.isCompletedExceptionally()) {
          completed++;
        } else if (causedByDeadlock(f.exceptionNow())) {
          byDeadlock++;
        } else {
          other++;
        }
      }
      boolean detected = detectedAt.get() >= 0;
      double detectMs = detected && cycleFormed.get() >= 0
          ? Math.max(0, detectedAt.get() - cycleFormed.get()) / 1e6 : -1;
      return new Deadlock(detected, detectMs, completed, byDeadlock, other, ms);
    } finally {
      outerLane.removeListener(onDeadlock);
      innerLane.removeListener(onDeadlock);
      outerLane.shutdownNow();
      innerLane.shutdownNow();
      outerLane.awaitTermination(10, TimeUnit.SECONDS);
      innerLane.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static boolean causedByDeadlock(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof LaneRejectedException r && r.reason() == TaskOutcome.DEADLOCK) {
        return true;
      }
    }
    return false;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v[v.length / 2];
  }

  static String f(double ms) {
    return Format.ms(ms);
  }
}
