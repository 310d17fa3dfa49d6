package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fork-join pool's view read in this JVM (which, like the agent at start, has {@code
 * java.util.concurrent} opened to the class path), and the watchdog's stamp sweep on it.
 */
class ForkJoinPoolViewTest {
  private static final long SWEEP_AGE = new AgentOptions().sweepAgeNanos;
  /** How long a step may take before the test fails instead of hanging. */
  private static final long STEP_SECONDS = 10;

  /** A pool of one thread held by a task until {@link #release}; tasks given to it stay queued. */
  private static final class HeldPool implements AutoCloseable {
    final ForkJoinPool pool = new ForkJoinPool(1);
    final CountDownLatch running = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldPool() throws InterruptedException {
      pool.execute(() -> {
        running.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      if (!running.await(STEP_SECONDS, TimeUnit.SECONDS)) {
        close();
        throw new AssertionError("the pool did not run its first task in " + STEP_SECONDS + " s");
      }
    }

    @Override public void close() throws InterruptedException {
      release.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(STEP_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void theViewListsTheTasksQueuedInThePool() throws Exception {
    PoolView view = PoolView.of(PoolKind.FORK_JOIN, new Object());
    assertThat(view).isSameAs(ForkJoinPoolView.INSTANCE);
    assertThat(ForkJoinPoolView.listsQueues(view)).isTrue();
    ForkJoinTask<?> queued = ForkJoinTask.adapt(() -> { });
    try (HeldPool held = new HeldPool()) {
      held.pool.execute(queued);
      assertThat(List.<Object>copyOf(view.queuedTasks(held.pool))).containsExactly(queued);
      assertThat(view.head(held.pool)).isSameAs(queued);
      assertThat(view.queued(held.pool)).isEqualTo(1);
      assertThat(view.threads(held.pool)).isEqualTo(1);
      assertThat(view.maxThreads(held.pool)).isEqualTo(1);
      assertThat(view.active(held.pool)).isEqualTo(1);
      assertThat(view.isShutdown(held.pool)).isFalse();
      held.release.countDown();
      queued.get(STEP_SECONDS, TimeUnit.SECONDS);
      assertThat(List.<Object>copyOf(view.queuedTasks(held.pool))).doesNotContain(queued);
    }
  }

  @Test
  void theSweepKeepsTheStampOfATaskStillQueuedAndDropsOneThatLeftTheQueueUnseen() throws Exception {
    StampTable stamps = new StampTable(1024);
    ForkJoinTask<?> stillQueued = ForkJoinTask.adapt(() -> { });
    ForkJoinTask<?> ranUnseen = ForkJoinTask.adapt(() -> { }); // run by a join, say
    Pools pools = new Pools(10);
    Watchdog watchdog = new Watchdog(pools, stamps, new AgentOptions(), new Warnings());
    try (HeldPool held = new HeldPool()) {
      pools.recordFor(held.pool, true); // as the agent's hooks register a pool they see
      long stamped = System.nanoTime();
      stamps.put(stillQueued, stamped);
      stamps.put(ranUnseen, stamped);
      held.pool.execute(stillQueued);
      // One sweep age and more later (the watchdog's clock is given, not waited for).
      watchdog.tick(stamped + 2 * SWEEP_AGE + 1);
      assertThat(stamps.peek(stillQueued)).isEqualTo(stamped);
      assertThat(stamps.peek(ranUnseen)).isEqualTo(StampTable.NONE);
    }
  }
}
