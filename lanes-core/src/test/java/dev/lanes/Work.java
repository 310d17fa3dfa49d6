package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Small helpers for lane tests: busy work, latches that fail instead of hanging, thread joins. */
final class Work {
  /** How long a test waits for something that should happen at once before it fails. */
  static final long PATIENCE_SECONDS = 30;

  private Work() {}

  /** Spins on the CPU for about {@code millis} of wall time. */
  static long spinMillis(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + 17) ^ x;
    }
    return x;
  }

  /** Spins until this thread has used {@code millis} of CPU time (however long that takes). */
  static long spinCpuMillis(long millis) {
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long end = mx.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (mx.getCurrentThreadCpuTime() < end) {
      for (int i = 0; i < 1_000; i++) {
        x += Long.numberOfTrailingZeros(x + 17) ^ x;
      }
    }
    return x;
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released within " + PATIENCE_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Awaits the latch, turning an interrupt into a RuntimeException (for use inside tasks). */
  static void block(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeException("interrupted while blocked", e);
    }
  }

  /**
   * Occupies one of the lane's threads with a task that blocks until the returned latch is
   * released; returns once that task runs.
   */
  static CountDownLatch occupy(Lane lane) {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    lane.execute(() -> {
      started.countDown();
      block(release);
    });
    await(started);
    return release;
  }

  static void join(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(PATIENCE_SECONDS));
      if (t.isAlive()) {
        throw new AssertionError("thread " + t.getName() + " did not finish");
      }
    }
  }

  static List<Thread> start(int n, String name, Runnable body) {
    List<Thread> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(body, name + "-" + i);
      t.start();
      out.add(t);
    }
    return out;
  }

  /** Waits until {@code t} is blocked (WAITING or TIMED_WAITING). */
  static void awaitBlocked(Thread t) {
    org.awaitility.Awaitility.await()
        .atMost(PATIENCE_SECONDS, TimeUnit.SECONDS)
        .pollInterval(java.time.Duration.ofMillis(2))
        .until(() -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  /** The books of a quiet lane: every submission accounted for. */
  static void assertBooksBalance(LaneStats s) {
    LaneCounts c = s.counts();
    long accounted =
        c.completed() + c.failed() + c.cancelled() + c.rejected() + c.returnedByShutdownNow()
            + s.queued() + s.running();
    org.assertj.core.api.Assertions.assertThat(accounted)
        .as("completed+failed+cancelled+rejected+returned+queued+running vs submitted in %s", s)
        .isEqualTo(c.submitted());
  }
}
