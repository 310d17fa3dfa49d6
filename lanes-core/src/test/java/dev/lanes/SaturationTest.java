package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Health state transitions driven by an injected clock: each transition happens only after its
 * condition held for the hysteresis period, is published as an event with its figures, and the
 * saturated time adds up.
 */
class SaturationTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final AtomicLong clock = new AtomicLong();
  private final List<HealthEvent> events = new CopyOnWriteArrayList<>();

  private LaneExecutor lane(int queueCapacity) {
    Lane lane = Lane.blocking("sat", 1).queueCapacity(queueCapacity).ticker(clock::get).build();
    lane.onHealth(events::add);
    return (LaneExecutor) lane;
  }

  private void at(LaneExecutor lane, long millis) {
    clock.set(millis * MS);
    lane.checkHealth();
  }

  private void awaitEvents(int n) {
    Awaitility.await().until(() -> events.size() >= n);
    assertThat(events).hasSize(n);
  }

  @Test
  void entersSaturatedOnlyAfterTheWaitHeldAndLeavesAfterItStopped() throws Exception {
    LaneExecutor lane = lane(10);
    try (lane) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {}); // waits behind the blocker from t = 0
      at(lane, 500);
      assertThat(lane.health()).isEqualTo(LaneHealth.OK); // waiting, but not for 1 s yet
      at(lane, 1_600);
      awaitEvents(1);
      HealthEvent sat = events.get(0);
      assertThat(sat.from()).isEqualTo(LaneHealth.OK);
      assertThat(sat.to()).isEqualTo(LaneHealth.SATURATED);
      assertThat(sat.figures().get("oldestQueuedMs")).isEqualTo(1_600.0);
      assertThat(sat.diagnostic()).contains("above threshold");
      release.countDown();
      Awaitility.await().until(() -> lane.stats().running() == 0 && lane.stats().queued() == 0);
      at(lane, 2_000); // queue empty; the window's mean wait equals its mean run: not saturated
      at(lane, 3_500); // OK for 1.5 s: not yet 2 s
      assertThat(lane.health()).isEqualTo(LaneHealth.SATURATED);
      at(lane, 4_100);
      awaitEvents(2);
      assertThat(events.get(1).from()).isEqualTo(LaneHealth.SATURATED);
      assertThat(events.get(1).to()).isEqualTo(LaneHealth.OK);
      assertThat(lane.stats().saturatedNanos()).isEqualTo((4_100 - 1_600) * MS);
    }
  }

  @Test
  void aSingleSlowBlipDoesNotFlap() throws Exception {
    LaneExecutor lane = lane(10);
    try (lane) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {});
      at(lane, 800); // waited 0.8 s: condition holds, but not long enough
      release.countDown();
      Awaitility.await().until(() -> lane.stats().queued() == 0 && lane.stats().running() == 0);
      at(lane, 900);
      at(lane, 2_000);
      assertThat(events).isEmpty();
      assertThat(lane.stats().saturatedNanos()).isZero();
    }
  }

  @Test
  void rejectionsMakeItRejectingUntilTheyLeaveTheWindow() throws Exception {
    LaneExecutor lane = lane(1);
    try (lane) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {});
      try {
        lane.execute(() -> {});
      } catch (LaneRejectedException expected) {
        // counted
      }
      at(lane, 0);
      at(lane, 1_100);
      awaitEvents(1);
      assertThat(events.get(0).to()).isEqualTo(LaneHealth.REJECTING);
      assertThat(events.get(0).figures().get("rejectedInWindow")).isEqualTo(1.0);
      release.countDown();
      Awaitility.await().until(() -> lane.stats().queued() == 0 && lane.stats().running() == 0);
      at(lane, 7_200); // the rejection has left the 5 s window
      at(lane, 9_300);
      awaitEvents(2);
      assertThat(events.get(1).from()).isEqualTo(LaneHealth.REJECTING);
      assertThat(events.get(1).to()).isEqualTo(LaneHealth.OK);
      assertThat(lane.stats().saturatedNanos()).isEqualTo((9_300 - 1_100) * MS);
    }
  }

  @Test
  void aFixedWaitThresholdIgnoresRunTime() throws Exception {
    Lane built = Lane.blocking("fixed", 1).ticker(clock::get)
        .saturatedWhenWaitExceeds(java.time.Duration.ofSeconds(3))
        .saturationHysteresis(java.time.Duration.ZERO, java.time.Duration.ZERO)
        .build();
    LaneExecutor lane = (LaneExecutor) built;
    lane.onHealth(events::add);
    try (lane) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {});
      at(lane, 2_000);
      assertThat(lane.health()).isEqualTo(LaneHealth.OK);
      at(lane, 3_100);
      awaitEvents(1);
      assertThat(events.get(0).figures().get("thresholdMs")).isEqualTo(3_000.0);
      release.countDown();
    }
  }
}
