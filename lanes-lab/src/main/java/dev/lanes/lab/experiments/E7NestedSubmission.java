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
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * E7: the nested-submission starvation deadlock in the four shapes of the source writing: a task
 * that submits a child to its own pool and waits for it, through {@code submit(..).get()} and
 * through {@code CompletableFuture.runAsync(.., pool).join()}, on one thread and on nine (nine
 * parents, each holding a thread before any child exists). A plain fixed pool is shown hung (its
 * parents have not finished after a bounded timeout; {@code submit/get} shapes). A lane built with
 * {@link dev.lanes.LaneBuilder#failOnDeadlock()} should report each: proven (a DEADLOCKED event,
 * and the awaited children fail with a {@link LaneRejectedException} whose reason is {@link
 * TaskOutcome#DEADLOCK}) where lanes can read what every worker waits on — always through lanes'
 * own futures, through the JDK's only with {@code java.util.concurrent} open to lanes — and
 * otherwise suspected (an event whose figures hold {@code suspectedDeadlock}; nothing is failed).
 * Detection time runs from the moment the cycle formed: when the last parent began waiting. Then
 * the busy shapes that are no deadlock (workers joining another executor's slow future, a timed
 * child wait, waits on a slow lane, sleepers) run with the same policy; none may raise either
 * event.
 *
 * <p>Threads: parents and children run on the pool's or lane's daemon threads; the experiment
 * cancels every child it made (which ends a parent's {@code join}, which no interrupt ends), then
 * shuts every pool and lane down with {@code shutdownNow} and awaits it with a bound, so nothing
 * outlives the experiment even if a detector never fires.
 */
public final class E7NestedSubmission implements Experiment {

  private record Shape(String name, String api, int threads) {
    boolean viaJdkFuture() {
      return api.equals("runAsync-join");
    }
  }

  private record Detection(boolean proven, boolean suspected, double detectMs, boolean waitsFailed,
      String diagnostic) {
    boolean detected() {
      return proven || suspected;
    }
  }

  @Override
  public String id() {
    return "E7";
  }

  @Override
  public String question() {
    return "Nested submission: do the 1-thread and 9-thread starvation deadlocks hang a pool, and does lanes detect them?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    long hangBoundMs = ctx.scale(1_000, 3_000);
    long detectBoundMs = ctx.scale(4_000, 8_000);
    long busyMs = ctx.scale(600, 1_500);
    boolean opens = Object.class.getModule().isOpen("java.util.concurrent", Lane.class.getModule());
    result.setup(String.format(Locale.ROOT,
        "Each parent task submits a child task to its own executor and waits for it, with no"
            + " timeout (the child sleeps 100 ms), through submit(..).get() or"
            + " CompletableFuture.runAsync(.., executor).join(). Shapes: 1 thread / 1 parent, and"
            + " 9 threads / 9 parents (all nine hold a thread before any child is queued)."
            + " Plain pool (submit/get shapes): Executors.newFixedThreadPool, called hung if no"
            + " parent finished within %,d ms. lanes: a blocking lane built with failOnDeadlock();"
            + " detected means a DEADLOCKED event (proven: every worker waits, with no timeout, on a"
            + " task queued behind it) or an event whose figures hold suspectedDeadlock (where"
            + " lanes cannot read which JDK future a worker waits on); detection time runs from the"
            + " moment the last parent began waiting, bounded at %,d ms. This JVM %s"
            + " java.util.concurrent open to lanes, so runAsync/join cycles can be %s. False-alarm"
            + " shapes (each %,d ms, same policy): 2 workers join another executor's slow future"
            + " with tasks queued behind; a 1-thread parent waits for its runAsync child with a"
            + " timeout and a fallback; 2 workers join children on a busy 1-thread lane; 2 workers"
            + " sleep with 6 tasks queued.",
        hangBoundMs, detectBoundMs, opens ? "has" : "does not have",
        opens ? "proven" : "suspected only", busyMs));
    TaskLog log = new TaskLog();
    List<Shape> shapes = List.of(new Shape("1_thread", "submit-get", 1),
        new Shape("9_threads", "submit-get", 9), new Shape("runasync_1_thread", "runAsync-join", 1),
        new Shape("runasync_9_threads", "runAsync-join", 9));
    List<Boolean> hung = new ArrayList<>();
    List<Detection> detections = new ArrayList<>();
    for (Shape s : shapes) {
      if (!s.viaJdkFuture()) {
        ctx.status("E7 plain pool " + s.threads());
        hung.add(plainPoolHangs(s.threads(), hangBoundMs));
      }
      ctx.status("E7 lanes " + s.name());
      detections.add(laneDetects(s, detectBoundMs, log));
    }
    ctx.status("E7 false alarms");
    List<String> alarms = falseAlarms(busyMs, log);
    boolean plainHung = hung.get(0) && hung.get(1);
    result.figure("plain_pool_hung", plainHung);
    result.figure("plain_pool_hung_1_thread", hung.get(0));
    result.figure("plain_pool_hung_9_threads", hung.get(1));
    result.figure("opens", opens);
    List<List<String>> rows = new ArrayList<>();
    boolean asExpected = true;
    for (int i = 0; i < shapes.size(); i++) {
      Detection d = detections.get(i);
      Shape s = shapes.get(i);
      String n = s.name();
      // Provable here: through lanes' futures always, through the JDK's only with the opens.
      boolean provable = !s.viaJdkFuture() || opens;
      asExpected &= provable ? d.proven() && d.waitsFailed() : d.suspected() && !d.proven();
      result.figure("detected_" + n, d.detected());
      result.figure("proven_" + n, d.proven());
      result.figure("suspected_" + n, d.suspected());
      result.figure("detect_ms_" + n, d.detected() ? d.detectMs() : -1.0);
      result.figure("waits_failed_" + n, d.waitsFailed());
      rows.add(List.of(s.threads() + (s.threads() == 1 ? " thread, " : " threads, ") + s.api(),
          s.viaJdkFuture() ? "not run (same cycle as submit/get)"
              : hung.get(s.threads() == 1 ? 0 : 1) ? "hung (bounded at " + hangBoundMs + " ms)"
                  : "finished",
          d.proven() ? "DEADLOCKED after " + E1PoolOrThreadPerTask.fmt(d.detectMs()) + " ms"
              : d.suspected() ? "suspected after " + E1PoolOrThreadPerTask.fmt(d.detectMs()) + " ms"
                  : "not detected within " + detectBoundMs + " ms",
          d.waitsFailed() ? "yes (LaneRejectedException, reason DEADLOCK)" : "no"));
    }
    result.figure("false_alarms", alarms.size());
    result.table(List.of("shape", "plain fixed pool", "lanes (failOnDeadlock)", "waiting parents released"), rows);
    result.chart("E7-detect", "Time from the deadlock forming to lanes reporting it, proven or suspected (-1: not detected within the bound).",
        Charts.bars("E7: deadlock detection time", "ms",
            shapes.stream().map(s -> s.threads() + " thr " + s.api()).toList(), Charts.series(
                "detection ms", detections.stream().map(d -> d.detected() ? d.detectMs() : -1.0).toList())));

    boolean holds = plainHung && asExpected && alarms.isEmpty();
    StringBuilder v = new StringBuilder();
    v.append(plainHung
        ? String.format(Locale.ROOT, "The plain fixed pool hung in both submit/get shapes (no parent finished within %,d ms). ", hangBoundMs)
        : "The plain pool did not hang in every shape (1 thread: " + hung.get(0) + ", 9 threads: "
            + hung.get(1) + "), which is unexpected. ");
    for (int i = 0; i < shapes.size(); i++) {
      Detection d = detections.get(i);
      Shape s = shapes.get(i);
      String shape = s.threads() + "-thread " + s.api();
      if (d.proven()) {
        v.append(String.format(Locale.ROOT, "lanes proved the %s deadlock %s ms after it formed%s. ",
            shape, E1PoolOrThreadPerTask.fmt(d.detectMs()),
            d.waitsFailed() ? " and failed the waiting parents instead of hanging"
                : " but the waiting parents were not released within 2 s"));
      } else if (d.suspected()) {
        v.append(String.format(Locale.ROOT, "lanes reported the %s deadlock as suspected %s ms after"
            + " it formed (%s; nothing was failed on a suspicion). ", shape,
            E1PoolOrThreadPerTask.fmt(d.detectMs()),
            opens ? "although java.util.concurrent is open, which is unexpected"
                : "java.util.concurrent is not open to lanes in this JVM, so it cannot be proven"));
      } else {
        v.append(String.format(Locale.ROOT, "lanes did NOT report the %s deadlock within %,d ms"
            + " (no DEADLOCKED or suspected-deadlock event). ", shape, detectBoundMs));
      }
    }
    v.append(alarms.isEmpty()
        ? "None of the 4 busy shapes that are no deadlock raised a deadlock or a suspicion."
        : "False alarms in busy shapes that are no deadlock: " + String.join(", ", alarms) + ".");
    result.verdict(holds, v.toString().trim());
    result.tasks(log.records());
    return result;
  }

  /** True if no parent finished within the bound. Cleans up with shutdownNow either way. */
  private static boolean plainPoolHangs(int threads, long boundMs) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads,
        Thread.ofPlatform().daemon(true).name("e7-plain-", 1).factory());
    try {
      CountDownLatch allParents = new CountDownLatch(threads);
      List<Future<?>> parents = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        parents.add(pool.submit(() -> {
          allParents.countDown();
          allParents.await(); // every thread holds a parent before any child exists
          Future<?> child = pool.submit(() -> Work.pause(100));
          return child.get(); // interruptible, so shutdownNow can free it
        }));
      }
      try {
        parents.get(0).get(boundMs, TimeUnit.MILLISECONDS);
        return false;
      } catch (TimeoutException e) {
        return true;
      } catch (ExecutionException e) {
        return false;
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Detection laneDetects(Shape s, long boundMs, TaskLog log)
      throws InterruptedException {
    Lane lane = log.follow(Lane.blocking("e7-" + s.name().replace('_', '-'), s.threads())
        .failOnDeadlock().cpuTimeEveryTask().daemon(true).build());
    AtomicLong lastWaitStarted = new AtomicLong();
    AtomicLong detectedAt = new AtomicLong(-1);
    AtomicInteger kind = new AtomicInteger(); // 1 proven, 2 suspected
    CountDownLatch detected = new CountDownLatch(1);
    StringBuilder diagnostic = new StringBuilder();
    Consumer<HealthEvent> onDeadlock = e -> {
      int k = e.to() == LaneHealth.DEADLOCKED ? 1
          : e.figures().containsKey("suspectedDeadlock") ? 2 : 0;
      if (k != 0 && detectedAt.compareAndSet(-1, System.nanoTime())) {
        kind.set(k);
        synchronized (diagnostic) {
          diagnostic.append(e.diagnostic());
        }
        detected.countDown();
      }
    };
    lane.onHealth(onDeadlock);
    CountDownLatch allParents = new CountDownLatch(s.threads());
    CountDownLatch allWaiting = new CountDownLatch(s.threads());
    List<CompletableFuture<?>> children = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Object>> parents = new ArrayList<>();
    try {
      for (int i = 0; i < s.threads(); i++) {
        parents.add(lane.submit("parent", () -> {
          allParents.countDown();
          allParents.await(); // every worker holds a parent before any child exists
          CompletableFuture<Void> child = s.viaJdkFuture()
              ? CompletableFuture.runAsync(() -> Work.pause(100), lane)
              : lane.submit("child", () -> Work.pause(100));
          children.add(child);
          lastWaitStarted.accumulateAndGet(System.nanoTime(), Math::max);
          allWaiting.countDown();
          return s.viaJdkFuture() ? child.join() : child.get();
        }));
      }
      allWaiting.await(boundMs, TimeUnit.MILLISECONDS);
      boolean seen = detected.await(boundMs, TimeUnit.MILLISECONDS);
      boolean waitsFailed = false;
      if (seen && kind.get() == 1) {
        // With failOnDeadlock the parents' waits should end shortly after a proof: each child
        // they wait on fails with LaneRejectedException, reason DEADLOCK.
        try {
          CompletableFuture.allOf(parents.toArray(CompletableFuture[]::new)).get(2, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          waitsFailed = parents.stream().allMatch(p -> p.isCompletedExceptionally()
              && failedByDeadlock(p.exceptionNow()));
        } catch (TimeoutException e) {
          waitsFailed = false;
        }
      }
      double ms = seen ? Math.max(0, detectedAt.get() - lastWaitStarted.get()) / 1e6 : -1;
      return new Detection(kind.get() == 1, kind.get() == 2, ms, waitsFailed, diagnostic.toString());
    } finally {
      lane.removeListener(onDeadlock);
      children.forEach(c -> c.cancel(false)); // ends a join, which shutdownNow's interrupt does not
      lane.shutdownNow();
      lane.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Runs the busy shapes that are no deadlock, each for about {@code busyMs}, with failOnDeadlock;
   * returns the names of those that raised a DEADLOCKED or suspected-deadlock event.
   */
  private static List<String> falseAlarms(long busyMs, TaskLog log) throws Exception {
    List<String> alarms = new ArrayList<>();
    ExecutorService other = Executors.newSingleThreadExecutor(
        Thread.ofPlatform().daemon(true).name("e7-other-", 1).factory());
    try (Lane slow = Lane.blocking("e7-slow-b", 1).daemon(true).build()) {
      busyShape("join_slow_foreign_future", 2, log, alarms, lane -> {
        CompletableFuture<String> response = CompletableFuture.supplyAsync(() -> {
          Work.pause(busyMs);
          return "response";
        }, other);
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          fs.add(lane.submit(response::join));
        }
        fs.add(lane.submit(() -> "queued behind"));
        fs.add(CompletableFuture.runAsync(() -> {}, lane));
        return fs;
      });
      busyShape("timed_child_wait", 1, log, alarms, lane -> List.of(lane.submit(() -> {
        CompletableFuture<Void> child = CompletableFuture.runAsync(() -> {}, lane);
        try {
          return child.get(busyMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          return null; // the fallback: the child runs once this parent ends
        }
      })));
      busyShape("join_children_on_a_busy_lane", 2, log, alarms, lane -> {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          fs.add(lane.submit(() -> CompletableFuture.runAsync(
              () -> Work.pause(busyMs / 4), slow).join()));
        }
        return fs;
      });
      busyShape("sleepers", 2, log, alarms, lane -> {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          fs.add(lane.submit(() -> Work.pause(busyMs / 4)));
        }
        return fs;
      });
    } finally {
      other.shutdownNow();
      other.awaitTermination(5, TimeUnit.SECONDS);
    }
    return alarms;
  }

  private interface Load {
    List<CompletableFuture<?>> start(Lane lane) throws Exception;
  }

  private static void busyShape(String name, int threads, TaskLog log, List<String> alarms,
      Load load) throws Exception {
    Lane lane = log.follow(Lane.blocking("e7-busy-" + name.replace('_', '-'), threads)
        .failOnDeadlock().daemon(true).build());
    List<HealthEvent> raised = new CopyOnWriteArrayList<>();
    lane.onHealth(e -> {
      if (e.to() == LaneHealth.DEADLOCKED || e.figures().containsKey("suspectedDeadlock")) {
        raised.add(e);
      }
    });
    String failed = null;
    try {
      for (CompletableFuture<?> f : load.start(lane)) {
        f.get(30, TimeUnit.SECONDS); // a FAIL policy acting on a false alarm would fail one
      }
    } catch (ExecutionException e) {
      failed = String.valueOf(e.getCause());
    } finally {
      lane.shutdownNow();
      lane.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (!raised.isEmpty() || failed != null) {
      alarms.add(name + (failed != null ? " (a task failed: " + failed + ")" : ""));
    }
  }

  /** True if a {@link LaneRejectedException} with reason DEADLOCK is in {@code t}'s causes. */
  private static boolean failedByDeadlock(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof LaneRejectedException r && r.reason() == TaskOutcome.DEADLOCK) {
        return true;
      }
    }
    return false;
  }
}
