package dev.lanes.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * "Submit N tasks and wait for all of them", the operation most benchmarks time. Every executor
 * gets the same tasks and the same wait: one {@link CountDownLatch} per batch, counted down by each
 * task, and one shared task object per batch, so the only per-task allocation is the executor's
 * own.
 */
public final class Batch {

  /** A batch that has not finished after this long has hung: fail instead of waiting forever. */
  static final long TIMEOUT_MINUTES = 5;

  private Batch() {}

  /** One producer (the calling thread) submits {@code tasks} tiny tasks and waits for all. */
  public static void run(BenchExecutor executor, int tasks) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(tasks);
    Runnable task = done::countDown;
    submit(executor, task, tasks);
    await(done, executor, tasks);
  }

  /** As {@link #run(BenchExecutor, int)} with tasks of {@code workTokens} of CPU work each. */
  public static void runWork(BenchExecutor executor, int tasks, long workTokens)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(tasks);
    Runnable task =
        () -> {
          Work.spin(workTokens);
          done.countDown();
        };
    submit(executor, task, tasks);
    await(done, executor, tasks);
  }

  /**
   * As {@link #run(BenchExecutor, int)}, but each task is its own {@code Runnable} object (one
   * small allocation per task on the producer), as an application's tasks usually are: what an
   * agent that keys its bookkeeping on the task object's identity sees in real use.
   */
  public static void runDistinct(BenchExecutor executor, int tasks) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(tasks);
    for (int i = 0; i < tasks; i++) {
      executor.execute(done::countDown); // a bound method reference: a new object per evaluation
    }
    await(done, executor, tasks);
  }

  /** As {@link #runWork}, each task its own {@code Runnable} object (see {@link #runDistinct}). */
  public static void runWorkDistinct(BenchExecutor executor, int tasks, long workTokens)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(tasks);
    for (int i = 0; i < tasks; i++) {
      executor.execute(
          () -> {
            Work.spin(workTokens);
            done.countDown();
          });
    }
    await(done, executor, tasks);
  }

  /**
   * {@code producers} threads (the caller and {@code producers - 1} threads of {@code helpers})
   * submit {@code tasks / producers} tasks each (the caller also the remainder); waits for all.
   */
  public static void runFromProducers(
      BenchExecutor executor, int tasks, int producers, ExecutorService helpers)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(tasks);
    Runnable task = done::countDown;
    int share = tasks / producers;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int p = 1; p < producers; p++) {
      helpers.execute(
          () -> {
            try {
              submit(executor, task, share);
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
              for (int i = 0; i < share; i++) {
                done.countDown(); // release the waiter; the failure is rethrown below
              }
            }
          });
    }
    submit(executor, task, tasks - share * (producers - 1));
    await(done, executor, tasks);
    if (failure.get() != null) {
      throw new IllegalStateException("a producer failed", failure.get());
    }
  }

  /** Hands one task over and waits for it to run: the handoff latency. */
  public static void handoff(BenchExecutor executor) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    executor.execute(done::countDown);
    await(done, executor, 1);
  }

  private static void submit(BenchExecutor executor, Runnable task, int count) {
    for (int i = 0; i < count; i++) {
      executor.execute(task);
    }
  }

  static void await(CountDownLatch done, BenchExecutor executor, int tasks)
      throws InterruptedException {
    if (!done.await(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      throw new IllegalStateException(
          executor.name() + ": " + done.getCount() + " of " + tasks + " tasks still not done after "
              + TIMEOUT_MINUTES + " minutes");
    }
  }
}
