package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.agent.apps.FixedPoolApp;
import org.junit.jupiter.api.Test;

/** The agent's options: defaults, accepted forms, and one clear line for a bad one. */
class AgentOptionsTest {

  @Test
  void defaultsAndAcceptedForms() throws Exception {
    AgentOptions d = AgentOptions.parse(null);
    assertThat(d.deadlockCheckNanos).isEqualTo(200_000_000L);
    assertThat(d.blockingWarnNanos).isEqualTo(1_000_000_000L);
    assertThat(d.saturatedWarnNanos).isEqualTo(10_000_000_000L);
    assertThat(d.maxPools).isEqualTo(100);
    assertThat(d.maxStamps).isEqualTo(1_000_000);
    AgentOptions o = AgentOptions.parse(" table , deadlock-check=50ms,blocking-warn=2s,"
        + "saturated-warn=1m,max-pools=7,max-stamps=4096,table-file=/tmp/x.tsv");
    assertThat(o.tableAtExit).isTrue();
    assertThat(o.deadlockCheckNanos).isEqualTo(50_000_000L);
    assertThat(o.blockingWarnNanos).isEqualTo(2_000_000_000L);
    assertThat(o.saturatedWarnNanos).isEqualTo(60_000_000_000L);
    assertThat(o.maxPools).isEqualTo(7);
    assertThat(o.maxStamps).isEqualTo(4096);
    assertThat(o.tableFile).hasToString("/tmp/x.tsv");
  }

  @Test
  void aBadOptionIsNamedWithWhatIsAccepted() {
    assertThatThrownBy(() -> AgentOptions.parse("tabel"))
        .hasMessage("unknown option \"tabel\"; accepted: " + AgentOptions.ACCEPTED);
    assertThatThrownBy(() -> AgentOptions.parse("deadlock-check=5ms"))
        .hasMessage("option \"deadlock-check\" must be between 10ms..10s, was \"5ms\"");
    assertThatThrownBy(() -> AgentOptions.parse("blocking-warn=soon"))
        .hasMessage("option \"blocking-warn\" must be a duration like 1s (units ms, s, m, h)"
            + " between 10ms..1h, was \"soon\"");
    assertThatThrownBy(() -> AgentOptions.parse("max-pools=0"))
        .hasMessage("option \"max-pools\" must be a whole number between 1 and 10000, was \"0\"");
    assertThatThrownBy(() -> AgentOptions.parse("table=yes"))
        .hasMessage("option \"table\" takes no value (or true/false), was \"yes\"");
    assertThatThrownBy(() -> AgentOptions.parse("table-file="))
        .hasMessage("option \"table-file\" needs a path (table-file=PATH)");
  }

  @Test
  void withABadOptionTheApplicationStartsWithoutTheAgentAndOneLineSaysWhy() throws Exception {
    AgentJvm.Result without = AgentJvm.run(FixedPoolApp.class, null);
    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "max-pools=lots");
    assertThat(r.exit()).isZero();
    assertThat(r.out().lines().map(l -> l.replaceAll("=.*", ""))).containsExactlyElementsOf(
        without.out().lines().map(l -> l.replaceAll("=.*", "")).toList());
    assertThat(r.err().lines().filter(l -> l.startsWith("lanes-agent:"))).containsExactly(
        "lanes-agent: option \"max-pools\" must be a whole number between 1 and 10000, was"
            + " \"lots\"; the agent is off and the application starts without it");
    assertThat(r.pools()).isEmpty(); // the agent never ran: no table at exit
  }
}
