package dev.lanes.lab.experiments;

import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.report.Format;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.Work;
import dev.lanes.stages.Pipeline;
import dev.lanes.stages.PipelineStats;
import dev.lanes.stages.StageStats;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * E11: the http-client scenario of the queue-wait writing (SEDA: a pool per stage). Each request
 * fetches from a downstream service (network IO), parses what it got (CPU), and stores the result
 * (network IO). Fast requests arrive at a steady rate; under load, slow requests arrive beside them
 * whose downstream answers after 1 s. Two set-ups run the same three steps as a {@link
 * Pipeline}: every stage on one shared pool, or a stage per kind — fetch on a virtual lane, parse
 * on a CPU lane, store on a blocking lane — with bounded hand-offs. The fast requests' latency is
 * measured from their planned arrival (open loop: a late submission counts against the set-up),
 * and the pipeline's own per-stage figures name the bottleneck.
 *
 * <p>Threads: the experiment's driver thread submits and waits; everything else runs on the lanes
 * and the lab's local server; every lane is closed (waiting for its tasks) before the figures are
 * read, so nothing outlives a run.
 */
public final class E11Stages implements Experiment {

  private static final int FAST_EVERY_MS = 20;
  private static final int SLOW_EVERY_MS = 50;
  private static final int FETCH_FAST_MS = 20;
  private static final int FETCH_SLOW_MS = 1_000;
  private static final int STORE_MS = 20;
  private static final int PARSE_UNITS = 2;
  private static final int SHARED_THREADS = 16;
  private static final int FETCH_CAP = 128;
  private static final int STORE_THREADS = 8;
  private static final double GOAL_RATIO = 1.5;
  private static final List<String> STAGES = List.of("fetch", "parse", "store");

  /** One request: which kind, and when it was planned to arrive. */
  private record Request(int id, boolean slow, long plannedNanos) {}

  /** One run of one set-up: fast and slow latencies (ms from planned arrival), the pipeline's figures. */
  private record Run(List<Double> fastMs, List<Double> slowMs, long notCompleted, PipelineStats stats) {}

  @Override
  public String id() {
    return "E11";
  }

  @Override
  public String question() {
    return "Stages: one shared pool or a stage per kind (IO → CPU → IO) under a slow downstream, and which stage is the bottleneck?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    double seconds = ctx.quick() ? 1.5 : 3;
    int rounds = ctx.scale(1, 3);
    result.setup(String.format(Locale.ROOT,
        "Each request runs three stages: fetch (GET on the local server: %d ms for a fast request,"
            + " %,d ms for a slow one — the slow downstream), parse (CPU, ~%d ms) and store (GET, %d"
            + " ms). Fast requests arrive every %d ms for %.1f s; under load, slow requests also"
            + " arrive every %d ms. Shared pool: the three stages on one blocking lane of %d threads"
            + " (a pipeline whose stages share it). Stage per kind: fetch on a virtual lane of at most"
            + " %d, parse on a CPU lane of %d (= cores), store on a blocking lane of %d, the two later"
            + " ones blocking the stage before them when full (bounded hand-offs). Latency runs from a"
            + " request's planned arrival to its end. After a short warm-up of each set-up, %d rounds"
            + " run each set-up unloaded (fast requests only) then loaded, alternating which set-up"
            + " goes first; a p99 below is the median of the rounds' p99s (one stall of this shared"
            + " machine then spoils one round, not the result). Per-stage queue wait and run come from"
            + " the lanes' task records (charts: the last round), and the pipeline names its"
            + " bottleneck from them in every round.",
        FETCH_FAST_MS, FETCH_SLOW_MS, PARSE_UNITS, STORE_MS, FAST_EVERY_MS, seconds, SLOW_EVERY_MS,
        SHARED_THREADS, FETCH_CAP, ctx.cores(), STORE_THREADS, rounds));
    TaskLog log = new TaskLog();
    ctx.status("E11 warm-up");
    runOnce(ctx, false, "warmup-shared", false, 0.5, new TaskLog());
    runOnce(ctx, true, "warmup-stages", false, 0.5, new TaskLog());
    List<Run> sharedIdleRuns = new ArrayList<>();
    List<Run> sharedLoadedRuns = new ArrayList<>();
    List<Run> stagesIdleRuns = new ArrayList<>();
    List<Run> stagesLoadedRuns = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      for (boolean perKind : r % 2 == 1 ? List.of(false, true) : List.of(true, false)) {
        String v = perKind ? "stages" : "shared";
        ctx.status("E11 round " + r + ": " + v + ", unloaded");
        (perKind ? stagesIdleRuns : sharedIdleRuns).add(runOnce(ctx, perKind, v + "-unloaded-r" + r, false, seconds, log));
        ctx.status("E11 round " + r + ": " + v + ", loaded");
        (perKind ? stagesLoadedRuns : sharedLoadedRuns).add(runOnce(ctx, perKind, v + "-loaded-r" + r, true, seconds, log));
      }
    }
    Run sharedIdle = pooled(sharedIdleRuns);
    Run sharedLoaded = pooled(sharedLoadedRuns);
    Run stagesIdle = pooled(stagesIdleRuns);
    Run stagesLoaded = pooled(stagesLoadedRuns);
    double sharedIdleP99 = medianP99(sharedIdleRuns);
    double sharedLoadedP99 = medianP99(sharedLoadedRuns);
    double stagesIdleP99 = medianP99(stagesIdleRuns);
    double stagesLoadedP99 = medianP99(stagesLoadedRuns);
    double sharedRatio = sharedLoadedP99 / Math.max(sharedIdleP99, 0.001);
    double stagesRatio = stagesLoadedP99 / Math.max(stagesIdleP99, 0.001);
    long namedFetch = stagesLoadedRuns.stream()
        .filter(run -> run.stats().bottleneck().stage().orElse("none").equals("fetch")).count();
    String named = stagesLoaded.stats().bottleneck().stage().orElse("none");
    String sharedNamed = sharedLoaded.stats().bottleneck().stage().orElse("none");
    long notCompleted = sharedIdle.notCompleted() + sharedLoaded.notCompleted()
        + stagesIdle.notCompleted() + stagesLoaded.notCompleted();

    result.figure("fast_requests", (long) sharedLoaded.fastMs().size());
    result.figure("slow_requests", (long) sharedLoaded.slowMs().size());
    result.figure("shared_fast_p99_unloaded_ms", sharedIdleP99);
    result.figure("shared_fast_p99_loaded_ms", sharedLoadedP99);
    result.figure("shared_fast_p99_ratio", sharedRatio);
    result.figure("stages_fast_p99_unloaded_ms", stagesIdleP99);
    result.figure("stages_fast_p99_loaded_ms", stagesLoadedP99);
    result.figure("stages_fast_p99_ratio", stagesRatio);
    result.figure("shared_fast_p50_loaded_ms", Percentiles.of(sharedLoaded.fastMs(), 50));
    result.figure("stages_fast_p50_loaded_ms", Percentiles.of(stagesLoaded.fastMs(), 50));
    result.figure("shared_slow_p99_loaded_ms", Percentiles.of(sharedLoaded.slowMs(), 99));
    result.figure("stages_slow_p99_loaded_ms", Percentiles.of(stagesLoaded.slowMs(), 99));
    result.figure("rounds", (long) rounds);
    result.figure("stages_bottleneck_is_fetch", namedFetch == rounds);
    result.figure("stages_rounds_naming_fetch", namedFetch);
    result.figure("shared_bottleneck_is_fetch", sharedNamed.equals("fetch"));
    result.figure("requests_not_completed", notCompleted);
    List<Double> sharedWait = new ArrayList<>();
    List<Double> stagesWait = new ArrayList<>();
    List<Double> sharedRun = new ArrayList<>();
    List<Double> stagesRun = new ArrayList<>();
    for (String stage : STAGES) {
      StageStats sh = sharedLoaded.stats().stage(stage);
      StageStats st = stagesLoaded.stats().stage(stage);
      sharedWait.add(sh.queueWait().p99Millis());
      stagesWait.add(st.queueWait().p99Millis());
      sharedRun.add(sh.run().p99Millis());
      stagesRun.add(st.run().p99Millis());
      result.figure("shared_" + stage + "_wait_p99_ms", sh.queueWait().p99Millis());
      result.figure("shared_" + stage + "_run_p99_ms", sh.run().p99Millis());
      result.figure("stages_" + stage + "_wait_p99_ms", st.queueWait().p99Millis());
      result.figure("stages_" + stage + "_run_p99_ms", st.run().p99Millis());
      result.figure("stages_" + stage + "_handoff_mean_ms", st.handoff().meanMillis());
    }

    result.chart("E11-fast", "Fast requests' latency from planned arrival, p50 (all rounds) and p99"
            + " (median of the rounds'): each set-up unloaded and beside slow requests (log scale).",
        Charts.barsLog("E11: fast requests' latency", "ms",
            List.of("shared, unloaded", "shared, loaded", "stages, unloaded", "stages, loaded"),
            Charts.series(
                "p50", List.of(Percentiles.of(sharedIdle.fastMs(), 50), Percentiles.of(sharedLoaded.fastMs(), 50),
                    Percentiles.of(stagesIdle.fastMs(), 50), Percentiles.of(stagesLoaded.fastMs(), 50)),
                "p99", List.of(sharedIdleP99, sharedLoadedP99, stagesIdleP99, stagesLoadedP99))));
    result.chart("E11-wait", "Queue wait p99 per stage under load (every request): on the shared pool"
            + " every stage waits for the same 16 threads; with a stage per kind, each waits only for its own lane (log scale).",
        Charts.barsLog("E11: queue wait p99 per stage, loaded", "ms", STAGES,
            Charts.series("shared pool", sharedWait, "stage per kind", stagesWait)));
    result.chart("E11-run", "Run time p99 per stage under load: fetch runs as long as the slow downstream takes,"
            + " whatever the set-up — the slow stage.",
        Charts.barsLog("E11: run time p99 per stage, loaded", "ms", STAGES,
            Charts.series("shared pool", sharedRun, "stage per kind", stagesRun)));

    boolean stagesMet = stagesRatio <= GOAL_RATIO;
    boolean sharedNotWithin = sharedRatio > GOAL_RATIO;
    boolean namedSlow = namedFetch == rounds;
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("stage per kind: fast p99 under load", "≤ 1.5× unloaded",
        String.format(Locale.ROOT, "%s ms vs %s ms unloaded (%.2f×)", f(stagesLoadedP99), f(stagesIdleP99), stagesRatio),
        stagesMet ? "met" : "missed: the fast requests waited longer beside the slow ones"));
    rows.add(List.of("shared pool: fast p99 under load", "not within 1.5× unloaded",
        String.format(Locale.ROOT, "%s ms vs %s ms unloaded (%.1f×)", f(sharedLoadedP99), f(sharedIdleP99), sharedRatio),
        sharedNotWithin ? "met" : "missed: the shared pool was not slowed by the slow downstream on this run"));
    rows.add(List.of("the named bottleneck", "the slow stage (fetch)",
        String.format(Locale.ROOT, "fetch in %d of %d rounds (last round: %s, %s)", namedFetch, rounds, named,
            stagesLoaded.stats().bottleneck().reason().name().toLowerCase(Locale.ROOT).replace('_', ' ')),
        namedSlow ? "met" : "missed: a round named another stage"));
    result.table(List.of("E11 goal (issue 14)", "goal", "measured", "met?"), rows);

    boolean holds = stagesMet && sharedNotWithin && namedSlow && notCompleted == 0;
    String v = String.format(Locale.ROOT,
        "Beside slow requests, the fast requests' p99 (median of the rounds) went from %s to %s ms (%.1f×) on the shared pool of"
            + " %d threads — they queued behind requests whose threads were held by the slow"
            + " downstream — and from %s to %s ms (%.2f×) with a stage per kind%s. ",
        f(sharedIdleP99), f(sharedLoadedP99), sharedRatio, SHARED_THREADS, f(stagesIdleP99),
        f(stagesLoadedP99), stagesRatio, stagesMet ? ", within the 1.5× goal" : ", above the 1.5× goal");
    v += String.format(Locale.ROOT, "The stage-per-kind pipeline named fetch its bottleneck in %d of %d rounds;"
        + " in the last, ", namedFetch, rounds) + named + ": " + stagesLoaded.stats().bottleneck().explanation()
        + " Shared pool, last round, bottleneck " + sharedNamed + ": " + sharedLoaded.stats().bottleneck().explanation();
    if (notCompleted > 0) {
      v += String.format(Locale.ROOT, " %d request(s) did not complete (failed or rejected at a stage),"
          + " so this run does not show the claim cleanly.", notCompleted);
    }
    result.verdict(holds, v);
    result.tasks(log.records());
    return result;
  }

  /** The rounds' latencies together; the figures of the last round. */
  private static Run pooled(List<Run> runs) {
    List<Double> fast = new ArrayList<>();
    List<Double> slow = new ArrayList<>();
    long notCompleted = 0;
    for (Run r : runs) {
      fast.addAll(r.fastMs());
      slow.addAll(r.slowMs());
      notCompleted += r.notCompleted();
    }
    return new Run(fast, slow, notCompleted, runs.get(runs.size() - 1).stats());
  }

  private static double medianP99(List<Run> runs) {
    double[] p99 = runs.stream().mapToDouble(r -> Percentiles.of(r.fastMs(), 99)).sorted().toArray();
    return p99[p99.length / 2];
  }

  private static Run runOnce(LabContext ctx, boolean perKind, String phase, boolean loaded,
      double seconds, TaskLog log) throws Exception {
    HttpClient client = ctx.client();
    URI fastFetch = ctx.server().uri("/fetch", FETCH_FAST_MS);
    URI slowFetch = ctx.server().uri("/fetch", FETCH_SLOW_MS);
    URI store = ctx.server().uri("/store", STORE_MS);
    long seed = ctx.seed();
    Function<Request, Request> fetch = r -> {
      Work.http(client, r.slow() ? slowFetch : fastFetch);
      return r;
    };
    Function<Request, Request> parse = r -> {
      Work.cpu(PARSE_UNITS, seed + r.id());
      return r;
    };
    Function<Request, Request> save = r -> {
      Work.http(client, store);
      return r;
    };
    List<Lane> lanes = new ArrayList<>();
    Pipeline<Request, Request> pipeline;
    if (perKind) {
      Duration hold = Duration.ofSeconds(30);
      Lane io = log.follow(Lane.virtual("e11-" + phase + "-fetch", FETCH_CAP).queueCapacity(5_000).build());
      Lane cpu = log.follow(Lane.cpu("e11-" + phase + "-parse").concurrency(ctx.cores()).queueCapacity(500)
          .overflow(OverflowPolicy.blockCaller(hold)).cpuTimeEveryTask().daemon(true).build());
      Lane db = log.follow(Lane.blocking("e11-" + phase + "-store", STORE_THREADS).queueCapacity(500)
          .overflow(OverflowPolicy.blockCaller(hold)).cpuTimeEveryTask().daemon(true).build());
      lanes.addAll(List.of(io, cpu, db));
      pipeline = Pipeline.<Request>builder("e11-" + phase).stage("fetch", io, fetch)
          .stage("parse", cpu, parse).stage("store", db, save).build();
    } else {
      Lane pool = log.follow(Lane.blocking("e11-" + phase + "-pool", SHARED_THREADS).queueCapacity(5_000)
          .cpuTimeEveryTask().daemon(true).build());
      lanes.add(pool);
      pipeline = Pipeline.<Request>builder("e11-" + phase).stage("fetch", pool, fetch)
          .stage("parse", pool, parse).stage("store", pool, save).build();
    }
    ConcurrentLinkedQueue<Double> fastMs = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Double> slowMs = new ConcurrentLinkedQueue<>();
    AtomicLong notCompleted = new AtomicLong();
    List<CompletableFuture<Request>> futures = new ArrayList<>();
    PipelineStats stats;
    try {
      int fastCount = (int) Math.round(seconds * 1000 / FAST_EVERY_MS);
      int slowCount = loaded ? (int) Math.round(seconds * 1000 / SLOW_EVERY_MS) : 0;
      long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
      int nextFast = 0;
      int nextSlow = 0;
      int id = 0;
      while (nextFast < fastCount || nextSlow < slowCount) {
        long fastAt = nextFast < fastCount ? start + TimeUnit.MILLISECONDS.toNanos((long) nextFast * FAST_EVERY_MS) : Long.MAX_VALUE;
        long slowAt = nextSlow < slowCount ? start + TimeUnit.MILLISECONDS.toNanos((long) nextSlow * SLOW_EVERY_MS) : Long.MAX_VALUE;
        boolean slow = slowAt < fastAt;
        long at = slow ? slowAt : fastAt;
        long now;
        while ((now = System.nanoTime()) < at) {
          LockSupport.parkNanos(at - now);
        }
        Request r = new Request(id++, slow, at);
        if (slow) {
          nextSlow++;
        } else {
          nextFast++;
        }
        // Wait on the recording stage, so every latency is in the lists when all are done.
        CompletableFuture<Request> f = pipeline.submit(r).whenComplete((done, failure) -> {
          if (failure != null) {
            notCompleted.incrementAndGet();
            return;
          }
          (r.slow() ? slowMs : fastMs).add((System.nanoTime() - r.plannedNanos()) / 1e6);
        });
        futures.add(f);
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, x) -> null)
          .get(120, TimeUnit.SECONDS);
    } finally {
      lanes.forEach(Lane::close); // waits for every task, so every task record has arrived
      stats = pipeline.stats();
      pipeline.close();
    }
    return new Run(new ArrayList<>(fastMs), new ArrayList<>(slowMs), notCompleted.get(), stats);
  }

  static String f(double ms) {
    return Format.ms(ms);
  }
}
