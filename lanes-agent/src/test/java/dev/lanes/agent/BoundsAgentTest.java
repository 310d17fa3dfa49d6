package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.ManyPoolsApp;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the agent adds to an application: one thread, and bounded memory. */
class BoundsAgentTest {

  private static Set<String> threads(String out) {
    String line = out.lines().filter(l -> l.startsWith("threads: [")).findFirst().orElseThrow();
    return new HashSet<>(Arrays.asList(line.substring(10, line.length() - 1).split(", ")));
  }

  @Test
  void theAgentAddsOneThreadNamedLanesAgent() throws Exception {
    AgentJvm.Result without = AgentJvm.run(ManyPoolsApp.class, null, "pools", "3");
    AgentJvm.Result with = AgentJvm.run(ManyPoolsApp.class, "", "pools", "3");
    Set<String> added = new HashSet<>(threads(with.out()));
    added.removeAll(threads(without.out()));
    assertThat(added).containsExactly("lanes-agent");
    assertThat(threads(without.out())).doesNotContain("lanes-agent");
  }

  @Test
  void theSchedulerOfVirtualThreadsIsLeftAlone() throws Exception {
    AgentJvm.Result r = AgentJvm.run(dev.lanes.agent.apps.VirtualThreadsApp.class, "");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("sum: 1999000");
    // Its "tasks" are virtual threads mounting: not a pool's work, and not worth their cost.
    assertThat(r.pools()).noneMatch(p -> p.get("kind").equals("FORK_JOIN"));
  }

  @Test
  void poolsPastTheCapAreAddedUpUnderOther() throws Exception {
    AgentJvm.Result r = AgentJvm.run(ManyPoolsApp.class, "max-pools=5", "pools", "12");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.pools()).hasSize(6); // five named, and "other"
    assertThat(r.pool("other").get("tasks")).isEqualTo("70"); // 7 pools x 10 tasks
    assertThat(r.pools().stream().mapToLong(p -> Long.parseLong(p.get("tasks"))).sum()).isEqualTo(120);
    // Named where they were made (one line: numbered), the JDK's "pool-N-thread-M" saying nothing.
    assertThat(r.pools().stream().map(p -> p.get("pool")).filter(n -> !n.equals("other")))
        .allMatch(n -> n.matches("ManyPoolsApp\\.main:\\d+(#[2-5])?"));
  }

  @Test
  void tasksPastTheStampBoundRunAndCountWithAnUnknownWait() throws Exception {
    AgentJvm.Result r = AgentJvm.run(ManyPoolsApp.class, "max-stamps=1024", "queued", "5000");
    assertThat(r.exit()).as(r.err()).isZero();
    Map<String, String> held = r.pool("held");
    assertThat(held.get("tasks")).isEqualTo("5001");
    long unknown = Long.parseLong(held.get("unknown_wait"));
    assertThat(unknown).isGreaterThanOrEqualTo(5000 - 1024).isLessThan(5000);
  }
}
