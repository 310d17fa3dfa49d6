package dev.lanes.agentdemo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The demo's deliberate deadlocks are bounded: each keeps a thread for good. */
class DemoEndpointsTest {

  @Test
  void nestedDeadlocksStopAtTheirCap() throws Exception {
    DemoEndpoints endpoints = new DemoEndpoints();
    for (int i = 0; i < DemoEndpoints.MAX_NESTED; i++) {
      assertThat(endpoints.nested()).startsWith("nested formed_at_epoch_us=");
    }
    java.util.List<Thread> stuck = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().matches("nested-\\d+-worker-1")).toList();
    assertThat(stuck).hasSize(DemoEndpoints.MAX_NESTED);
    assertThatThrownBy(endpoints::nested).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at most " + DemoEndpoints.MAX_NESTED + " nested deadlocks");
    DemoEndpoints.endNestedDeadlocks();
    for (Thread t : stuck) {
      t.join(10_000);
      assertThat(t.isAlive()).as(t.getName()).isFalse();
    }
  }
}
