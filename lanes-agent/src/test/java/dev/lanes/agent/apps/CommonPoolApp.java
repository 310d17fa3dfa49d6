package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * 200 {@code CompletableFuture.supplyAsync} tasks of 1 ms on the default executor (the common
 * pool, when its parallelism is above 1: the test sets it to 2), measured by the tasks themselves,
 * then joined; prints the sum of the results and the means.
 */
public final class CommonPoolApp {
  static final int TASKS = 200;

  public static void main(String[] args) throws InterruptedException {
    AtomicLong waitSum = new AtomicLong();
    AtomicLong runSum = new AtomicLong();
    CountDownLatch ended = new CountDownLatch(TASKS);
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    for (int i = 0; i < TASKS; i++) {
      int value = i;
      long submitted = System.nanoTime();
      futures.add(CompletableFuture.supplyAsync(() -> {
        long start = System.nanoTime();
        waitSum.addAndGet(start - submitted);
        LockSupport.parkNanos(1_000_000);
        runSum.addAndGet(System.nanoTime() - start);
        ended.countDown();
        return value;
      }));
    }
    // Joined once all ended: a future with no waiter completes without waking one, so the
    // agent's run (AsyncSupply.run, completing the future included) stays close to the task's own.
    ended.await();
    long sum = futures.stream().mapToLong(CompletableFuture::join).sum();
    System.out.println("sum = " + sum);
    System.out.printf("wait_mean_ms=%.4f%n", waitSum.get() / 1e6 / TASKS);
    System.out.printf("run_mean_ms=%.4f%n", runSum.get() / 1e6 / TASKS);
    System.out.println("threads not mine: " + ForkJoinPoolApp.threadsNotMine());
  }
}
