package dev.lanes;

import java.time.Duration;
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
 * prints what lanes does with futures it cannot reach.
 */
public final class NoOpensProbe {
  private NoOpensProbe() {}

  public static void main(String[] args) throws Exception {
    List<String> explained = new CopyOnWriteArrayList<>();
    Logger.getLogger("dev.lanes").addHandler(new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getMessage() != null && r.getMessage().contains("add-opens")) {
          explained.add(r.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    // A nested supplyAsync deadlock: not reported (it cannot be proven here), and no false alarm.
    List<Throwable> handled = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("nested", 1)
        .failOnDeadlock().deadlockDetection(Duration.ofMillis(50))
        .build()) {
      CompletableFuture<CompletableFuture<String>> child = new CompletableFuture<>();
      CompletableFuture<String> parent = lane.submit(() -> {
        CompletableFuture<String> c = CompletableFuture.supplyAsync(() -> "child", lane);
        child.complete(c);
        return c.join();
      });
      CompletableFuture<String> c = child.get();
      Thread.sleep(1_000); // several health ticks and detection periods
      System.out.println("nested_health=" + lane.health());
      c.cancel(false); // the probe breaks the cycle itself
      System.out.println("parent_done=" + parent.handle((v, e) -> true).get(10, TimeUnit.SECONDS));
    }
    // A dropped supplyAsync task: its future cannot be reached, so the handler hears of it.
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
    System.out.println("explained_times=" + explained.size());
  }
}
