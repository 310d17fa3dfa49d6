package dev.lanes.agent.apps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * 2 threads, 400 tasks of 2 ms handed over at once: measures its own tasks' queue wait and run
 * time (stamps taken in the app itself) and prints the means, for the agent's to be compared with.
 * A scheduled pool runs 20 tasks due 5 ms apart.
 */
public final class FixedPoolApp {
  public static void main(String[] args) throws Exception {
    int tasks = 400;
    ExecutorService pool = Executors.newFixedThreadPool(2, named("fixed-worker"));
    AtomicLong waitSum = new AtomicLong();
    AtomicLong runSum = new AtomicLong();
    CountDownLatch done = new CountDownLatch(tasks);
    for (int i = 0; i < tasks; i++) {
      long submitted = System.nanoTime();
      pool.execute(() -> {
        long start = System.nanoTime();
        waitSum.addAndGet(start - submitted);
        LockSupport.parkNanos(2_000_000);
        runSum.addAndGet(System.nanoTime() - start);
        done.countDown();
      });
    }
    done.await();
    ScheduledExecutorService ticker = Executors.newScheduledThreadPool(1, named("ticker"));
    CountDownLatch ticks = new CountDownLatch(20);
    for (int i = 0; i < 20; i++) {
      ticker.schedule(ticks::countDown, 5L * i, TimeUnit.MILLISECONDS);
    }
    ticks.await();
    pool.shutdown();
    ticker.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    ticker.awaitTermination(10, TimeUnit.SECONDS);
    System.out.printf("wait_mean_ms=%.4f%n", waitSum.get() / 1e6 / tasks);
    System.out.printf("run_mean_ms=%.4f%n", runSum.get() / 1e6 / tasks);
  }

  static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicLong n = new AtomicLong();
    return r -> new Thread(r, prefix + "-" + n.incrementAndGet());
  }
}
