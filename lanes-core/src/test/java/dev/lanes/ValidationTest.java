package dev.lanes;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ValidationTest {
  @Test
  void threadsOutOfRange() {
    assertThatThrownBy(() -> Lane.blocking("db", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane \"db\": threads must be between 1 and 32767, was 0");
    assertThatThrownBy(() -> Lane.cpu("c").threads(40_000))
        .hasMessage("lane \"c\": threads must be between 1 and 32767, was 40000");
  }

  @Test
  void queueCapacityOutOfRange() {
    assertThatThrownBy(() -> Lane.blocking("db", 2).queueCapacity(0))
        .hasMessage("lane \"db\": queueCapacity must be between 1 and 16777216, was 0");
  }

  @Test
  void maxConcurrencyOutOfRange() {
    assertThatThrownBy(() -> Lane.virtual("api", 0))
        .hasMessage("lane \"api\": maxConcurrency must be between 1 and 1000000, was 0");
    assertThatThrownBy(() -> Lane.virtual("api", 1).threads(3))
        .hasMessage("lane \"api\": threads does not apply to a virtual lane; use maxConcurrency");
    assertThatThrownBy(() -> Lane.blocking("db", 1).maxConcurrency(3))
        .hasMessage("lane \"db\": maxConcurrency applies to virtual lanes only; use threads");
  }

  @Test
  void blankName() {
    assertThatThrownBy(() -> Lane.blocking(" ", 1))
        .hasMessage("lane name must not be blank, was \" \"");
    assertThatThrownBy(() -> Lane.blocking(null, 1))
        .hasMessage("lane name must not be blank, was null");
  }

  @Test
  void blockCallerTimeout() {
    assertThatThrownBy(
            () -> Lane.blocking("db", 1).overflow(OverflowPolicy.blockCaller(Duration.ZERO)))
        .hasMessage("lane \"db\": overflow block-caller timeout must be between 1ns and PT24H, was PT0S");
  }

  @Test
  void statsInterval() {
    assertThatThrownBy(() -> Lane.blocking("db", 1).statsInterval(Duration.ofMillis(5)))
        .hasMessage("lane \"db\": statsInterval must be between PT0.1S and PT1H, was PT0.005S");
  }

  @Test
  void cpuTimingAndHealth() {
    assertThatThrownBy(() -> CpuTiming.sampled(0)).hasMessage("cpuTiming sample must be ≥ 1, was 0");
    assertThatThrownBy(() -> Lane.blocking("db", 1).health(HealthConfig.defaults().withWaitToRunRatio(0)))
        .hasMessage("lane \"db\": health waitToRunRatio must be a finite number > 0, was 0.0");
    assertThatThrownBy(() -> Lane.virtual("api", 1)
            .health(HealthConfig.defaults().withDeadlockDetection(Duration.ZERO)))
        .hasMessage("lane \"api\": health deadlockDetection must be > 0, was PT0S");
  }

  @Test
  void setMaxConcurrencyOnPlatformLaneAndOutOfRange() {
    try (Lane p = Lane.blocking("db", 2).build(); Lane v = Lane.virtual("api", 2).build()) {
      assertThatThrownBy(() -> p.setMaxConcurrency(4))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("lane \"db\": maxConcurrency applies to virtual lanes only");
      assertThatThrownBy(() -> v.setMaxConcurrency(0))
          .hasMessage("lane \"api\": maxConcurrency must be between 1 and 1000000, was 0");
    }
  }
}
