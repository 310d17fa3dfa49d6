package dev.lanes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Run by {@link NoOpensTest} in a JVM without {@code --add-opens java.base/java.util.concurrent}:
 * prints what lanes does with futures it cannot reach (a nested deadlock through them on 1 and 9
 * threads, a dropped {@code supplyAsync} task) and what it logged about the flag.
 */
public final class NoOpensProbe {
  private NoOpensProbe() {}

  public static void main(String[] args) throws Exception {
    List<String> unreachable = new CopyOnWriteArrayList<>();
    List<String> suspicion = new CopyOnWriteArrayList<>();
    Logger.getLogger("dev.lanes").addHandler(new Handler() {
      @Override
      public void publish(LogRecord r) {
        String m = r.getMessage();
        if (m != null && m.startsWith("lanes: java.util.concurrent is not open")) {
          unreachable.add(m);
        } else if (m != null && m.startsWith("lanes: a starvation deadlock")) {
          suspicion.add(m);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    // The nested supplyAsync/runAsync deadlock on 1 and 9 threads: suspected, never DEADLOCKED,
    // and nothing is done to any task on a suspicion (failOnDeadlock acts on proofs only).
    for (int threads : new int[] {1, 9}) {
      nested(threads);
    }
    // A dropped supplyAsync task: its future cannot be reached, so the handler hears of it.
    List<Throwable> handled = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("drop", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest())
        .exceptionHandler((t, e) -> handled.add(e)).build()) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch started = new CountDownLatch(1);
      lane.execute(() -> {
        started.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      started.await();
      CompletableFuture.supplyAsync(() -> "victim", lane);
      CompletableFuture<String> kept = CompletableFuture.supplyAsync(() -> "kept", lane);
      release.countDown();
      System.out.println("kept=" + kept.get(10, TimeUnit.SECONDS));
    }
    System.out.println("handler_got=" + (handled.isEmpty() ? "nothing" : handled.get(0).getClass().getSimpleName()));
    System.out.println("explained_unreachable=" + unreachable.size());
    System.out.println("explained_suspicion=" + suspicion.size());
  }

  private static void nested(int threads) throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    CountDownLatch suspected = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("nested" + threads, threads)
        .failOnDeadlock().deadlockDetection(Duration.ofMillis(50))
        .build()) {
      lane.onHealth(e -> {
        events.add(e);
        if (e.figures().containsKey("suspectedDeadlock")) {
          suspected.countDown();
        }
      });
      List<CompletableFuture<?>> children = new CopyOnWriteArrayList<>();
      List<CompletableFuture<?>> parents = new ArrayList<>();
      CountDownLatch allParents = new CountDownLatch(threads);
      for (int i = 0; i < threads; i++) {
        boolean run = i % 2 == 1;
        parents.add(lane.submit(() -> {
          allParents.countDown();
          allParents.await(); // every worker holds a parent before any child exists
          CompletableFuture<?> c = run
              ? CompletableFuture.runAsync(() -> {}, lane)
              : CompletableFuture.supplyAsync(() -> "child", lane);
          children.add(c);
          return c.join();
        }));
      }
      boolean seen = suspected.await(30, TimeUnit.SECONDS);
      HealthEvent first = events.stream().filter(e -> e.figures().containsKey("suspectedDeadlock"))
          .findFirst().orElse(null);
      String p = "nested" + threads + "_";
      System.out.println(p + "suspected=" + seen);
      System.out.println(p + "suspected_says=" + (first != null
          && first.diagnostic().startsWith("suspected starvation deadlock")
          && first.figures().get("futureWaiters") == threads));
      System.out.println(p + "health=" + lane.health());
      System.out.println(p + "ever_deadlocked="
          + events.stream().anyMatch(e -> e.to() == LaneHealth.DEADLOCKED));
      System.out.println(p + "parents_untouched=" + parents.stream().noneMatch(CompletableFuture::isDone));
      System.out.println(p + "deadlock_outcomes=" + lane.stats().count(TaskOutcome.DEADLOCK));
      children.forEach(c -> c.cancel(false)); // the probe breaks the cycle itself
      for (CompletableFuture<?> parent : parents) {
        parent.handle((v, e) -> true).get(10, TimeUnit.SECONDS);
      }
    }
  }
}
