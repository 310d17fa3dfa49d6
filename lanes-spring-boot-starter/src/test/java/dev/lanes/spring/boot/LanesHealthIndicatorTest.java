package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.LaneHealth;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

/** How lanes' health states map to Actuator's statuses (as the starter's README says). */
class LanesHealthIndicatorTest {
  @Test
  void everyLaneHealthHasTheDocumentedStatus() {
    assertThat(LanesHealthIndicator.status(LaneHealth.OK)).isEqualTo(Status.UP);
    assertThat(LanesHealthIndicator.status(LaneHealth.SATURATED)).isEqualTo(Status.UP);
    assertThat(LanesHealthIndicator.status(LaneHealth.REJECTING)).isEqualTo(Status.OUT_OF_SERVICE);
    assertThat(LanesHealthIndicator.status(LaneHealth.DEADLOCKED)).isEqualTo(Status.DOWN);
  }
}
