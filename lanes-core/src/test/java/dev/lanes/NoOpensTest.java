package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without {@code --add-opens java.base/java.util.concurrent} (the probe's JVM has none), lanes
 * degrades as the README says: a deadlock it cannot prove is reported as suspected and never acted
 * on, a dropped {@code supplyAsync} task goes to the exception handler, each is explained once
 * when it first happens, and an application that meets neither hears nothing of the flag. Also: a
 * queue the heap cannot hold fails at build time with the figure.
 */
class NoOpensTest {
  @Test
  void withoutAddOpensANestedDeadlockIsSuspectedNeverActedOnAndTheFlagNamedOnce() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(NoOpensProbe.class, "-Xmx128m");
    assertThat(out.get("exit")).as(out.get("output")).isEqualTo("0");
    for (String p : new String[] {"nested1_", "nested9_"}) {
      assertThat(out.get(p + "suspected")).as(p + out.get("output")).isEqualTo("true");
      assertThat(out.get(p + "suspected_says")).as(p).isEqualTo("true");
      assertThat(out.get(p + "health")).as(p).isEqualTo("SATURATED");
      assertThat(out.get(p + "ever_deadlocked")).as(p).isEqualTo("false");
      assertThat(out.get(p + "parents_untouched")).as(p).isEqualTo("true");
      assertThat(out.get(p + "deadlock_outcomes")).as(p).isEqualTo("0");
    }
    assertThat(out.get("kept")).isEqualTo("kept");
    assertThat(out.get("handler_got")).isEqualTo("LaneRejectedException");
    assertThat(out.get("explained_suspicion")).isEqualTo("1"); // at the first suspicion, once
    assertThat(out.get("explained_unreachable")).isEqualTo("1"); // at the first drop, once
  }

  @Test
  void withoutAddOpensTheBusyShapesOfThePrecisionSuiteRaiseNoAlarmAndNoSuspicion() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(NoOpensPrecisionProbe.class, "-Xmx128m",
        Integer.toString(DeadlockPrecisionTest.REPEATS));
    assertThat(out.get("exit")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("deadlocked")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("suspected")).as(out.get("output")).isEqualTo("0");
  }

  @Test
  void aHealthyApplicationWithoutAddOpensLogsNothingAboutIt() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(QuietStartProbe.class, "-Xmx128m", "3000");
    assertThat(out.get("exit")).as(out.get("output")).isEqualTo("0");
    assertThat(out.get("mentions")).as(out.get("output")).isEqualTo("0");
  }

  @Test
  void aQueueTheHeapCannotHoldFailsAtBuildTimeWithTheFigure() throws Exception {
    Map<String, String> out = QueuedMemoryTest.runProbe(BigQueueProbe.class, "-Xmx64m");
    assertThat(out.get("output"))
        .contains("lane \"huge\": queueCapacity 16777216 needs up to about 512 MiB")
        .contains("lower queueCapacity or raise -Xmx")
        .doesNotContain("OutOfMemoryError");
  }
}
