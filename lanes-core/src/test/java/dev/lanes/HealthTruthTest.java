package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * What the health state and its messages say is true when they are read: DEADLOCKED clears on
 * the first check after the evidence is gone, and a saturation message gives no mean run time
 * before a task has ended.
 */
class HealthTruthTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  private final List<HealthEvent> events = new CopyOnWriteArrayList<>();

  private LaneExecutor lane(LaneBuilder b) {
    LaneExecutor lane = (LaneExecutor) b.ticker(clock::get).build();
    lane.onHealth(events::add);
    return lane;
  }

  @Test
  void deadlockedClearsOnTheFirstCheckAfterACureEmptiedTheLane() throws Exception {
    try (LaneExecutor lane = lane(Lane.blocking("cured", 1).failOnDeadlock())) {
      CompletableFuture<String> parent = lane.submit(() -> lane.submit(() -> "child").get());
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(LaneRejectedException.class);
      Awaitility.await().until(() -> lane.stats().running() == 0 && lane.stats().queued() == 0);
      lane.checkHealth(); // the clock has not moved: no exit hysteresis period has passed
      assertThat(lane.health()).isEqualTo(LaneHealth.OK);
      Awaitility.await().until(() -> events.stream().anyMatch(
          e -> e.from() == LaneHealth.DEADLOCKED && e.to() == LaneHealth.OK));
    }
  }

  @Test
  void deadlockedHoldsWhileTheCycleHoldsAndClearsWhenItIsBroken() throws Exception {
    try (LaneExecutor lane = lane(Lane.blocking("reported", 1))) { // REPORT: nothing acts
      CompletableFuture<CompletableFuture<String>> child = new CompletableFuture<>();
      CompletableFuture<String> parent = lane.submit(() -> {
        CompletableFuture<String> c = lane.submit(() -> "child");
        child.complete(c);
        return c.get();
      });
      Awaitility.await().until(() -> lane.health() == LaneHealth.DEADLOCKED);
      for (int i = 0; i < 3; i++) {
        clock.addAndGet(2_000 * MS);
        lane.checkHealth();
        assertThat(lane.health()).isEqualTo(LaneHealth.DEADLOCKED);
      }
      child.get().cancel(false); // the evidence goes
      parent.handle((v, e) -> null).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      lane.checkHealth();
      assertThat(lane.health()).isNotEqualTo(LaneHealth.DEADLOCKED);
    }
  }

  @Test
  void aSaturationMessageBeforeAnyTaskEndedSaysSoInsteadOfAMeanRunOfMinusOne() throws Exception {
    try (LaneExecutor lane = lane(Lane.blocking("nothing-ended", 1)
        .saturationHysteresis(Duration.ZERO, Duration.ZERO))) {
      CountDownLatch release = Work.occupy(lane);
      try {
        lane.execute(() -> {}); // waits behind the task that never ended
        clock.addAndGet(1_600 * MS);
        lane.checkHealth();
        Awaitility.await().until(() -> events.stream().anyMatch(e -> e.to() == LaneHealth.SATURATED));
        HealthEvent sat = events.stream().filter(e -> e.to() == LaneHealth.SATURATED).findFirst()
            .orElseThrow();
        assertThat(sat.diagnostic()).contains("no task has ended yet").doesNotContain("-1.0");
      } finally {
        release.countDown();
      }
    }
  }
}
