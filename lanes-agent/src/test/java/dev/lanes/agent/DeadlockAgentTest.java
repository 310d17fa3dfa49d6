package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.DeadlockApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plain-pool starvation deadlock, under the agent, with no {@code --add-opens} on the command
 * line: the writings' four shapes are reported (each worker's stack as evidence, the pool named,
 * DEADLOCKED in the table); the shapes that only look alike are not.
 */
class DeadlockAgentTest {

  @ParameterizedTest
  @ValueSource(strings = {"submit-1", "submit-9", "async-1", "async-9"})
  void theNestedSubmissionDeadlockIsReportedWithItsEvidence(String shape) throws Exception {
    AgentJvm.Result r = AgentJvm.run(DeadlockApp.class, "", shape);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).as(r.err()).contains("deadlock reported: true");
    int threads = shape.endsWith("-9") ? 9 : 1;
    assertThat(r.err()).contains("starvation deadlock in pool \"nested\"")
        .contains("all " + threads + " of its threads wait")
        .contains(shape.startsWith("async") ? "CompletableFuture.join" : "FutureTask.get")
        .contains("DeadlockApp.lambda$nested$");
    assertThat(r.err().split("starvation deadlock in pool", -1)).hasSize(2); // said once
    assertThat(r.pool("nested").get("state")).isEqualTo("DEADLOCKED");
    System.out.println(shape + ": " + r.out().lines().filter(l -> l.startsWith("reported_after_ms"))
        .findFirst().orElse("?"));
  }

  @Test
  void shapesThatOnlyLookLikeADeadlockAreNotReported() throws Exception {
    // All at once, each in its own pools: a timed get, a wait on another pool's task, a neighbour
    // that runs, an orTimeout join, sleepers, blocking socket reads, a timed wait that succeeds.
    AgentJvm.Result r = AgentJvm.run(DeadlockApp.class, "", "lookalikes");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("deadlock reported: false", "timed-get: timed out",
        "other-pool: 1", "busy-neighbour: 1", "or-timeout: TimeoutException", "sleepers: done",
        "slow-io: done", "timed-success: child");
    assertThat(r.err()).doesNotContain("starvation deadlock");
    assertThat(r.pools()).noneMatch(p -> p.get("state").equals("DEADLOCKED"));
  }
}
