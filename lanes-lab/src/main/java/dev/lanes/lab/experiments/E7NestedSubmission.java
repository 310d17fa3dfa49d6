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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * E7: the nested-submission starvation deadlock in its two shapes from the source writing: one
 * thread whose task submits a child to the same pool and waits for it, and nine threads whose
 * nine tasks each do the same. A plain fixed pool is shown hung (its parents have not finished
 * after a bounded timeout); a lane built with {@link dev.lanes.LaneBuilder#failOnDeadlock()} should
 * report DEADLOCKED and fail the waits (the awaited children fail with a {@link
 * LaneRejectedException} whose reason is {@link TaskOutcome#DEADLOCK}). Detection time is measured from the moment the cycle formed: when the last
 * parent began waiting for its child.
 *
 * <p>Threads: parents and children run on the pool's or lane's daemon threads; every pool and
 * lane is shut down with {@code shutdownNow} (which interrupts the waiting parents) and awaited
 * with a bound, so nothing outlives the experiment even if a detector never fires.
 */
public final class E7NestedSubmission implements Experiment {

  private record Shape(String name, int threads) {}

  private record Detection(boolean detected, double detectMs, boolean waitsFailed, String diagnostic) {}

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
    result.setup(String.format(Locale.ROOT,
        "Each parent task submits a child task to its own executor and waits for it (the child"
            + " sleeps 100 ms). Shapes: 1 thread / 1 parent, and 9 threads / 9 parents (each parent"
            + " first sleeps 100 ms, so all nine hold a thread before any child is queued)."
            + " Plain pool: Executors.newFixedThreadPool, called hung if no parent finished within"
            + " %,d ms. lanes: a blocking lane built with failOnDeadlock() (a cycle through"
            + " lanes' own futures is reported as soon as it is proven: every worker waits, with no"
            + " timeout, on a task queued behind it); detection time runs from the moment the last"
            + " parent began waiting to the DEADLOCKED health event, bounded at %,d ms.",
        hangBoundMs, detectBoundMs));
    TaskLog log = new TaskLog();
    List<Shape> shapes = List.of(new Shape("1_thread", 1), new Shape("9_threads", 9));
    List<Boolean> hung = new ArrayList<>();
    List<Detection> detections = new ArrayList<>();
    for (Shape s : shapes) {
      ctx.status("E7 plain pool " + s.threads());
      hung.add(plainPoolHangs(s.threads(), hangBoundMs));
      ctx.status("E7 lanes " + s.threads());
      detections.add(laneDetects(s, detectBoundMs, log));
    }
    boolean plainHung = hung.get(0) && hung.get(1);
    result.figure("plain_pool_hung", plainHung);
    result.figure("plain_pool_hung_1_thread", hung.get(0));
    result.figure("plain_pool_hung_9_threads", hung.get(1));
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < shapes.size(); i++) {
      Detection d = detections.get(i);
      String n = shapes.get(i).name();
      result.figure("detected_" + n, d.detected());
      result.figure("detect_ms_" + n, d.detected() ? d.detectMs() : -1.0);
      result.figure("waits_failed_" + n, d.waitsFailed());
      rows.add(List.of(n.replace('_', ' '), hung.get(i) ? "hung (bounded at " + hangBoundMs + " ms)" : "finished",
          d.detected() ? "DEADLOCKED after " + E1PoolOrThreadPerTask.fmt(d.detectMs()) + " ms"
              : "not detected within " + detectBoundMs + " ms",
          d.waitsFailed() ? "yes (LaneRejectedException, reason DEADLOCK)" : "no"));
    }
    result.table(List.of("shape", "plain fixed pool", "lanes (failOnDeadlock)", "waiting parents released"), rows);
    result.chart("E7-detect", "Time from the deadlock forming to lanes reporting it (-1: not detected within the bound).",
        Charts.bars("E7: deadlock detection time", "ms", List.of("1 thread", "9 threads"), Charts.series(
            "detection ms", detections.stream().map(d -> d.detected() ? d.detectMs() : -1.0).toList())));

    boolean allDetected = detections.stream().allMatch(Detection::detected);
    boolean holds = plainHung && allDetected;
    StringBuilder v = new StringBuilder();
    v.append(plainHung
        ? String.format(Locale.ROOT, "The plain fixed pool hung in both shapes (no parent finished within %,d ms). ", hangBoundMs)
        : "The plain pool did not hang in every shape (1 thread: " + hung.get(0) + ", 9 threads: "
            + hung.get(1) + "), which is unexpected. ");
    for (int i = 0; i < shapes.size(); i++) {
      Detection d = detections.get(i);
      String shape = shapes.get(i).threads() == 1 ? "1-thread" : "9-thread";
      v.append(d.detected()
          ? String.format(Locale.ROOT, "lanes reported the %s deadlock %s ms after it formed%s. ",
              shape, E1PoolOrThreadPerTask.fmt(d.detectMs()),
              d.waitsFailed() ? " and failed the waiting parents instead of hanging" : "")
          : String.format(Locale.ROOT, "lanes did NOT report the %s deadlock within %,d ms (no DEADLOCKED health"
              + " event): this build of lanes-core does not detect it yet. ", shape, detectBoundMs));
    }
    result.verdict(holds, v.toString().trim());
    result.tasks(log.records());
    return result;
  }

  /** True if no parent finished within the bound. Cleans up with shutdownNow either way. */
  private static boolean plainPoolHangs(int threads, long boundMs) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads,
        Thread.ofPlatform().daemon(true).name("e7-plain-", 1).factory());
    try {
      List<Future<?>> parents = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        parents.add(pool.submit(() -> {
          if (threads > 1) {
            Work.pause(100);
          }
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
    CountDownLatch detected = new CountDownLatch(1);
    StringBuilder diagnostic = new StringBuilder();
    Consumer<HealthEvent> onDeadlock = e -> {
      if (e.to() == LaneHealth.DEADLOCKED && detectedAt.compareAndSet(-1, System.nanoTime())) {
        synchronized (diagnostic) {
          diagnostic.append(e.diagnostic());
        }
        detected.countDown();
      }
    };
    lane.onHealth(onDeadlock);
    CountDownLatch allWaiting = new CountDownLatch(s.threads());
    List<CompletableFuture<Object>> parents = new ArrayList<>();
    try {
      for (int i = 0; i < s.threads(); i++) {
        parents.add(lane.submit("parent", () -> {
          if (s.threads() > 1) {
            Work.pause(100);
          }
          CompletableFuture<Void> child = lane.submit("child", () -> Work.pause(100));
          lastWaitStarted.accumulateAndGet(System.nanoTime(), Math::max);
          allWaiting.countDown();
          return child.get();
        }));
      }
      allWaiting.await(boundMs, TimeUnit.MILLISECONDS);
      boolean seen = detected.await(boundMs, TimeUnit.MILLISECONDS);
      boolean waitsFailed = false;
      if (seen) {
        // With failOnDeadlock the parents' waits should end shortly after detection: each child
        // they wait on fails with LaneRejectedException, reason DEADLOCK.
        try {
          CompletableFuture.allOf(parents.toArray(CompletableFuture[]::new)).get(2, TimeUnit.SECONDS);
          waitsFailed = false;
        } catch (ExecutionException e) {
          waitsFailed = failedByDeadlock(e);
        } catch (TimeoutException e) {
          waitsFailed = false;
        }
      }
      double ms = seen ? Math.max(0, detectedAt.get() - lastWaitStarted.get()) / 1e6 : -1;
      return new Detection(seen, ms, waitsFailed, diagnostic.toString());
    } finally {
      lane.removeListener(onDeadlock);
      lane.shutdownNow();
      lane.awaitTermination(5, TimeUnit.SECONDS);
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
