package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without {@code --add-opens java.base/java.util.concurrent} (the probe's JVM has none), lanes
 * degrades as the README says: it says why once, reports no deadlock it cannot prove, and hands a
 * dropped {@code supplyAsync} task to the exception handler. Also: a queue the heap cannot hold
 * fails at build time with the figure.
 */
class NoOpensTest {
  @Test
  void withoutAddOpensLanesSaysSoOnceAndGuessesNothing() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(NoOpensProbe.class, "-Xmx128m");
    assertThat(out.get("exit")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("nested_health")).isNotEqualTo("DEADLOCKED");
    assertThat(out.get("parent_done")).isEqualTo("true");
    assertThat(out.get("kept")).isEqualTo("kept");
    assertThat(out.get("handler_got")).isEqualTo("LaneRejectedException");
    assertThat(out.get("explained_times")).isEqualTo("1");
  }

  @Test
  void aQueueTheHeapCannotHoldFailsAtBuildTimeWithTheFigure() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(BigQueueProbe.class, "-Xmx64m");
    assertThat(out.get("output"))
        .contains("lane \"huge\": queueCapacity 16777216 needs about 512 MiB up front")
        .contains("lower queueCapacity or raise -Xmx")
        .doesNotContain("OutOfMemoryError");
  }
}
