package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.LaneDeadlockApp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An application that uses lanes, under the agent: the agent opens {@code java.util.concurrent}
 * to lanes-core as it loads, so a lane proves a deadlock through {@code CompletableFuture.join}
 * with no {@code --add-opens}; without the agent the same JVM can only suspect it.
 */
class LanesUnderAgentTest {

  @Test
  void aLaneProvesAJoinDeadlockWithoutAddOpensOnlyUnderTheAgent() throws Exception {
    List<String> lanesOnClassPath = List.of(AgentJvm.WITH_LIBRARIES);
    AgentJvm.Result with = AgentJvm.run(LaneDeadlockApp.class, "", lanesOnClassPath);
    assertThat(with.out()).as(with.err()).contains("health: DEADLOCKED");
    AgentJvm.Result without = AgentJvm.run(LaneDeadlockApp.class, null, lanesOnClassPath);
    assertThat(without.out()).as(without.err()).contains("health: SATURATED");
  }
}
