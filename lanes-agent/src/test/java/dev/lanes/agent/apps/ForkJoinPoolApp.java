package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A fork-join pool of parallelism 2 given 400 tasks of 2 ms from outside (half {@code
 * execute(Runnable)}, half {@code submit(Callable)}): measures its own tasks' queue wait and run
 * time and prints the means and the median run, for the agent's to be compared with. Then one submitted task that
 * throws, and one submission after shutdown (refused).
 */
public final class ForkJoinPoolApp {
  static final int TASKS = 400;
  static final long TASK_NANOS = 2_000_000;

  public static void main(String[] args) throws Exception {
    ForkJoinPool pool = new ForkJoinPool(2, named("fj-worker"), null, false);
    AtomicLong waitSum = new AtomicLong();
    AtomicLong runSum = new AtomicLong();
    long[] runs = new long[TASKS]; // each task's own run (published by the latch)
    CountDownLatch done = new CountDownLatch(TASKS);
    for (int i = 0; i < TASKS; i++) {
      long submitted = System.nanoTime();
      int index = i;
      Runnable task = () -> {
        long start = System.nanoTime();
        waitSum.addAndGet(start - submitted);
        LockSupport.parkNanos(TASK_NANOS);
        long run = System.nanoTime() - start;
        runs[index] = run;
        runSum.addAndGet(run);
        done.countDown();
      };
      if (i % 2 == 0) {
        pool.execute(task);
      } else {
        pool.submit(() -> {
          task.run();
          return null;
        });
      }
    }
    done.await();
    ForkJoinTask<?> failing = pool.submit(() -> {
      throw new IllegalStateException("expected by the test");
    });
    failing.quietlyJoin();
    System.out.println("failing task completed abnormally: " + failing.isCompletedAbnormally());
    pool.shutdown();
    try {
      pool.execute(() -> { });
      System.out.println("rejected after shutdown: false");
    } catch (RejectedExecutionException e) {
      System.out.println("rejected after shutdown: true");
    }
    pool.awaitTermination(10, TimeUnit.SECONDS);
    System.out.printf("wait_mean_ms=%.4f%n", waitSum.get() / 1e6 / TASKS);
    System.out.printf("run_mean_ms=%.4f%n", runSum.get() / 1e6 / TASKS);
    System.out.printf("run_p50_ms=%.4f%n", FixedPoolApp.median(runs) / 1e6);
    System.out.println("threads not mine: " + threadsNotMine("fj-worker-"));
  }

  /** A factory of the pool's default workers, named {@code prefix-1}, {@code prefix-2}, … */
  static ForkJoinPool.ForkJoinWorkerThreadFactory named(String prefix) {
    AtomicLong n = new AtomicLong();
    return p -> {
      var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
      t.setName(prefix + "-" + n.incrementAndGet());
      return t;
    };
  }

  /**
   * The live threads that are neither the JVM's own, nor main, nor the app's (named with one of
   * {@code mine}'s prefixes, or the common pool's workers), sorted by name.
   */
  static List<String> threadsNotMine(String... mine) {
    List<String> jvm = List.of("main", "Reference Handler", "Finalizer", "Signal Dispatcher",
        "Common-Cleaner", "Notification Thread", "Attach Listener", "DestroyJavaVM");
    List<String> out = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String n = t.getName();
      boolean app = n.startsWith("ForkJoinPool.commonPool-worker-");
      for (String p : mine) {
        app |= n.startsWith(p);
      }
      if (!app && !jvm.contains(n)) {
        out.add(n);
      }
    }
    out.sort(null);
    return out;
  }
}
