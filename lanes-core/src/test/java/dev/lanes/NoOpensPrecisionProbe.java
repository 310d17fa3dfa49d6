package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link NoOpensTest} in a JVM without {@code --add-opens java.base/java.util.concurrent}:
 * the busy, saturated shapes of {@link DeadlockPrecisionTest} that wait through JDK futures, each
 * looped, with the lane's clock pushed far past the detection period while its workers wait.
 * Prints how many DEADLOCKED and how many suspected-deadlock events they raised.
 */
public final class NoOpensPrecisionProbe {
  private static final List<HealthEvent> ALARMS = new CopyOnWriteArrayList<>();

  private NoOpensPrecisionProbe() {}

  public static void main(String[] args) throws Exception {
    int repeats = Integer.parseInt(args[0]);
    for (int i = 0; i < repeats; i++) {
      tasksJoinASlowFutureOfAnotherExecutor();
      aTimedChildWaitWithItsOwnFallback();
      tasksJoinAChildOnASlowLane();
    }
    System.out.println("deadlocked=" + ALARMS.stream().filter(e -> e.to() == LaneHealth.DEADLOCKED).count());
    System.out.println("suspected=" + ALARMS.stream()
        .filter(e -> e.figures().containsKey("suspectedDeadlock")).count());
  }

  private static LaneExecutor lane(String name, int threads, AtomicLong now) {
    LaneExecutor lane = (LaneExecutor) Lane.blocking(name, threads).ticker(now::get)
        .failOnDeadlock().build();
    lane.onHealth(e -> {
      if (e.to() == LaneHealth.DEADLOCKED || e.figures().containsKey("suspectedDeadlock")) {
        ALARMS.add(e);
      }
    });
    return lane;
  }

  /** Checks health several times, the clock moving 2 s each time. */
  private static void checkForAWhile(LaneExecutor lane, AtomicLong now) {
    for (int i = 0; i < 5; i++) {
      now.addAndGet(TimeUnit.SECONDS.toNanos(2));
      lane.checkHealth();
    }
  }

  private static void awaitWaiting(LaneExecutor lane, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Work.PATIENCE_SECONDS);
    while (lane.pool.workers.stream().filter(w -> w.thread() != null
        && w.thread().getState() == Thread.State.WAITING).count() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("workers of " + lane.name() + " never waited");
      }
      Thread.onSpinWait();
    }
  }

  private static void tasksJoinASlowFutureOfAnotherExecutor() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    LaneExecutor lane = lane("http-join", 2, now);
    CompletableFuture<String> slowResponse = new CompletableFuture<>(); // like sendAsync(..)
    List<CompletableFuture<?>> fs = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      fs.add(lane.submit(slowResponse::join));
    }
    fs.add(lane.submit(() -> "unrelated 1"));
    fs.add(CompletableFuture.supplyAsync(() -> "unrelated 2", lane));
    awaitWaiting(lane, 2);
    checkForAWhile(lane, now);
    slowResponse.complete("response");
    for (CompletableFuture<?> f : fs) {
      f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    }
    lane.close();
  }

  private static void aTimedChildWaitWithItsOwnFallback() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    LaneExecutor lane = lane("timed-child", 1, now);
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<String> parent = lane.submit(() -> {
      CompletableFuture<String> child = CompletableFuture.supplyAsync(() -> "child", lane);
      waiting.countDown();
      try {
        return child.get(20, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return "fallback";
      }
    });
    Work.await(waiting);
    checkForAWhile(lane, now);
    parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    lane.close();
  }

  private static void tasksJoinAChildOnASlowLane() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    try (Lane slow = Lane.blocking("slow-b", 1).build()) {
      LaneExecutor lane = lane("waits-on-b", 2, now);
      CountDownLatch bBusy = Work.occupy(slow);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        fs.add(lane.submit(() -> CompletableFuture.supplyAsync(() -> "b", slow).join()));
      }
      awaitWaiting(lane, 2);
      checkForAWhile(lane, now);
      bBusy.countDown();
      for (CompletableFuture<?> f : fs) {
        f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      }
      lane.close();
    }
  }
}
