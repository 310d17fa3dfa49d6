package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** CoDel-like shedding ({@link LaneBuilder#shedWhenQueuedLongerThan}), on a hand-moved clock. */
class SheddingTest {
  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();

  private static final Duration TARGET = Duration.ofMillis(5);
  private static final Duration INTERVAL = Duration.ofMillis(100);

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  private static Runnable awaiting(CountDownLatch started, CountDownLatch release) {
    return () -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  @Test
  void aStandingQueueForAWholeIntervalShedsNewTasksUntilItDrains() throws Exception {
    AtomicLong clock = new AtomicLong(ms(1_000));
    long t0 = clock.get();
    try (Lane lane = books.track(Lane.blocking("shed", 1).ticker(clock::get)
        .shedWhenQueuedLongerThan(TARGET, INTERVAL).build())) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      List<Future<?>> accepted = new ArrayList<>();
      accepted.add(lane.submit(awaiting(started, release)));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      accepted.add(lane.submit(() -> {})); // queued at t0

      clock.set(t0 + ms(6)); // the head is above target, but only just: a burst, not a line
      accepted.add(lane.submit(() -> {}));
      clock.set(t0 + ms(104)); // above target since t0 + 5 ms: 99 ms, not yet the interval
      accepted.add(lane.submit(() -> {}));

      clock.set(t0 + ms(105)); // a whole interval above target
      assertThatThrownBy(() -> lane.submit(() -> {}))
          .isInstanceOf(LaneRejectedException.class)
          .hasMessageContaining("lane \"shed\" shed a task")
          .satisfies(e -> assertThat(((LaneRejectedException) e).reason()).isEqualTo(TaskOutcome.SHED));
      AtomicInteger plainRan = new AtomicInteger();
      assertThatThrownBy(() -> lane.execute(plainRan::incrementAndGet))
          .isInstanceOf(LaneRejectedException.class);
      assertThat(lane.stats().count(TaskOutcome.SHED)).isEqualTo(2);

      release.countDown();
      for (Future<?> f : accepted) {
        f.get(10, TimeUnit.SECONDS);
      }
      // The queue is empty: the stretch is over, tasks are accepted again.
      lane.submit(plainRan::incrementAndGet).get(10, TimeUnit.SECONDS);
      assertThat(plainRan.get()).isEqualTo(1);
      LaneStats s = lane.stats();
      assertThat(s.completed()).isEqualTo(5);
      assertThat(s.count(TaskOutcome.SHED)).isEqualTo(2);
      assertThat(s.rejected()).isEqualTo(2);
    }
  }

  @Test
  void aTaskStartedWithinTheTargetEndsTheStretch() throws Exception {
    AtomicLong clock = new AtomicLong(ms(1_000));
    long t0 = clock.get();
    try (Lane lane = books.track(Lane.blocking("shed-reset", 1).ticker(clock::get)
        .shedWhenQueuedLongerThan(TARGET, INTERVAL).build())) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<?> blocker = lane.submit(awaiting(started, release));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> a = lane.submit(() -> {}); // queued at t0
      clock.set(t0 + ms(6));
      CountDownLatch bStarted = new CountDownLatch(1);
      CountDownLatch bRelease = new CountDownLatch(1);
      Future<?> b = lane.submit(awaiting(bStarted, bRelease)); // head a is above: stretch from t0 + 5
      Future<?> d = lane.submit(() -> {});
      release.countDown();
      // b starts at t0 + 6 having waited 0: the stretch ends, though the queue (d) never emptied.
      assertThat(bStarted.await(10, TimeUnit.SECONDS)).isTrue();

      Future<?> e;
      Future<?> f;
      try {
        clock.set(t0 + ms(12)); // d is above target now: a new stretch, from t0 + 11 ms
        e = lane.submit(() -> {});
        clock.set(t0 + ms(105)); // 94 ms into the new stretch, 100 ms after the old one began
        f = lane.submit(() -> {});
        clock.set(t0 + ms(111)); // a whole interval into the new one
        assertThatThrownBy(() -> lane.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      } finally {
        bRelease.countDown();
      }
      for (Future<?> x : List.of(blocker, a, b, d, e, f)) {
        x.get(10, TimeUnit.SECONDS);
      }
      assertThat(lane.stats().count(TaskOutcome.SHED)).isEqualTo(1);
      assertThat(lane.stats().completed()).isEqualTo(6);
    }
  }

  @Test
  void aHeadWithinTheTargetSeenBySubmissionEndsTheStretch() throws Exception {
    AtomicLong clock = new AtomicLong(ms(1_000));
    long t0 = clock.get();
    try (Lane lane = books.track(Lane.blocking("shed-head", 1).ticker(clock::get)
        .shedWhenQueuedLongerThan(TARGET, INTERVAL).build())) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch aStarted = new CountDownLatch(1);
      CountDownLatch aRelease = new CountDownLatch(1);
      List<Future<?>> accepted = new ArrayList<>();
      try {
        accepted.add(lane.submit(awaiting(started, release)));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        accepted.add(lane.submit(awaiting(aStarted, aRelease))); // a, queued at t0
        clock.set(t0 + ms(6));
        accepted.add(lane.submit(() -> {})); // b; head a is above: stretch from t0 + 5
        release.countDown();
        // a starts having waited 6 ms (above the target: the stretch goes on) and holds the worker
        assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
        clock.set(t0 + ms(8));
        accepted.add(lane.submit(() -> {})); // head b has waited 2 ms: the stretch ends here
        clock.set(t0 + ms(105)); // b above since t0 + 11 ms: 94 ms, not yet an interval
        accepted.add(lane.submit(() -> {}));
        clock.set(t0 + ms(111));
        assertThatThrownBy(() -> lane.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      } finally {
        release.countDown();
        aRelease.countDown();
      }
      for (Future<?> f : accepted) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertThat(lane.stats().count(TaskOutcome.SHED)).isEqualTo(1);
      assertThat(lane.stats().completed()).isEqualTo(5);
    }
  }

  @Test
  void sheddingRefusesWhateverTheOverflowPolicy() throws Exception {
    for (OverflowPolicy policy : List.of(OverflowPolicy.callerRuns(),
        OverflowPolicy.blockCaller(Duration.ofMinutes(5)), OverflowPolicy.discardOldest())) {
      AtomicLong clock = new AtomicLong(ms(1_000));
      try (Lane lane = books.track(Lane.blocking("shed-policy", 1).queueCapacity(4).overflow(policy)
          .ticker(clock::get).shedWhenQueuedLongerThan(TARGET, INTERVAL).build())) {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> blocker = lane.submit(awaiting(started, release));
        Future<?> queued;
        AtomicInteger ranHere = new AtomicInteger();
        try {
          assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
          queued = lane.submit(() -> {});
          clock.addAndGet(ms(200)); // a line standing for longer than target + interval
          // Not run by the caller, not blocking it, not displacing the queued task: refused.
          assertThatThrownBy(() -> lane.execute(ranHere::incrementAndGet))
              .as("policy %s", policy)
              .isInstanceOf(LaneRejectedException.class)
              .satisfies(e -> assertThat(((LaneRejectedException) e).reason())
                  .isEqualTo(TaskOutcome.SHED));
        } finally {
          release.countDown();
        }
        blocker.get(10, TimeUnit.SECONDS);
        queued.get(10, TimeUnit.SECONDS);
        assertThat(ranHere.get()).isZero();
        assertThat(lane.stats().count(TaskOutcome.SHED)).isEqualTo(1);
        assertThat(lane.stats().completed()).isEqualTo(2);
      }
    }
  }

  @Test
  void sheddingIsOffByDefault() throws Exception {
    AtomicLong clock = new AtomicLong(ms(1_000));
    try (Lane lane = books.track(Lane.blocking("no-shed", 1).ticker(clock::get).build())) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<?> blocker = lane.submit(awaiting(started, release));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> queued = lane.submit(() -> {});
      clock.addAndGet(ms(60_000));
      Future<?> late = lane.submit(() -> {});
      release.countDown();
      for (Future<?> f : List.of(blocker, queued, late)) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertThat(lane.stats().count(TaskOutcome.SHED)).isZero();
    }
  }

  @Test
  void settingsAreCheckedAndGivenOnce() {
    assertThatThrownBy(() -> Lane.blocking("db", 2).shedWhenQueuedLongerThan(Duration.ZERO, INTERVAL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane \"db\": shedding target must be > 0 and at most PT1H, was PT0S");
    assertThatThrownBy(() -> Lane.blocking("db", 2).shedWhenQueuedLongerThan(TARGET, Duration.ofHours(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane \"db\": shedding interval must be > 0 and at most PT1H, was PT2H");
    assertThatThrownBy(() -> Lane.blocking("db", 2).shedWhenQueuedLongerThan(null, INTERVAL))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lane \"db\"");
    assertThatThrownBy(() -> Lane.blocking("db", 2).shedWhenQueuedLongerThan(TARGET, INTERVAL)
        .shedWhenQueuedLongerThan(TARGET, INTERVAL))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shedWhenQueuedLongerThan was already set");
  }
}
