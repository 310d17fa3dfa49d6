package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.agent.apps.FixedPoolApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
  void sampleTimesEveryTaskByDefaultAndTakesOneToTenTwentyFour() throws Exception {
    assertThat(AgentOptions.parse(null).sample).isEqualTo(1);
    assertThat(AgentOptions.parse("sample=1").sample).isEqualTo(1);
    assertThat(AgentOptions.parse("sample=1024").sample).isEqualTo(1024);
    assertThat(AgentOptions.parse("sample=16").sample).isEqualTo(16);
    for (String bad : List.of("0", "1025", "-3", "many", "")) {
      assertThatThrownBy(() -> AgentOptions.parse("sample=" + bad))
          .hasMessage("option \"sample\" must be a whole number between 1 and 1024, was \"" + bad + "\"");
    }
    assertThat(AgentOptions.ACCEPTED).contains("sample=N (1..1024, default 1: every task timed;"
        + " N: about 1 task in N of each thread pool timed (wait, run, CPU), task counts still exact)");
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

  @Test
  void aValueInDoubleQuotesMayHoldCommas() throws Exception {
    AgentOptions o = AgentOptions.parse("table-file=\"/tmp/a,b.txt\",max-pools=7");
    assertThat(o.tableFile).hasToString("/tmp/a,b.txt");
    assertThat(o.maxPools).isEqualTo(7);
    assertThatThrownBy(() -> AgentOptions.parse("table-file=\"/tmp/a,b.txt"))
        .hasMessage("options: a double quote is not closed in \"table-file=\"/tmp/a,b.txt\"");
    assertThat(AgentOptions.ACCEPTED).contains("table-file=\"/tmp/a,b.txt\"");

    Path dir = Files.createTempDirectory("lanes-agent-a,b");
    Path file = dir.resolve("pools,1.tsv");
    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "table-file=\"" + file + "\"");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(AgentJvm.parse(Files.readString(file))).isNotEmpty();
  }

  @Test
  void aTableFileThatCannotBeWrittenIsRefusedAtStart() throws Exception {
    assertThatThrownBy(() -> AgentOptions.parse("table-file=/no-such-dir/t.tsv")).hasMessage(
        "option \"table-file\" must be a file the agent can write, was \"/no-such-dir/t.tsv\""
            + " (no directory /no-such-dir)");
    Path dir = Files.createTempDirectory("lanes-agent-dir");
    assertThatThrownBy(() -> AgentOptions.parse("table-file=" + dir)).hasMessage(
        "option \"table-file\" must be a file the agent can write, was \"" + dir
            + "\" (it is a directory)");

    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "table-file=/no-such-dir/t.tsv");
    assertThat(r.exit()).isZero();
    assertThat(r.err().lines().filter(l -> l.startsWith("lanes-agent:"))).containsExactly(
        "lanes-agent: option \"table-file\" must be a file the agent can write, was"
            + " \"/no-such-dir/t.tsv\" (no directory /no-such-dir); the agent is off and the"
            + " application starts without it");
    assertThat(r.pools()).isEmpty();
  }

  @Test
  void aSecondJavaagentIsSaidOnceAndIgnored() throws Exception {
    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "",
        List.of("-javaagent:" + AgentJvm.JAR.toAbsolutePath() + "=table"));
    assertThat(r.exit()).as(r.err()).isZero();
    // AgentJvm's own -javaagent comes second: its table-file is ignored with it.
    assertThat(r.err().lines().filter(l -> l.startsWith("lanes-agent: already running"))).singleElement()
        .asString().matches("lanes-agent: already running; the second -javaagent \\(options"
            + " \"table-file=.*pools.tsv\"\\) is ignored");
    assertThat(r.pools()).isEmpty();
    assertThat(r.err()).contains("fixed-worker"); // the first one's table, at exit
  }
}
