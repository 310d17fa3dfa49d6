package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A late append to a stopped lane (DESIGN.md, "A late append to a stopped lane"): a submitter
 * that re-checks the state after its append and finds the lane stopped takes back what is in the
 * ring, which may hold other submitters' entries. The instants between a submission's append and
 * its re-check cannot be hit on purpose from outside, so these tests take them apart: they admit
 * and append as {@code LaneExecutor.accept} does, then call the re-check ({@link
 * LaneExecutor#afterAppend}) when the scenario needs it.
 *
 * <p>Before this was handled, a plain task taken back by another submitter went to the exception
 * handler while its own {@code execute} returned normally (CI saw it once, in {@code
 * StressTest.plainTasksBlockedForRoom…}): the task neither ran, nor was returned, nor refused to
 * its caller.
 */
class LateAppendTest {
  @RegisterExtension final Books books = new Books();

  private final AtomicInteger heardByHandler = new AtomicInteger();

  /** A one-worker lane whose worker is held by a task until {@code release} opens. */
  private LaneExecutor heldLane(CountDownLatch release) throws InterruptedException {
    LaneExecutor lane = (LaneExecutor) books.track(Lane.blocking("late", 1).queueCapacity(8)
        .exceptionHandler((t, e) -> heardByHandler.incrementAndGet()).build());
    CountDownLatch started = new CountDownLatch(1);
    lane.submit(() -> { // submit: the interrupt shutdownNow sends fails its future, not the handler
      started.countDown();
      Work.block(release);
    });
    Work.await(started);
    return lane;
  }

  /** Admits and appends a plain task as {@code accept} does, without the re-check after it. */
  private static void appendWithoutRecheck(LaneExecutor lane, Runnable task) {
    assertThat(lane.admission.tryAdmit(1 + 8)).as("the lane has room").isTrue();
    lane.ring.append(task, lane.ticker.read());
  }

  /** Waits for the lane to end, checks nothing reached the exception handler; its stats then. */
  private LaneStats terminatedWithNothingDropped(LaneExecutor lane) throws InterruptedException {
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, java.util.concurrent.TimeUnit.SECONDS))
        .as("the lane terminated").isTrue();
    assertThat(heardByHandler).as("nothing dropped to the exception handler").hasValue(0);
    return lane.stats();
  }

  @Test
  void aPlainTaskTakenBackByAnotherSubmitterAfterShutdownNowIsRefusedToItsOwnCaller()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LaneExecutor lane = heldLane(release);
    try {
      assertThat(lane.shutdownNow()).as("nothing was queued yet").isEmpty();
      Runnable first = () -> { };
      Runnable second = () -> { };
      appendWithoutRecheck(lane, first); // both appended after the drain, not yet re-checked
      appendWithoutRecheck(lane, second);

      // the second submitter's re-check takes back both entries: its own, and the first's
      assertThatThrownBy(() -> lane.afterAppend(second))
          .isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.SHUTDOWN));
      // the first submitter's re-check finds the ring empty, and still hears of its task
      assertThatThrownBy(() -> lane.afterAppend(first))
          .isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.SHUTDOWN));
    } finally {
      release.countDown();
    }
    LaneStats s = terminatedWithNothingDropped(lane);
    assertThat(s.count(TaskOutcome.SHUTDOWN)).isEqualTo(2);
    assertThat(s.submitted()).as("the held task and the two late ones").isEqualTo(3);
  }

  @Test
  void aPlainTaskWhoseCallerLeftBeforeTheStopIsReturnedByShutdownNowEvenIfAnotherSubmitterTookItBack()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LaneExecutor lane = heldLane(release);
    List<Runnable> returned;
    Runnable early = () -> { };
    Runnable late = () -> { };
    try {
      lane.execute(early); // queued behind the held task; its caller has left
      // shutdownNow's first step (the stop), then a racing submitter's append and re-check, then
      // the rest of shutdownNow: the late submitter takes back both entries before the drain
      lane.runState.advanceTo(RunState.STOP);
      appendWithoutRecheck(lane, late);
      assertThatThrownBy(() -> lane.afterAppend(late))
          .isInstanceOf(LaneRejectedException.class);
      returned = lane.shutdownNow();
    } finally {
      release.countDown();
    }
    assertThat(returned).as("the early task, which its caller left queued").containsExactly(early);
    LaneStats s = terminatedWithNothingDropped(lane);
    assertThat(s.count(TaskOutcome.RETURNED)).isEqualTo(1);
    assertThat(s.count(TaskOutcome.SHUTDOWN)).isEqualTo(1);
  }

  @Test
  void aLabelledExecuteTaskTakenBackByAnotherSubmitterIsRefusedToItsOwnCaller() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LaneExecutor lane = heldLane(release);
    try {
      lane.shutdownNow();
      Runnable task = () -> { };
      // the envelope execute("label", task) queues: it has no future for its caller to read
      LaneFuture<Void> envelope = LaneFuture.internal(lane, task, task, "label", lane.ticker.read());
      assertThat(lane.admission.tryAdmit(1 + 8)).isTrue();
      lane.ring.append(envelope, envelope.acceptedNanos);
      Runnable late = () -> { };
      appendWithoutRecheck(lane, late);
      assertThatThrownBy(() -> lane.afterAppend(late)).isInstanceOf(LaneRejectedException.class);
      assertThatThrownBy(() -> lane.afterAppend(envelope))
          .isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.SHUTDOWN));
    } finally {
      release.countDown();
    }
    assertThat(terminatedWithNothingDropped(lane).count(TaskOutcome.SHUTDOWN)).isEqualTo(2);
  }

  @Test
  void aSubmitFutureTakenBackByAnotherSubmitterFailsWithShutdown() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LaneExecutor lane = heldLane(release);
    java.util.concurrent.CompletableFuture<Void> f;
    try {
      lane.shutdownNow();
      f = new LaneFuture<Void>(lane, () -> { }, null);
      LaneFuture<Void> envelope = (LaneFuture<Void>) f;
      envelope.prepare(envelope, "", lane.ticker.read(), null);
      assertThat(lane.admission.tryAdmit(1 + 8)).isTrue();
      lane.ring.append(envelope, envelope.acceptedNanos);
      Runnable late = () -> { };
      appendWithoutRecheck(lane, late);
      assertThatThrownBy(() -> lane.afterAppend(late)).isInstanceOf(LaneRejectedException.class);
    } finally {
      release.countDown();
    }
    assertThat(f).isCompletedExceptionally();
    assertThat(f.exceptionNow()).isInstanceOfSatisfying(LaneRejectedException.class,
        e -> assertThat(e.reason()).isEqualTo(TaskOutcome.SHUTDOWN));
    terminatedWithNothingDropped(lane);
  }
}
