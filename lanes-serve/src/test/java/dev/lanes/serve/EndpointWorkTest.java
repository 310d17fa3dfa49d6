package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The work both demo servers' endpoints do, and its bound. */
class EndpointWorkTest {

  @Test
  void msIsBoundedWithOneMessageForBothDemos() {
    assertThat(EndpointWork.checkMillis("ms", 0)).isZero();
    assertThat(EndpointWork.checkMillis("ms", EndpointWork.MAX_MS)).isEqualTo(EndpointWork.MAX_MS);
    assertThatThrownBy(() -> EndpointWork.checkMillis("ms", EndpointWork.MAX_MS + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ms must be between 0 and 10000 ms, was 10001");
    assertThatThrownBy(() -> EndpointWork.checkMillis("cpu", -1)).hasMessage("cpu must be between 0 and 10000 ms, was -1");
  }

  @Test
  void spinReturnsAChecksumAndLeavesAnInterruptForTheCaller() {
    assertThat(EndpointWork.spin(0)).isBetween(0L, 0xffffL);
    Thread.currentThread().interrupt();
    try {
      EndpointWork.spin(1);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}
