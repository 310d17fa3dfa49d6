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
 * time (stamps taken in the app itself) and prints the means, standard deviations and the median
 * run, for the agent's to be compared with.
 * A scheduled pool runs 20 tasks due 5 ms apart.
 */
public final class FixedPoolApp {
  public static void main(String[] args) throws Exception {
    int tasks = 400;
    ExecutorService pool = Executors.newFixedThreadPool(2, named("fixed-worker"));
    // Each task's own stamps in plain arrays (published by the latch), so that nothing but the
    // count-down runs between a task's last stamp and its end: what the agent times is the task.
    long[] submittedAt = new long[tasks];
    long[] startedAt = new long[tasks];
    long[] endedAt = new long[tasks];
    CountDownLatch done = new CountDownLatch(tasks);
    for (int i = 0; i < tasks; i++) {
      int task = i;
      submittedAt[task] = System.nanoTime();
      pool.execute(() -> {
        startedAt[task] = System.nanoTime();
        LockSupport.parkNanos(2_000_000);
        endedAt[task] = System.nanoTime();
        done.countDown();
      });
    }
    done.await();
    long waitTotal = 0;
    long runTotal = 0;
    for (int i = 0; i < tasks; i++) {
      waitTotal += startedAt[i] - submittedAt[i];
      runTotal += endedAt[i] - startedAt[i];
    }
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
    System.out.printf("wait_mean_ms=%.4f%n", waitTotal / 1e6 / tasks);
    System.out.printf("run_mean_ms=%.4f%n", runTotal / 1e6 / tasks);
    long[] runs = new long[tasks];
    for (int i = 0; i < tasks; i++) {
      runs[i] = endedAt[i] - startedAt[i];
    }
    System.out.printf("run_p50_ms=%.4f%n", median(runs) / 1e6);
    // Standard deviations, for judging a mean over a sample of the tasks (sampled mode).
    double waitMean = (double) waitTotal / tasks;
    double runMean = (double) runTotal / tasks;
    double waitSquares = 0;
    double runSquares = 0;
    for (int i = 0; i < tasks; i++) {
      waitSquares += Math.pow(startedAt[i] - submittedAt[i] - waitMean, 2);
      runSquares += Math.pow(endedAt[i] - startedAt[i] - runMean, 2);
    }
    System.out.printf("wait_sd_ms=%.4f%n", Math.sqrt(waitSquares / tasks) / 1e6);
    System.out.printf("run_sd_ms=%.4f%n", Math.sqrt(runSquares / tasks) / 1e6);
  }

  /** The value at the 50th percentile: the lower middle once sorted (as a histogram reads it). */
  static long median(long[] values) {
    long[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[(sorted.length - 1) / 2];
  }

  static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicLong n = new AtomicLong();
    return r -> new Thread(r, prefix + "-" + n.incrementAndGet());
  }
}
