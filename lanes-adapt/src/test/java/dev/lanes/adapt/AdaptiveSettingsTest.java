package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lane;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdaptiveSettingsTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    AdaptiveSettings d = AdaptiveSettings.defaults();
    assertThat(d.minLimit()).isEqualTo(1);
    assertThat(d.maxLimit()).isEqualTo(1_000);
    assertThat(d.initialLimit()).isZero();
    assertThat(d.samplesPerDecision()).isEqualTo(20);
    assertThat(d.probeSamples()).isEqualTo(4);
    assertThat(d.growthFactor()).isEqualTo(2.0);
    assertThat(d.runTimeTolerance()).isEqualTo(0.2);
    assertThat(d.smoothing()).isEqualTo(1.0);
    assertThat(d.baselineHorizon()).isEqualTo(Duration.ofSeconds(30));
    assertThat(d.minRunTimeRise()).isEqualTo(Duration.ofMillis(1));
    assertThat(d).isEqualTo(AdaptiveSettings.builder().build());
  }

  @Test
  void outOfRangeValuesAreRefusedNamingSettingBoundAndValue() {
    assertThatThrownBy(() -> AdaptiveSettings.builder().minLimit(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("adaptive limit: minLimit must be between 1 and 1000000, was 0");
    assertThatThrownBy(() -> AdaptiveSettings.builder().growthFactor(1.0))
        .hasMessage("adaptive limit: growthFactor must be > 1.0 and ≤ 100.0, was 1.0");
    assertThatThrownBy(() -> AdaptiveSettings.builder().smoothing(Double.NaN))
        .hasMessageContaining("smoothing").hasMessageContaining("was NaN");
    assertThatThrownBy(() -> AdaptiveSettings.builder().runTimeTolerance(0))
        .hasMessageContaining("runTimeTolerance must be > 0.0");
    assertThatThrownBy(() -> AdaptiveSettings.builder().baselineHorizon(Duration.ZERO))
        .hasMessage("adaptive limit: baselineHorizon must be between 1 ms and 1 day, was PT0S");
    assertThatThrownBy(() -> AdaptiveSettings.builder().minLimit(10).maxLimit(5).build())
        .hasMessage("adaptive limit: minLimit must be ≤ maxLimit 5, was 10");
    assertThatThrownBy(() -> AdaptiveSettings.builder().maxLimit(5).initialLimit(6).build())
        .hasMessage("adaptive limit: initialLimit must be between minLimit 1 and maxLimit 5, was 6");
  }

  @Test
  void aSettingGivenTwiceIsRefused() {
    assertThatThrownBy(() -> AdaptiveSettings.builder().maxLimit(10).maxLimit(20))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("adaptive limit: maxLimit was already set to 10");
  }

  @Test
  void attachNamesTheLaneWhenABoundDoesNotFitItsKind() {
    try (Lane lane = Lane.blocking("db", 4).build()) {
      assertThatThrownBy(() -> AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(40_000).build()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("lane \"db\": adaptive maxLimit must be between 1 and 32767 on a blocking lane, was 40000");
      assertThat(lane.concurrency()).isEqualTo(4);
    }
  }

  @Test
  void oneLimitPerLaneAndNoneOnAShutDownLane() {
    try (Lane lane = Lane.virtual("api", 4).build()) {
      AdaptiveLimit first = AdaptiveLimit.attach(lane);
      assertThatThrownBy(() -> AdaptiveLimit.attach(lane))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("lane \"api\": adaptive limit is already attached to this lane (close it first)");
      first.close();
      first.close(); // idempotent
      AdaptiveLimit.attach(lane).close();
      lane.shutdown();
      assertThatThrownBy(() -> AdaptiveLimit.attach(lane))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("lane \"api\": adaptive limit cannot be attached to a shut-down lane");
    }
  }

  @Test
  void attachingBringsTheLaneWithinTheBounds() {
    try (Lane lane = Lane.blocking("db", 50).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(20).build())) {
      assertThat(limit.limit()).isEqualTo(20);
      assertThat(lane.concurrency()).isEqualTo(20);
      assertThat(lane.stats().concurrency()).isEqualTo(20);
    }
    try (Lane lane = Lane.virtual("api", 50).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().initialLimit(3).build())) {
      assertThat(lane.concurrency()).isEqualTo(3);
      assertThat(limit.probing()).isTrue();
    }
  }
}
