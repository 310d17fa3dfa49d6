package dev.lanes.lab.experiments;

import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.Work;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * E4: 20 tasks submitted at once to an executor with room for 14 (4 threads + a queue of 10),
 * under each overflow policy: the JDK's four {@link ThreadPoolExecutor} handlers (core 2, max 4)
 * and lanes' policies on a 4-thread lane. Records which task ran on which thread, which were
 * refused with an exception, and which vanished without one.
 */
public final class E4OverflowPolicies implements Experiment {

  private static final int TASKS = 20;
  private static final int QUEUE = 10;

  private record Outcome(String policy, int ranOnPool, int ranOnCaller, int refused, int dropped,
      long counted, double submitMs, TreeSet<Integer> lost, int poolThreads) {

    /** Dropped tasks the executor counted (lanes counts each drop as a rejection; the JDK counts none). */
    int droppedCounted() {
      return counted < 0 ? 0 : (int) Math.max(0, Math.min(dropped, counted - refused));
    }

    /** Dropped tasks nobody counted: gone without an exception or a count. */
    int droppedSilently() {
      return dropped - droppedCounted();
    }
  }

  @Override
  public String id() {
    return "E4";
  }

  @Override
  public String question() {
    return "What does each overflow policy do?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    int taskMs = 150;
    result.setup(String.format(Locale.ROOT,
        "%d tasks of %d ms (a sleep) submitted at once from one thread. JDK: ThreadPoolExecutor with"
            + " core 2, max 4, an ArrayBlockingQueue of %d and each of its four rejection handlers"
            + " (abort, caller-runs, discard, discard-oldest). lanes: a blocking lane of 4 threads,"
            + " queue %d, with reject, caller-runs, discard-oldest and block-with-timeout (2 s)."
            + " A task is 'dropped' when it never ran and its submitter got no exception.",
        TASKS, taskMs, QUEUE, QUEUE));
    TaskLog log = new TaskLog();
    List<Outcome> outcomes = new ArrayList<>();
    Map<String, RejectedExecutionHandler> jdk = new java.util.LinkedHashMap<>();
    jdk.put("abort", new ThreadPoolExecutor.AbortPolicy());
    jdk.put("caller-runs", new ThreadPoolExecutor.CallerRunsPolicy());
    jdk.put("discard", new ThreadPoolExecutor.DiscardPolicy());
    jdk.put("discard-oldest", new ThreadPoolExecutor.DiscardOldestPolicy());
    for (Map.Entry<String, RejectedExecutionHandler> e : jdk.entrySet()) {
      ctx.status("E4 jdk " + e.getKey());
      ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 4, 30, TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(QUEUE), Thread.ofPlatform().daemon(true).name("e4-jdk-", 1).factory(),
          e.getValue());
      outcomes.add(submitAll("jdk " + e.getKey(), pool, taskMs, -1));
    }
    Map<String, OverflowPolicy> ours = new java.util.LinkedHashMap<>();
    ours.put("reject", OverflowPolicy.reject());
    ours.put("caller-runs", OverflowPolicy.callerRuns());
    ours.put("discard-oldest", OverflowPolicy.discardOldest());
    ours.put("block-with-timeout", OverflowPolicy.blockCaller(Duration.ofSeconds(2)));
    // A task given to execute() that lanes drops reaches the lane's exception handler: count
    // those here (the figure below) instead of printing a stack trace per drop; anything else
    // the handler gets is printed.
    java.util.concurrent.atomic.AtomicInteger dropsToHandler = new java.util.concurrent.atomic.AtomicInteger();
    Thread.UncaughtExceptionHandler handler = (thread, ex) -> {
      if (ex instanceof RejectedExecutionException) {
        dropsToHandler.incrementAndGet();
      } else {
        ex.printStackTrace();
      }
    };
    for (Map.Entry<String, OverflowPolicy> e : ours.entrySet()) {
      ctx.status("E4 lanes " + e.getKey());
      dropsToHandler.set(0);
      Lane lane = log.follow(Lane.blocking("e4-" + e.getKey(), 4).queueCapacity(QUEUE)
          .overflow(e.getValue()).cpuTimeEveryTask().daemon(true)
          .exceptionHandler(handler).build());
      outcomes.add(submitAll("lanes " + e.getKey(), lane, taskMs, 0));
      if (e.getKey().equals("discard-oldest")) {
        result.figure("lanes_discard_oldest_drops_to_handler", (long) dropsToHandler.get());
      }
    }

    List<List<String>> rows = new ArrayList<>();
    for (Outcome o : outcomes) {
      String n = o.policy().replace(' ', '_').replace('-', '_');
      result.figure(n + "_ran_on_pool", (long) o.ranOnPool());
      result.figure(n + "_ran_on_caller", (long) o.ranOnCaller());
      result.figure(n + "_refused", (long) o.refused());
      result.figure(n + "_dropped_silently", (long) o.droppedSilently());
      result.figure(n + "_dropped_counted", (long) o.droppedCounted());
      result.figure(n + "_submit_ms", o.submitMs());
      if (o.counted() >= 0) {
        result.figure(n + "_counted_rejections", o.counted());
      }
      rows.add(List.of(o.policy(), Integer.toString(o.ranOnPool()), Integer.toString(o.ranOnCaller()),
          Integer.toString(o.refused()), Integer.toString(o.droppedSilently()), Integer.toString(o.droppedCounted()),
          o.counted() < 0 ? "not counted" : Long.toString(o.counted()),
          E1PoolOrThreadPerTask.fmt(o.submitMs()), o.lost().isEmpty() ? "–" : o.lost().toString(),
          Integer.toString(o.poolThreads())));
    }
    result.table(List.of("policy", "ran on pool", "ran on caller", "refused (exception)",
        "dropped silently", "dropped and counted", "executor's rejection count", "submitting took ms", "tasks that never ran",
        "pool threads used"), rows);
    List<String> cats = outcomes.stream().map(Outcome::policy).toList();
    result.chart("E4-outcomes", "What happened to the 20 tasks under each policy.",
        Charts.stacked("E4: fate of 20 tasks (room for 14)", "tasks", cats, Charts.series(
            "ran on a pool thread", outcomes.stream().map(o -> (double) o.ranOnPool()).toList(),
            "ran on the caller", outcomes.stream().map(o -> (double) o.ranOnCaller()).toList(),
            "refused with exception", outcomes.stream().map(o -> (double) o.refused()).toList(),
            "dropped silently", outcomes.stream().map(o -> (double) o.droppedSilently()).toList(),
            "dropped, counted", outcomes.stream().map(o -> (double) o.droppedCounted()).toList())));

    Outcome abort = outcomes.get(0);
    Outcome callerRuns = outcomes.get(1);
    Outcome discard = outcomes.get(2);
    Outcome discardOldest = outcomes.get(3);
    Outcome lanesDiscardOldest = outcomes.get(6);
    Outcome block = outcomes.get(7);
    boolean abortOk = abort.refused() > 0 && abort.dropped() == 0;
    boolean callerOk = callerRuns.ranOnCaller() > 0 && callerRuns.lost().isEmpty();
    boolean discardSilent = discard.dropped() > 0 && discard.refused() == 0;
    boolean oldestSilent = discardOldest.dropped() > 0 && discardOldest.refused() == 0;
    boolean lanesCounts = lanesDiscardOldest.counted() == lanesDiscardOldest.dropped()
        + lanesDiscardOldest.refused();
    boolean blockAll = block.lost().isEmpty() && block.ranOnCaller() == 0;
    String v = String.format(Locale.ROOT,
        "With room for 14 of 20: abort ran %d and refused %d with an exception; caller-runs lost"
            + " %d, and ran %d on the submitting thread (submitting took %s ms instead of"
            + " %s ms); discard silently lost %d and discard-oldest silently lost %d (tasks %s), and"
            + " the JDK pool counts neither. lanes' discard-oldest dropped %d, not silently: the"
            + " lane counted %d rejections and handed %d dropped tasks to its exception handler;"
            + " lanes' block-with-timeout ran %d of 20 on its 4 threads with %d refused,"
            + " by making the submitter wait %s ms. ",
        abort.ranOnPool(), abort.refused(), callerRuns.lost().size(), callerRuns.ranOnCaller(),
        E1PoolOrThreadPerTask.fmt(callerRuns.submitMs()), E1PoolOrThreadPerTask.fmt(abort.submitMs()),
        discard.dropped(), discardOldest.dropped(), discardOldest.lost(), lanesDiscardOldest.dropped(),
        lanesDiscardOldest.counted(), ((Long) result.figures().get("lanes_discard_oldest_drops_to_handler")),
        block.ranOnPool(), block.refused(),
        E1PoolOrThreadPerTask.fmt(block.submitMs()));
    boolean holds = abortOk && callerOk && discardSilent && oldestSilent && lanesCounts && blockAll;
    v += holds ? "Every policy did what its documentation says."
        : "Not every policy behaved as documented here: abort " + abortOk + ", caller-runs "
            + callerOk + ", discard silent " + discardSilent + ", discard-oldest silent "
            + oldestSilent + ", lanes counts drops " + lanesCounts + ", block ran all " + blockAll + ".";
    result.verdict(holds, v);
    result.tasks(log.records());
    return result;
  }

  /**
   * Submits {@link #TASKS} tasks, waits for the executor to finish, and sorts each task into ran
   * on pool / ran on caller / refused / dropped. {@code counted} is -1 for the JDK pool, which
   * has no count of refusals, else replaced by the lane's own rejection count.
   */
  private static Outcome submitAll(String policy, ExecutorService executor, int taskMs, long counted)
      throws InterruptedException {
    String caller = Thread.currentThread().getName();
    Map<Integer, String> ranOn = new ConcurrentHashMap<>();
    int refused = 0;
    long t0 = System.nanoTime();
    for (int i = 1; i <= TASKS; i++) {
      int id = i;
      try {
        executor.execute(() -> {
          ranOn.put(id, Thread.currentThread().getName());
          Work.pause(taskMs);
        });
      } catch (RejectedExecutionException e) {
        refused++;
      }
    }
    double submitMs = (System.nanoTime() - t0) / 1e6;
    executor.shutdown();
    if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
      executor.shutdownNow();
      throw new IllegalStateException(policy + ": tasks did not finish within 30 s");
    }
    long laneCount = counted;
    if (executor instanceof Lane lane) {
      laneCount = lane.stats().rejected();
    }
    int onCaller = (int) ranOn.values().stream().filter(caller::equals).count();
    int onPool = ranOn.size() - onCaller;
    TreeSet<Integer> lost = new TreeSet<>();
    for (int i = 1; i <= TASKS; i++) {
      if (!ranOn.containsKey(i)) {
        lost.add(i);
      }
    }
    int threads = (int) ranOn.values().stream().filter(t -> !t.equals(caller)).distinct().count();
    return new Outcome(policy, onPool, onCaller, refused, lost.size() - refused, laneCount, submitMs,
        lost, threads);
  }
}
