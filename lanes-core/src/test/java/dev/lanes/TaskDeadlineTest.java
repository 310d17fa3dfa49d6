package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TaskDeadline}: a thread's deadline scope reaches every way of giving a lane a task, the
 * earlier deadline wins, and scopes are closed where and in the order they were opened.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TaskDeadlineTest {

  @AfterEach
  void noScopeLeftOpen() {
    assertThat(TaskDeadline.nanosLeft()).as("a scope left open on the test thread")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void everyWayOfGivingATaskGetsTheScopesDeadline() throws Exception {
    List<Throwable> handled = new ArrayList<>();
    try (Lane lane = Lane.blocking("scoped", 1).queueCapacity(10)
        .exceptionHandler((t, e) -> {
          synchronized (handled) {
            handled.add(e);
          }
        }).build()) {
      CountDownLatch release = Work.occupy(lane);
      AtomicInteger ran = new AtomicInteger();
      CompletableFuture<Integer> submitted;
      CompletableFuture<Integer> async;
      List<Future<Integer>> all;
      try (TaskDeadline d = TaskDeadline.startWithin(Duration.ofMillis(50))) {
        assertThat(d.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(50));
        submitted = lane.submit(() -> ran.incrementAndGet());
        lane.execute(ran::incrementAndGet);
        lane.execute("labelled", ran::incrementAndGet);
        async = CompletableFuture.supplyAsync(ran::incrementAndGet, lane);
        Callable<Integer> c = ran::incrementAndGet;
        all = lane.invokeAll(List.of(c, c)); // returns once both expired
      }
      Awaitility.await().until(() -> lane.stats().count(TaskOutcome.EXPIRED) == 6);
      assertThat(lane.queued()).isZero();
      release.countDown();
      assertThatThrownBy(submitted::join).cause().isInstanceOf(LaneRejectedException.class);
      assertThatThrownBy(async::join).isInstanceOf(CompletionException.class)
          .cause().isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED));
      for (Future<Integer> f : all) {
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(LaneRejectedException.class);
      }
      // After the scope: no deadline. Held behind the busy worker longer than 50 ms, it runs.
      CountDownLatch again = Work.occupy(lane);
      CompletableFuture<Integer> later = lane.submit(() -> 7);
      Awaitility.await().until(
          () -> lane.stats().oldestQueuedNanos() > TimeUnit.MILLISECONDS.toNanos(100));
      again.countDown();
      assertThat(later.get()).isEqualTo(7);
      lane.close();
      assertThat(ran).as("an expired task ran").hasValue(0);
      synchronized (handled) {
        assertThat(handled).as("the two tasks given to execute, reported")
            .hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOfSatisfying(
                LaneRejectedException.class,
                r -> assertThat(r.reason()).isEqualTo(TaskOutcome.EXPIRED)));
      }
      Work.assertBooksBalance(lane.stats());
    }
  }

  /**
   * The plain path stays plain: with no scope open, a task given to {@code execute} rides in the
   * queue as it is (no envelope); inside a scope it gets an envelope that carries the deadline.
   */
  @Test
  void aPlainTaskRidesAsItIsUnlessAScopeIsOpen() {
    for (boolean scoped : new boolean[] {false, true}) {
      try (Lane lane = Lane.blocking("plain-" + scoped, 1).build()) {
        CountDownLatch release = Work.occupy(lane);
        Runnable plain = () -> { };
        if (scoped) {
          try (TaskDeadline d = TaskDeadline.startWithin(Duration.ofHours(1))) {
            lane.execute(plain);
          }
        } else {
          lane.execute(plain);
        }
        Object queued = ((LaneExecutor) lane).ring.peek(new Taken());
        if (scoped) {
          assertThat(queued).isInstanceOfSatisfying(LaneFuture.class,
              e -> assertThat(e.deadline).isNotNull());
        } else {
          assertThat(queued).isSameAs(plain);
        }
        release.countDown();
      }
    }
  }

  @Test
  void theEarlierDeadlineWinsNestedOrGivenToTheTask() {
    try (Lane lane = Lane.blocking("earlier", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      CompletableFuture<Void> inner;
      CompletableFuture<Void> own;
      CompletableFuture<Void> outerKept;
      try (TaskDeadline outer = TaskDeadline.startWithin(Duration.ofMillis(50))) {
        try (TaskDeadline longer = TaskDeadline.startWithin(Duration.ofHours(1))) {
          assertThat(longer.remaining()).isLessThanOrEqualTo(Duration.ofMillis(50));
          inner = lane.submit("inner", () -> { });
        }
        own = lane.submit("own", Duration.ofHours(1), () -> { });
        outerKept = lane.submit("outer", () -> { });
      }
      CompletableFuture<Void> shorterOwn;
      try (TaskDeadline hour = TaskDeadline.startWithin(Duration.ofHours(1))) {
        shorterOwn = lane.submit("short", Duration.ofMillis(50), () -> { });
      }
      Awaitility.await().until(() -> lane.stats().count(TaskOutcome.EXPIRED) == 4);
      release.countDown();
      for (CompletableFuture<Void> f : List.of(inner, own, outerKept, shorterOwn)) {
        assertThat(f).isCompletedExceptionally();
      }
    }
  }

  @Test
  void aScopeWhoseDeadlinePassedRefusesAtOnce() {
    try (Lane lane = Lane.blocking("passed", 1).build();
        TaskDeadline d = TaskDeadline.startWithin(Duration.ZERO)) {
      assertThatThrownBy(() -> lane.execute(() -> { }))
          .isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED));
      assertThat(lane.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1);
    }
  }

  @Test
  void scopesCloseOnTheirThreadInOrderAndOnce() throws Exception {
    TaskDeadline outer = TaskDeadline.startWithin(Duration.ofSeconds(10));
    TaskDeadline inner = TaskDeadline.startWithin(Duration.ofSeconds(5));
    assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after the scopes opened inside it");
    List<Throwable> elsewhere = new ArrayList<>();
    Work.join(Work.start(1, "other", () -> {
      try {
        inner.close();
      } catch (IllegalStateException e) {
        elsewhere.add(e);
      }
    }));
    assertThat(elsewhere).singleElement().asString().contains("closed by the thread that opened it");
    inner.close();
    inner.close(); // a second close does nothing
    assertThat(TaskDeadline.nanosLeft()).isBetween(1L, TimeUnit.SECONDS.toNanos(10));
    outer.close();
    assertThatThrownBy(() -> TaskDeadline.startWithin(null))
        .isInstanceOf(NullPointerException.class);
    try (TaskDeadline far = TaskDeadline.startWithin(Duration.ofDays(365_000))) {
      assertThat(far.remaining()).isLessThanOrEqualTo(Duration.ofDays(36_525));
    }
  }
}
