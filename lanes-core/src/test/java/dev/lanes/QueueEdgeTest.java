package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The edges of a lane's queue (issue #40): a task cancelled while queued leaves the queue's
 * figures at once, discard-oldest never drops a task a free worker is about to take, and {@code
 * close()} waits for a task its caller runs.
 */
@Timeout(120)
class QueueEdgeTest {
  @RegisterExtension final Books books = new Books();

  /** A ticker the test moves by hand. */
  static final class HandTicker implements Ticker {
    final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
      return now.get();
    }

    void advance(Duration d) {
      now.addAndGet(d.toNanos());
    }
  }

  /**
   * A task cancelled while queued is no longer the head of the queue: with nothing live queued, a
   * shedding lane admits new tasks, {@code oldestQueuedNanos} reads 0 and health stays OK.
   */
  @Test
  void aTaskCancelledWhileQueuedNoLongerCountsAsTheHeadOfTheQueue() throws Exception {
    HandTicker ticker = new HandTicker();
    LaneExecutor lane = (LaneExecutor) books.track(Lane.blocking("cancelled-head", 1)
        .queueCapacity(10).ticker(ticker)
        .shedWhenQueuedLongerThan(Duration.ofMillis(1), Duration.ofMillis(1))
        .saturatedWhenWaitExceeds(Duration.ofMillis(5))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).build());
    CountDownLatch release = Work.occupy(lane);
    CompletableFuture<?> queued = lane.submit(() -> {});
    assertThat(queued.cancel(false)).isTrue();
    ticker.advance(Duration.ofSeconds(2));
    lane.checkHealth();
    LaneStats s = lane.stats();
    assertThat(s.queued()).isZero();
    assertThat(s.oldestQueuedNanos()).as("the oldest queued task's wait, on an empty queue").isZero();
    assertThat(lane.health()).isEqualTo(LaneHealth.OK);
    for (int i = 0; i < 3; i++) { // a shedding lane with nothing live queued sheds nothing
      lane.execute(() -> {});
      ticker.advance(Duration.ofNanos(100_000)); // these wait less than the target
    }
    release.countDown();
    Awaitility.await().until(() -> lane.stats().completed() == 4);
  }

  /**
   * The JSR-166 TCK's {@code testSaturatedExecute_DiscardOldestPolicy}: on a lane of concurrency
   * 1 and queue capacity 1, {@code execute(r1); execute(r2); execute(r3)} runs r1 and r3 and
   * discards r2 — never r1, whose worker slot was free when r3 came.
   */
  @Test
  void discardOldestNeverDropsATaskAFreeWorkerIsAboutToTake() throws Exception {
    for (LaneKind kind : new LaneKind[] {LaneKind.BLOCKING, LaneKind.VIRTUAL}) {
      int wrong = 0;
      for (int round = 0; round < 300; round++) {
        LaneBuilder b = kind == LaneKind.VIRTUAL ? Lane.virtual("tck-v", 1) : Lane.blocking("tck", 1);
        Lane lane = b.queueCapacity(1).overflow(OverflowPolicy.discardOldest()).build();
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean ran1 = new AtomicBoolean();
        AtomicBoolean ran2 = new AtomicBoolean();
        AtomicBoolean ran3 = new AtomicBoolean();
        lane.execute(() -> { ran1.set(true); Work.block(done); });
        lane.execute(() -> { ran2.set(true); Work.block(done); });
        lane.execute(() -> { ran3.set(true); Work.block(done); });
        done.countDown();
        lane.shutdown();
        assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
        if (!ran1.get() || ran2.get() || !ran3.get()) {
          wrong++;
        }
        assertThat(lane.stats().ended().get(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1);
      }
      assertThat(wrong).as(kind + ": rounds that discarded r1 (a free worker's) instead of r2")
          .isZero();
    }
  }

  /**
   * {@code close()} returns only after a task run by its caller (caller-runs) ended; the snapshot
   * then says terminated with nothing running.
   */
  @Test
  void closeWaitsForATaskItsCallerRuns() throws Exception {
    Lane lane = Lane.blocking("close-caller", 1).queueCapacity(1)
        .overflow(OverflowPolicy.callerRuns()).build();
    CountDownLatch releaseWorker = Work.occupy(lane);
    lane.execute(() -> {}); // fills the queue
    CountDownLatch callerStarted = new CountDownLatch(1);
    CountDownLatch releaseCaller = new CountDownLatch(1);
    List<Thread> caller = Work.start(1, "caller", () -> lane.execute(() -> {
      callerStarted.countDown();
      Work.block(releaseCaller);
    }));
    Work.await(callerStarted);
    List<Thread> closer = Work.start(1, "closer", lane::close);
    releaseWorker.countDown();
    Awaitility.await().until(() -> lane.stats().completed() == 2);
    // With the caller's task still running the lane must not terminate: a correct lane never
    // does, so this wait cannot pass by luck; a lane that forgets the caller terminates at once.
    assertThat(lane.awaitTermination(300, TimeUnit.MILLISECONDS))
        .as("terminated while its caller still ran a task").isFalse();
    assertThat(closer.get(0).isAlive()).as("close() returned while the caller's task ran").isTrue();
    releaseCaller.countDown();
    Work.join(closer);
    Work.join(caller);
    LaneStats s = lane.stats();
    assertThat(s.terminated()).isTrue();
    assertThat(s.running()).isZero();
    assertThat(s.completed()).isEqualTo(3);
  }
}
