package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.ScheduledApp;
import org.junit.jupiter.api.Test;

/** A scheduled pool under the agent, in a JVM of its own whose every core is busy. */
class ScheduledAgentTest {

  @Test
  void aScheduledPoolWithIdleWorkersOnABusyHostStaysOkAndCountsFutureTasksAsScheduled()
      throws Exception {
    AgentJvm.Result r = AgentJvm.run(ScheduledApp.class, "");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("ticked");
    assertThat(r.pool("timers").get("kind")).isEqualTo("SCHEDULED");
    assertThat(r.number("timers", "tasks")).isGreaterThanOrEqualTo(600);
    assertThat(r.number("timers", "unknown_wait")).isZero();
    // Its periodic task started late at times (every core burned), its workers were idle.
    assertThat(r.pool("timers").get("state")).isEqualTo("OK");
    assertThat(r.number("timers", "saturated_s")).isZero();
    assertThat(r.err()).doesNotContain("SATURATED");
    // The 5 tasks due in 10 minutes are in the schedule, not in the queue.
    assertThat(r.number("timers", "queued")).isZero();
    assertThat(r.number("timers", "scheduled")).isEqualTo(5);
  }
}
