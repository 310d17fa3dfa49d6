package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.DeadlockApp;
import dev.lanes.agent.apps.SaturatedApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/** Warnings: logged once through System.Logger (stderr by default), and as JFR events. */
class WarningsAgentTest {

  @Test
  void aPoolSaturatedPastTheThresholdIsToldOnceWithItsWorkersStacks() throws Exception {
    Path jfr = Files.createTempFile("saturated", ".jfr");
    AgentJvm.Result r = AgentJvm.run(SaturatedApp.class, "saturated-warn=1s",
        List.of("-XX:StartFlightRecording=filename=" + jfr + ",settings=default"));
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).containsPattern("WARNING: lanes-agent: pool \"backlog\" \\(ThreadPoolExecutor\\)"
        + " has been SATURATED for \\d+ s: queue wait").contains("\"backlog-1\"");
    assertThat(r.err().split("has been SATURATED", -1)).hasSize(2);
    assertThat(Double.parseDouble(r.pool("backlog").get("saturated_s"))).isGreaterThan(1.0);
    List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getEventType().getName()).isEqualTo("dev.lanes.agent.Warning");
      assertThat(e.getString("pool")).isEqualTo("backlog");
      assertThat(e.getString("kind")).isEqualTo("saturated");
      assertThat(e.getString("evidence")).contains("backlog-1");
    });
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getEventType().getName()).isEqualTo("dev.lanes.agent.PoolHealth");
      assertThat(e.getString("pool")).isEqualTo("backlog");
      assertThat(e.getString("to")).isEqualTo("SATURATED");
    });
  }

  @Test
  void aDeadlockIsAJfrEventToo() throws Exception {
    Path jfr = Files.createTempFile("deadlock", ".jfr");
    AgentJvm.Result r = AgentJvm.run(DeadlockApp.class, "",
        List.of("-XX:StartFlightRecording=filename=" + jfr + ",settings=default"), "submit-1");
    assertThat(r.out()).contains("deadlock reported: true");
    assertThat(RecordingFile.readAllEvents(jfr)).anySatisfy(e -> {
      assertThat(e.getEventType().getName()).isEqualTo("dev.lanes.agent.Warning");
      assertThat(e.getString("kind")).isEqualTo("starvation deadlock");
      assertThat(e.getString("message")).contains("pool \"nested\"");
    });
  }
}
