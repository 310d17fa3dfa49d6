package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A transcript of what an application can observe of its pools: task identity in the queue,
 * {@code remove}, {@code shutdownNow}, exceptions, interrupts, rejections, {@code toString}, hooks
 * that do not call super, results. Printed line by line, deterministic; the test runs it with and
 * without the agent and wants the same transcript.
 */
public final class BehaviourApp {
  public static void main(String[] args) throws Exception {
    // 1. Queue identity, remove, shutdownNow return the application's own objects.
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), FixedPoolApp.named("behaviour"));
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocking = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
    pool.execute(() -> {
      blocking.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        interrupted.set(true);
        Thread.currentThread().interrupt();
      }
    });
    blocking.await();
    List<Runnable> mine = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Runnable r = new Named("task-" + i);
      mine.add(r);
      pool.execute(r);
    }
    Object[] queued = pool.getQueue().toArray();
    System.out.println("queue holds my objects: " + (queued.length == 3 && queued[0] == mine.get(0)
        && queued[1] == mine.get(1) && queued[2] == mine.get(2)));
    System.out.println("queue toString: " + pool.getQueue());
    System.out.println("remove(task-1): " + pool.remove(mine.get(1)));
    System.out.println("remove(task-1) again: " + pool.remove(mine.get(1)));
    List<Runnable> back = pool.shutdownNow();
    System.out.println("shutdownNow returned my objects: " + (back.size() == 2
        && back.get(0) == mine.get(0) && back.get(1) == mine.get(2)) + " " + back);
    pool.awaitTermination(10, TimeUnit.SECONDS);
    System.out.println("running task interrupted by shutdownNow: " + interrupted.get());

    // 2. Exceptions reach afterExecute and the future as the same objects; hooks without super.
    AtomicReference<Throwable> seen = new AtomicReference<>();
    CountDownLatch after = new CountDownLatch(2);
    ThreadPoolExecutor hooked = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), FixedPoolApp.named("hooked")) {
      @Override protected void beforeExecute(Thread t, Runnable r) {
        // no super call
      }

      @Override protected void afterExecute(Runnable r, Throwable t) {
        if (t != null) {
          seen.set(t);
        }
        after.countDown();
      }
    };
    IllegalStateException boom = new IllegalStateException("boom");
    hooked.execute(() -> {
      throw boom;
    });
    Future<?> failing = hooked.submit(() -> {
      throw boom;
    });
    try {
      failing.get();
    } catch (ExecutionException e) {
      System.out.println("future's cause is the thrown object: " + (e.getCause() == boom));
    }
    after.await();
    System.out.println("afterExecute saw the thrown object: " + (seen.get() == boom));
    System.out.println("result: " + hooked.submit(() -> 6 * 7).get());
    System.out.println("async result: "
        + CompletableFuture.supplyAsync(() -> "forty-two", hooked).join());
    hooked.shutdown();
    hooked.awaitTermination(10, TimeUnit.SECONDS);

    // 3. Rejection: the handler's exception reaches the caller; caller-runs runs in the caller.
    ThreadPoolExecutor full = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(1), FixedPoolApp.named("full"));
    CountDownLatch hold = new CountDownLatch(1);
    CountDownLatch held = new CountDownLatch(1);
    full.execute(() -> {
      held.countDown();
      try {
        hold.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    held.await();
    full.execute(new Named("fills-the-queue"));
    try {
      full.execute(new Named("one-too-many"));
      System.out.println("rejected: false");
    } catch (RejectedExecutionException e) {
      System.out.println("rejected: true (" + e.getMessage().replaceAll("@[0-9a-f]+", "@?")
          .replaceAll("\\[.*", "") + ")");
    }
    full.setRejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy());
    String[] ranOn = new String[1];
    full.execute(() -> ranOn[0] = Thread.currentThread().getName());
    System.out.println("caller-runs ran on: " + ranOn[0]);
    hold.countDown();
    full.shutdown();
    full.awaitTermination(10, TimeUnit.SECONDS);
    System.out.println("completed: " + full.getCompletedTaskCount());

    // 4. A scheduled pool: periodic task, cancel, shutdownNow's list.
    ScheduledThreadPoolExecutor sched = new ScheduledThreadPoolExecutor(1, FixedPoolApp.named("sched"));
    sched.setRemoveOnCancelPolicy(true); // else the count below depends on whether it was running
    CountDownLatch three = new CountDownLatch(3);
    var periodic = sched.scheduleAtFixedRate(three::countDown, 0, 2, TimeUnit.MILLISECONDS);
    three.await();
    System.out.println("periodic cancelled: " + periodic.cancel(false));
    sched.schedule(() -> { }, 1, TimeUnit.HOURS);
    System.out.println("scheduled shutdownNow returned: " + sched.shutdownNow().size());
    System.out.println("main thread's interrupt flag: " + Thread.currentThread().isInterrupted());
  }

  /** A task with a name, so that toString and identity show through. */
  record Named(String name) implements Runnable {
    @Override public void run() {}

    @Override public String toString() {
      return name;
    }
  }
}
