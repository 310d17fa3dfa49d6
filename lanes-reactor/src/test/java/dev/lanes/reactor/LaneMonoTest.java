package dev.lanes.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.TaskOutcome;
import dev.lanes.testkit.Occupied;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaneMonoTest {

  @Test
  void aTaskQueuedPastItsDeadlineNeverStartsAndTheMonoFailsWithTheLanesReason()
      throws Exception {
    try (Lane lane = Lane.blocking("db", 1).build()) {
      Occupied release = Occupied.oneThreadOf(lane);
      AtomicBoolean ran = new AtomicBoolean();
      Mono<String> late = LaneMono.fromCallable(lane, "lookup", Duration.ofMillis(50), () -> {
        ran.set(true);
        return "late";
      });
      assertThatThrownBy(late::block).isInstanceOfSatisfying(LaneRejectedException.class, e -> {
        assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED);
        assertThat(e.getMessage()).contains("\"db\"", "had to start within 50.0 ms");
      });
      release.close();
      assertThat(LaneMono.fromCallable(lane, "lookup", Duration.ofSeconds(30), () -> "in time")
          .block()).isEqualTo("in time");
      assertThat(ran).isFalse();
      assertThat(lane.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1);
    }
  }

  @Test
  void aTimeoutDownstreamCancelsTheQueuedTaskWhichNeverStarts() throws Exception {
    try (Lane lane = Lane.blocking("partner", 1).build()) {
      Occupied release = Occupied.oneThreadOf(lane);
      AtomicBoolean ran = new AtomicBoolean();
      Mono<String> m = LaneMono.fromCallable(lane, "call", Duration.ofHours(1), () -> {
        ran.set(true);
        return "x";
      }).timeout(Duration.ofMillis(50));
      assertThatThrownBy(m::block).hasCauseInstanceOf(TimeoutException.class);
      Awaitility.await().until(() -> lane.stats().cancelled() == 1);
      release.close();
      lane.close();
      assertThat(ran).isFalse();
      assertThat(lane.stats().completed()).isEqualTo(1); // the occupying task only
    }
  }

  @Test
  void eachSubscriptionSubmitsOnceAndANullResultIsEmpty() {
    try (Lane lane = Lane.blocking("cold", 2).build()) {
      Mono<String> m = LaneMono.fromCallable(lane, "", Duration.ofSeconds(30), () -> null);
      assertThat(lane.stats().submitted()).as("nothing before a subscription").isZero();
      assertThat(m.block()).isNull();
      assertThat(m.blockOptional()).isEmpty();
      assertThat(lane.stats().submitted()).isEqualTo(2);
      assertThatThrownBy(() -> LaneMono.fromCallable(lane, "", null, () -> 1))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("startWithin");
    }
  }

  @Test
  void aRefusalAtSubmissionFailsTheMono() {
    try (Lane lane = Lane.blocking("past", 1).build()) {
      assertThatThrownBy(LaneMono.fromCallable(lane, "", Duration.ZERO, () -> 1)::block)
          .isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED));
    }
  }
}
