package dev.lanes.testkit;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One of an executor's threads held by a task until {@link #close()}: for tests that need a
 * lane's only thread busy while they queue more work behind it.
 */
public final class Occupied implements AutoCloseable {
  private final CountDownLatch release = new CountDownLatch(1);

  private Occupied() {}

  /**
   * Starts a task on {@code executor} that holds its thread until {@link #close()}; returns once
   * it runs (or throws after 30 s).
   */
  public static Occupied oneThreadOf(Executor executor) throws InterruptedException {
    Occupied o = new Occupied();
    CountDownLatch started = new CountDownLatch(1);
    executor.execute(() -> {
      started.countDown();
      try {
        o.release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    if (!started.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the occupying task did not start within 30 s");
    }
    return o;
  }

  /** Lets the occupying task end. */
  @Override
  public void close() {
    release.countDown();
  }
}
