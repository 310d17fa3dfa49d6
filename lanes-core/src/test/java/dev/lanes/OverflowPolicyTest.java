package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each overflow policy on a full lane: one task running, two queued, a fourth arriving. */
class OverflowPolicyTest {
  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();


  enum Kind {
    PLATFORM,
    VIRTUAL
  }

  private static LaneBuilder lane(Kind kind, String name) {
    return (kind == Kind.PLATFORM ? Lane.blocking(name, 1) : Lane.virtual(name, 1)).queueCapacity(2);
  }

  /** Fills the lane: returns the latch that releases the running task. */
  private static CountDownLatch fill(Lane lane, List<CompletableFuture<?>> futures) {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    futures.add(lane.submit("blocker", () -> {
      started.countDown();
      Work.block(release);
    }));
    Work.await(started);
    futures.add(lane.submit("q1", () -> {}));
    futures.add(lane.submit("q2", () -> {}));
    return release;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rejectThrowsANamedExceptionAndCounts(Kind kind) {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "rej").build())) {
      CountDownLatch release = fill(lane, futures);
      assertThatThrownBy(() -> lane.submit(() -> {}))
          .isInstanceOf(LaneRejectedException.class)
          .hasMessage("lane \"rej\" rejected a task: queue full (queue capacity 2, queued 2, running 1)")
          .satisfies(e -> assertThat(((LaneRejectedException) e).reason()).isEqualTo(TaskOutcome.QUEUE_FULL));
      release.countDown();
      CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.QUEUE_FULL)).isEqualTo(1);
      assertThat(lane.stats().completed()).isEqualTo(3);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void callerRunsRunsOnTheSubmittingThread(Kind kind) throws Exception {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "cr").overflow(OverflowPolicy.callerRuns()).build())) {
      CountDownLatch release = fill(lane, futures);
      AtomicReference<Thread> ranOn = new AtomicReference<>();
      CompletableFuture<?> f = lane.submit(() -> ranOn.set(Thread.currentThread()));
      assertThat(f).isDone();
      assertThat(ranOn.get()).isSameAs(Thread.currentThread());
      release.countDown();
      lane.close();
      assertThat(lane.stats().completed()).isEqualTo(4);
      assertThat(lane.stats().rejected()).isZero();
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void blockCallerRejectsAfterTheTimeout(Kind kind) {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "bc").overflow(OverflowPolicy.blockCaller(Duration.ofMillis(50))).build())) {
      CountDownLatch release = fill(lane, futures);
      assertThatThrownBy(() -> lane.submit(() -> {}))
          .isInstanceOf(LaneRejectedException.class)
          .hasMessageContaining("block-caller timeout expired");
      release.countDown();
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.BLOCK_TIMEOUT)).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void blockCallerWaitsForRoom(Kind kind) throws Exception {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "bcw").overflow(OverflowPolicy.blockCaller(Duration.ofMinutes(1))).build())) {
      CountDownLatch release = fill(lane, futures);
      AtomicReference<CompletableFuture<?>> late = new AtomicReference<>();
      Thread submitter = new Thread(() -> late.set(lane.submit(() -> {})), "submitter");
      submitter.start();
      Work.awaitBlocked(submitter); // blocked on the full queue
      assertThat(late.get()).isNull();
      release.countDown();
      submitter.join();
      late.get().get();
      lane.close();
      assertThat(lane.stats().completed()).isEqualTo(4);
      assertThat(lane.stats().rejected()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void discardOldestCancelsTheOldestQueuedTaskAndCountsIt(Kind kind) {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "do").overflow(OverflowPolicy.discardOldest()).build())) {
      lane.onTask(records::add);
      CountDownLatch release = fill(lane, futures);
      CompletableFuture<?> newest = lane.submit("q3", () -> {});
      assertThat(futures.get(1)).isCancelled(); // q1, the oldest queued
      release.countDown();
      newest.join();
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1);
      assertThat(lane.stats().completed()).isEqualTo(3);
      assertThat(records).anySatisfy(r -> {
        assertThat(r.label()).isEqualTo("q1");
        assertThat(r.outcome()).isEqualTo(TaskOutcome.DISCARDED_OLDEST);
      });
      Work.assertBooksBalance(lane.stats());
    }
  }

  @org.junit.jupiter.api.Test
  void anInterruptedBlockedCallerIsRejectedAtOnceAndKeepsItsInterrupt() throws Exception {
    try (Lane lane = books.track(Lane.blocking("block-interrupt", 1).queueCapacity(1)
        .overflow(OverflowPolicy.blockCaller(java.time.Duration.ofHours(1))).build())) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {}); // the queue's one slot
      java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
          new java.util.concurrent.atomic.AtomicReference<>();
      java.util.concurrent.atomic.AtomicBoolean stillInterrupted =
          new java.util.concurrent.atomic.AtomicBoolean();
      Thread caller = new Thread(() -> {
        Thread.currentThread().interrupt();
        try {
          lane.execute(() -> {});
        } catch (Throwable e) {
          thrown.set(e);
        }
        stillInterrupted.set(Thread.currentThread().isInterrupted());
      });
      caller.start();
      caller.join(java.util.concurrent.TimeUnit.SECONDS.toMillis(Work.PATIENCE_SECONDS)); // far below the 1 h timeout
      assertThat(caller.isAlive()).isFalse();
      assertThat(thrown.get()).isInstanceOf(LaneRejectedException.class);
      assertThat(((LaneRejectedException) thrown.get()).reason()).isEqualTo(TaskOutcome.BLOCK_TIMEOUT);
      assertThat(thrown.get()).as("the interrupt, not a timeout, ended the wait")
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(stillInterrupted.get()).isTrue();
      release.countDown();
    }
  }
  /**
   * A plain {@code execute(Runnable)} that waited for room under block-caller is queued as it is,
   * like one that found room at once: no envelope of lanes' own (the ring's entry is the task).
   * Room is made by cancelling a queued task, so the new one stays queued where it can be seen.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPlainTaskThatWaitedForRoomRidesInTheRingAsItIs(Kind kind) throws Exception {
    List<CompletableFuture<?>> futures = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(lane(kind, "bcp")
        .overflow(OverflowPolicy.blockCaller(Duration.ofMinutes(1))).build())) {
      CountDownLatch release = fill(lane, futures);
      CountDownLatch ran = new CountDownLatch(1);
      Runnable plain = ran::countDown;
      Thread submitter = new Thread(() -> lane.execute(plain), "plain-submitter");
      submitter.start();
      Work.awaitBlocked(submitter); // blocked on the full lane
      futures.get(1).cancel(false); // q1: its slot is given back, the blocked caller takes it
      submitter.join(java.util.concurrent.TimeUnit.SECONDS.toMillis(Work.PATIENCE_SECONDS));
      try {
        assertThat(submitter.isAlive()).isFalse();
        LaneExecutor executor = (LaneExecutor) lane;
        assertThat(executor.books.queuedEnvelopes()).hasSize(1); // q2's; the plain task has none
        assertThat(executor.queuedCount()).isEqualTo(2);
      } finally {
        release.countDown(); // a failed check must not leave the lane's close waiting on it
      }
      Work.await(ran);
      lane.close();
      assertThat(lane.stats().completed()).isEqualTo(3); // blocker, q2, the plain task
      assertThat(lane.stats().count(TaskOutcome.CANCELLED)).isEqualTo(1);
      assertThat(lane.stats().rejected()).isZero();
      Work.assertBooksBalance(lane.stats());
    }
  }
}
