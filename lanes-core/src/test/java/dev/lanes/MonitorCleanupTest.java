package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Lanes that are never closed and no longer referenced are collected, and the health thread ends
 * when no lane is left (and starts again with the next one). It runs with no context class
 * loader, so it pins no web application's class loader. In its own JVM, so no other test's lane
 * is around.
 */
class MonitorCleanupTest {
  @Test
  void twoThousandUnclosedUnreferencedLanesAreCollectedAndTheHealthThreadEnds() throws Exception {
    Map<String, String> out =
        QueuedMemoryTest.runProbe(MonitorCleanupProbe.class, "-Xmx256m", "2000");
    assertThat(out.get("exit")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("health_thread_started")).isEqualTo("true");
    assertThat(out.get("health_ccl_null")).isEqualTo("true");
    assertThat(out.get("health_thread_inherited_locals")).isEqualTo("false");
    assertThat(out.get("lanes_alive")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("health_thread_alive")).isEqualTo("false");
    assertThat(out.get("health_thread_restarted")).isEqualTo("true");
  }
}
