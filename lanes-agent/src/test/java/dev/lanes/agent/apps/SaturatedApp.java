package dev.lanes.agent.apps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** One thread, 300 tasks of 10 ms handed over at once: about 3 s of a long queue. */
public final class SaturatedApp {
  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(1, FixedPoolApp.named("backlog"));
    CountDownLatch done = new CountDownLatch(300);
    for (int i = 0; i < 300; i++) {
      pool.execute(() -> {
        LockSupport.parkNanos(10_000_000);
        done.countDown();
      });
    }
    done.await();
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    System.out.println("done");
  }
}
