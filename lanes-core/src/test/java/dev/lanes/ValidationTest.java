package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ValidationTest {
  @Test
  void threadsOutOfRange() {
    assertThatThrownBy(() -> Lane.blocking("db", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane \"db\": concurrency must be between 1 and 32767, was 0");
    assertThatThrownBy(() -> Lane.blocking("db", -5))
        .hasMessage("lane \"db\": concurrency must be between 1 and 32767, was -5");
    assertThatThrownBy(() -> Lane.virtual("api", -1))
        .hasMessage("lane \"api\": concurrency must be between 1 and 1000000, was -1");
    assertThatThrownBy(() -> Lane.cpu("c").concurrency(40_000))
        .hasMessage("lane \"c\": concurrency must be between 1 and 32767, was 40000");
  }

  @Test
  void queueCapacityOutOfRange() {
    assertThatThrownBy(() -> Lane.blocking("db", 2).queueCapacity(0))
        .hasMessage("lane \"db\": queueCapacity must be between 1 and 16777216, was 0");
  }

  @Test
  void virtualConcurrencyOutOfRange() {
    assertThatThrownBy(() -> Lane.virtual("api", 0))
        .hasMessage("lane \"api\": concurrency must be between 1 and 1000000, was 0");
  }

  @Test
  void aSettingGivenTwiceIsRefusedWithBothValues() {
    assertThatThrownBy(() -> Lane.virtual("api", 1).concurrency(3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("lane \"api\": concurrency was already set to 1; cannot set it to 3");
    assertThatThrownBy(() -> Lane.blocking("db", 1).queueCapacity(5).queueCapacity(6))
        .hasMessage("lane \"db\": queueCapacity was already set to 5; cannot set it to 6");
    assertThatThrownBy(() -> Lane.blocking("db", 1).cpuTimeOff().cpuTimeEveryTask())
        .hasMessage("lane \"db\": cpuTime was already set to off; cannot set it to every task");
    assertThatThrownBy(() -> Lane.blocking("db", 1).failOnDeadlock().compensateOnDeadlock(2))
        .hasMessage("lane \"db\": deadlock action was already set to fail; cannot set it to"
            + " compensate with up to 2 threads");
    // a rejected value is not "given": the corrected one is accepted
    LaneBuilder b = Lane.cpu("c");
    assertThatThrownBy(() -> b.concurrency(0)).isInstanceOf(IllegalArgumentException.class);
    b.concurrency(2);
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
    assertThatThrownBy(() -> Lane.blocking("db", 1).statsInterval(Duration.ofDays(365_000)))
        .hasMessage("lane \"db\": statsInterval must be between PT0.1S and PT1H, was PT8760000H");
    assertThatThrownBy(() -> Lane.blocking("db", 1).cpuTimeSampled(Duration.ofHours(2)))
        .hasMessage("lane \"db\": cpuTimeSampled interval must be between 1ns and PT1H, was PT2H");
  }

  @Test
  void cpuTimingAndHealth() {
    assertThatThrownBy(() -> Lane.blocking("db", 1).cpuTimeSampled(Duration.ZERO))
        .hasMessage("lane \"db\": cpuTimeSampled interval must be between 1ns and PT1H, was PT0S");
    assertThatThrownBy(() -> Lane.blocking("db", 1).saturatedWhenWaitExceedsRun(0))
        .hasMessage("lane \"db\": saturation wait-to-run ratio must be a finite number > 0, was 0.0");
    assertThatThrownBy(() -> Lane.virtual("api", 1).deadlockDetection(Duration.ZERO))
        .hasMessage("lane \"api\": deadlockDetection must be > 0, was PT0S");
    assertThatThrownBy(() -> Lane.virtual("api", 1).saturationHysteresis(Duration.ofSeconds(-1),
            Duration.ZERO))
        .hasMessage("lane \"api\": saturationHysteresis enterAfter must be ≥ 0, was PT-1S");
  }

  @Test
  void setConcurrencyOutOfRange() {
    try (Lane p = Lane.blocking("db", 2).build(); Lane v = Lane.virtual("api", 2).build()) {
      assertThatThrownBy(() -> p.setConcurrency(40_000))
          .hasMessage("lane \"db\": concurrency must be between 1 and 32767, was 40000");
      assertThatThrownBy(() -> v.setConcurrency(0))
          .hasMessage("lane \"api\": concurrency must be between 1 and 1000000, was 0");
      assertThat(p.concurrency()).isEqualTo(2);
    }
  }
}
