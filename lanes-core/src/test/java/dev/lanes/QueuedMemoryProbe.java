package dev.lanes;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs in its own JVM (see {@link QueuedMemoryTest}): queues {@code tasks} blocked tasks behind a
 * cap of 30 and prints the heap in use and the threads alive at the peak, as {@code key=value}
 * lines.
 *
 * <pre>java -Xmx256m -cp ... dev.lanes.QueuedMemoryProbe lanes|spawn-then-semaphore 1000000</pre>
 */
public final class QueuedMemoryProbe {
  static final int CAP = 30;

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int tasks = Integer.parseInt(args[1]);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger alive = new AtomicInteger();
    AtomicInteger peakAlive = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    AtomicInteger runningTasks = new AtomicInteger();
    AtomicInteger peakRunning = new AtomicInteger();
    AtomicInteger runningNow = new AtomicInteger();
    long start = System.nanoTime();
    if (mode.equals("lanes")) {
      try (Lane lane = Lane.virtual("probe", CAP).queueCapacity(tasks)
          .threadFactory(counting(alive, peakAlive)).build()) {
        for (int i = 0; i < tasks; i++) {
          lane.execute(() -> {
            runningTasks.incrementAndGet(); // tasks that started (the wait below counts them)
            peakRunning.accumulateAndGet(runningNow.incrementAndGet(), Math::max);
            await(release);
            runningNow.decrementAndGet();
            done.incrementAndGet();
          });
        }
        // The cap's threads are started; wait (bounded) until their tasks all run before measuring.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (runningTasks.get() < Math.min(CAP, tasks) && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        report(mode, tasks, alive.get(), lane.stats().queued(), start);
        release.countDown();
      }
    } else {
      Semaphore permits = new Semaphore(CAP);
      var factory = counting(alive, peakAlive);
      for (int i = 0; i < tasks; i++) {
        factory.newThread(() -> {
          permits.acquireUninterruptibly();
          try {
            await(release);
            done.incrementAndGet();
          } finally {
            permits.release();
          }
        }).start();
      }
      report(mode, tasks, alive.get(), permits.getQueueLength(), start);
      release.countDown();
      while (done.get() < tasks) {
        TimeUnit.MILLISECONDS.sleep(10); // the probe's own end: nothing to synchronise with
      }
    }
    System.out.println("done=" + done.get());
    System.out.println("peak_threads=" + peakAlive.get());
    System.out.println("peak_running=" + peakRunning.get());
  }

  private static java.util.concurrent.ThreadFactory counting(AtomicInteger alive, AtomicInteger peak) {
    var base = Thread.ofVirtual().factory();
    return r -> base.newThread(() -> {
      peak.accumulateAndGet(alive.incrementAndGet(), Math::max);
      try {
        r.run();
      } finally {
        alive.decrementAndGet();
      }
    });
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void report(String mode, int tasks, int threadsAlive, int waiting, long start) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    System.out.println("mode=" + mode);
    System.out.println("tasks=" + tasks);
    System.out.println("heap_used_mb=" + heap.getUsed() / (1024 * 1024));
    System.out.println("heap_max_mb=" + heap.getMax() / (1024 * 1024));
    System.out.println("threads_alive=" + threadsAlive);
    System.out.println("waiting=" + waiting);
    System.out.println("submit_ms=" + (System.nanoTime() - start) / 1_000_000);
  }
}
