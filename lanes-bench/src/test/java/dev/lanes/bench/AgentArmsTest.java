package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

/** The agent suite's plan, order, jar lookup, fork modes, report and goals; JMH is never started. */
class AgentArmsTest {

  private static BenchRun agentRun(String id) {
    return BenchPlan.full().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void theAgentSuiteRunsBothWorkloadsAsTheyAreAndWithATaskObjectPerTask() {
    List<BenchRun> agent = BenchPlan.full().stream().filter(r -> r.suite().equals("agent")).toList();
    assertThat(agent).extracting(BenchRun::id).containsExactly(
        "agent-tiny", "agent-work", "agent-tiny-distinct", "agent-work-distinct");
    assertThat(agent).allMatch(BenchRun::agentArms);
    assertThat(agentRun("agent-tiny").include()).isEqualTo("dev\\.lanes\\.bench\\.ThroughputBenchmark\\.batch$");
    assertThat(agentRun("agent-work").include()).isEqualTo("dev\\.lanes\\.bench\\.WorkSizedBenchmark\\.batch$");
    assertThat(agentRun("agent-tiny").params()).containsEntry("executor", List.of("tpe-lbq", "tpe-abq"))
        .containsEntry("cap", List.of("2"));
    assertThat(agentRun("agent-tiny-distinct").params().get("executor")).containsExactly("tpe-lbq");
    // only the agent suite's runs have two kinds of JVM
    assertThat(BenchPlan.full()).filteredOn(r -> !r.suite().equals("agent"))
        .noneMatch(BenchRun::agentArms);
    assertThat(BenchPlan.quick()).filteredOn(r -> r.suite().equals("agent")).hasSize(4)
        .allMatch(r -> r.iterations().forks() == 1);
  }

  @Test
  void theArmsAlternateForkByForkAndNeitherAlwaysComesFirst() {
    BenchRun run = new BenchRun("agent-tiny", "agent", "x",
        Map.of("executor", List.of("tpe-lbq", "tpe-abq"), "cap", List.of("2")),
        new BenchRun.Iterations(2, 2, 10, 1, 3), true);
    assertThat(AgentArms.order(run)).containsExactly(
        new AgentArms.Step(1, "tpe-lbq", "bare"), new AgentArms.Step(1, "tpe-lbq", "agent"),
        new AgentArms.Step(1, "tpe-abq", "bare"), new AgentArms.Step(1, "tpe-abq", "agent"),
        new AgentArms.Step(2, "tpe-lbq", "agent"), new AgentArms.Step(2, "tpe-lbq", "bare"),
        new AgentArms.Step(2, "tpe-abq", "agent"), new AgentArms.Step(2, "tpe-abq", "bare"),
        new AgentArms.Step(3, "tpe-lbq", "bare"), new AgentArms.Step(3, "tpe-lbq", "agent"),
        new AgentArms.Step(3, "tpe-abq", "bare"), new AgentArms.Step(3, "tpe-abq", "agent"));
  }

  @Test
  void eachJmhCallIsOneForkOfOneExecutorAndOnlyTheAgentArmGetsTheAgent() {
    BenchRun one = AgentArms.oneFork(agentRun("agent-tiny"), "tpe-abq");
    assertThat(one.params()).containsEntry("executor", List.of("tpe-abq"));
    assertThat(one.iterations()).isEqualTo(new BenchRun.Iterations(2, 2, 10, 1, 1));
    var withAgent = BenchMain.options(one, Path.of("x.json"), null,
        List.of("-javaagent:/r/lanes-agent/target/lanes-agent.jar")).build();
    assertThat(withAgent.getJvmArgsAppend().get())
        .containsExactly("-Xms1g", "-Xmx1g", "-javaagent:/r/lanes-agent/target/lanes-agent.jar");
    assertThat(withAgent.getForkCount().get()).isEqualTo(1);
    assertThat(withAgent.getProfilers())
        .anyMatch(p -> p.getKlass().equals(CpuTimeProfiler.class.getName()));
    assertThat(BenchMain.options(one, Path.of("x.json"), null).build().getJvmArgsAppend().get())
        .containsExactly("-Xms1g", "-Xmx1g");
  }

  @Test
  void theAgentJarIsFoundNextToTheBenchModuleOrWhereToldAndItsAbsenceSaysHowToBuildIt() {
    Path repo = Path.of("/r");
    Path jar = repo.resolve("lanes-agent/target/lanes-agent.jar");
    Path benchJar = repo.resolve("lanes-bench/target/lanes-bench.jar");
    assertThat(AgentArms.agentJar(null, null, benchJar, jar::equals)).isEqualTo(jar);
    assertThat(AgentArms.agentJar(null, null, repo.resolve("lanes-bench/target/classes"), jar::equals))
        .isEqualTo(jar);
    Path elsewhere = Path.of("/opt/agent.jar");
    assertThat(AgentArms.agentJar("/opt/agent.jar", "/ignored.jar", benchJar, elsewhere::equals))
        .isEqualTo(elsewhere);
    assertThat(AgentArms.agentJar(null, "/opt/agent.jar", benchJar, elsewhere::equals))
        .isEqualTo(elsewhere);
    assertThatThrownBy(() -> AgentArms.agentJar(null, null, benchJar, p -> false))
        .isInstanceOf(BenchMain.UsageException.class)
        .hasMessageContaining("the agent suite needs the lanes agent jar, not found")
        .hasMessageContaining("./mvnw -pl lanes-agent -am package -DskipTests")
        .hasMessageContaining("--agent-jar PATH");
    assertThatThrownBy(() -> AgentArms.agentJar("/nope.jar", null, benchJar, p -> false))
        .hasMessageContaining("/nope.jar does not exist");
  }

  @Test
  void theAgentSuiteFailsBeforeRunningAnythingWhenTheJarIsMissing() {
    assertThatThrownBy(() -> BenchMain.run(
            new String[] {"--only", "agent", "--agent-jar", "/no/such/lanes-agent.jar"},
            new java.io.PrintStream(java.io.OutputStream.nullOutputStream())))
        .isInstanceOf(BenchMain.UsageException.class)
        .hasMessageContaining("/no/such/lanes-agent.jar does not exist");
  }

  @Test
  void fastForksAreThoseWithinOneAndAHalfTimesTheArmsLowestCpuPerTask() {
    List<Row.Fork> forks = List.of(
        new Row.Fork(10e6, 180), new Row.Fork(4e6, 520), new Row.Fork(9e6, 200),
        new Row.Fork(11e6, 170), new Row.Fork(3.8e6, 540));
    AgentArms.Modes m = AgentArms.modes(forks);
    assertThat(m.fast()).isEqualTo(3);
    assertThat(m.all()).isEqualTo(5);
    assertThat(m.medianScore()).isEqualTo(10e6);
    assertThat(m.medianCpu()).isEqualTo(180);
    // without CPU figures every fork counts; an even count takes the middle two
    AgentArms.Modes noCpu = AgentArms.modes(List.of(
        new Row.Fork(1, Double.NaN), new Row.Fork(3, Double.NaN)));
    assertThat(noCpu.fast()).isEqualTo(2);
    assertThat(noCpu.medianScore()).isEqualTo(2);
  }

  private static Row row(String runId, String executor, String arm, double score, double error,
      double cpu, List<Row.Fork> forks) {
    return new Row(runId, "agent", "ThroughputBenchmark.batch",
        Map.of("executor", executor, "cap", "2", "arm", arm), Mode.Throughput, score, error,
        "ops/s", 0, 0, 0, Map.of(CpuTimeProfiler.KEY, cpu), forks);
  }

  @Test
  void goalsJudgeTheInstrumentedPoolAgainstTheBareOneOnAllForksAndOnTheFastForks() {
    List<Row.Fork> bareForks = List.of(new Row.Fork(10e6, 200), new Row.Fork(4e6, 500),
        new Row.Fork(10e6, 200));
    List<Row.Fork> agentForks = List.of(new Row.Fork(6e6, 300), new Row.Fork(6e6, 300),
        new Row.Fork(3e6, 800));
    List<Row> rows = List.of(
        row("agent-tiny", "tpe-lbq", "bare", 8e6, 1e6, 300, bareForks),
        row("agent-tiny", "tpe-lbq", "agent", 5e6, 1e6, 466, agentForks),
        row("agent-work", "tpe-lbq", "bare", 1e5, 1e3, 20_000, List.of(new Row.Fork(1e5, 2e4))),
        row("agent-work", "tpe-lbq", "agent", 0.98e5, 1e3, 20_500,
            List.of(new Row.Fork(0.98e5, 2.05e4))));
    List<Goals.Judgement> js = Goals.judge(rows);
    Goals.Judgement tinyAll = goal(js, "agent: instrumented tpe-lbq ≥ 0.7× bare, tiny tasks (all");
    assertThat(tinyAll.verdict()).isEqualTo(Goals.Verdict.MISSED); // 5 / 8 = 0.625
    assertThat(tinyAll.measured()).startsWith("0.63× (range 0.44–");
    assertThat(tinyAll.note()).contains("CPU per task 1.55× (466 vs 300 ns)");
    Goals.Judgement tinyFast = goal(js, "agent: instrumented tpe-lbq ≥ 0.7× bare, tiny tasks (fast");
    assertThat(tinyFast.verdict()).isEqualTo(Goals.Verdict.MISSED); // 6 / 10
    assertThat(tinyFast.measured()).startsWith("0.60× (6.00 M vs 10.00 M)");
    assertThat(tinyFast.note()).contains("2 of 3 instrumented, 2 of 3 bare", "CPU per task 1.50×");
    Goals.Judgement workAll = goal(js, "agent: instrumented tpe-lbq ≥ 0.97× bare, work-sized tasks (all");
    assertThat(workAll.verdict()).isEqualTo(Goals.Verdict.MET);
    assertThat(workAll.note()).startsWith("error bars overlap the target");
    assertThat(goal(js, "agent: instrumented tpe-lbq ≥ 0.97× bare, work-sized tasks (fast").verdict())
        .isEqualTo(Goals.Verdict.MET);
    assertThat(goal(js, "agent: instrumented tpe-lbq ≥ 0.7× bare, tiny tasks, one task object")
        .verdict()).isEqualTo(Goals.Verdict.NOT_MEASURED);
    // the instrumented pool (± 20 %) is not taken for a baseline whose error bar is judged; the
    // bare one (± 12.5 %) is
    assertThat(goal(js, "error bar of tpe-lbq").measured()).startsWith("± 12.5 %");
  }

  @Test
  void theAgentTableGivesBothArmsTheirRatioAndEachForkInOrder() {
    List<Row> rows = List.of(
        row("agent-tiny", "tpe-lbq", "bare", 8e6, 1e6, 300,
            List.of(new Row.Fork(10e6, 200), new Row.Fork(4e6, 500))),
        row("agent-tiny", "tpe-lbq", "agent", 4e6, 1e6, 600,
            List.of(new Row.Fork(5e6, 400), new Row.Fork(3e6, 800))));
    BenchRun run = agentRun("agent-tiny");
    String md = BenchReport.tables(List.of(run), rows);
    assertThat(md).contains("### agent-tiny", "`ThroughputBenchmark.batch` (cap=2)",
        "| tpe-lbq | 8.00 M ± 1.00 M | 4.00 M ± 1.00 M | 0.50 | 0.33–0.71 | 300.0 | 600.0 | 2.00 |",
        "| tpe-lbq | bare | 10.00 M at 200.0, 4.00 M at 500.0 | 1 of 2 | 10.00 M | 200.0 |  |",
        "| tpe-lbq | instrumented | 5.00 M at 400.0, 3.00 M at 800.0 | 1 of 2 | 5.00 M | 400.0 | 0.50, 2.00 |");
  }

  @Test
  void aSampledArmRotatesWithTheOthersAndGetsTheAgentWithItsSampleOption() {
    BenchRun run = new BenchRun("agent-tiny", "agent", "x",
        Map.of("executor", List.of("tpe-lbq"), "cap", List.of("2")),
        new BenchRun.Iterations(2, 2, 10, 1, 3), true);
    assertThat(AgentArms.order(run, 16)).containsExactly(
        new AgentArms.Step(1, "tpe-lbq", "bare"), new AgentArms.Step(1, "tpe-lbq", "agent"),
        new AgentArms.Step(1, "tpe-lbq", "sampled"),
        new AgentArms.Step(2, "tpe-lbq", "agent"), new AgentArms.Step(2, "tpe-lbq", "sampled"),
        new AgentArms.Step(2, "tpe-lbq", "bare"),
        new AgentArms.Step(3, "tpe-lbq", "sampled"), new AgentArms.Step(3, "tpe-lbq", "bare"),
        new AgentArms.Step(3, "tpe-lbq", "agent"));
    Path jar = Path.of("/r/lanes-agent.jar");
    assertThat(AgentArms.jvmArgs("sampled", jar, 16)).containsExactly("-javaagent:/r/lanes-agent.jar=sample=16");
    assertThat(AgentArms.jvmArgs("agent", jar, 16)).containsExactly("-javaagent:/r/lanes-agent.jar");
    assertThat(AgentArms.jvmArgs("bare", jar, 16)).isEmpty();
    assertThat(AgentArms.withForks(run, 4).iterations()).isEqualTo(new BenchRun.Iterations(2, 2, 10, 1, 4));
  }

  @Test
  void theSampleAndForkOptionsAreBoundedAndSayWhatTheyWere() {
    BenchMain.Args a = BenchMain.Args.parse(new String[] {"--agent-sample", "16", "--agent-forks", "3"});
    assertThat(a.agentSample()).isEqualTo(16);
    assertThat(a.agentForks()).isEqualTo(3);
    assertThat(BenchMain.Args.parse(new String[0]).agentSample()).isZero();
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--agent-sample", "0"}))
        .hasMessage("--agent-sample must be a whole number between 1 and 1024, was '0'");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--agent-forks", "many"}))
        .hasMessage("--agent-forks must be a whole number between 1 and 100, was 'many'");
  }

  @Test
  void theSampledArmHasItsOwnRatioTableForkRowsAndGoals() {
    List<Row> rows = List.of(
        row("agent-tiny", "tpe-lbq", "bare", 8e6, 1e6, 300, List.of(new Row.Fork(8e6, 300))),
        row("agent-tiny", "tpe-lbq", "agent", 4e6, 1e6, 600, List.of(new Row.Fork(4e6, 600))),
        row("agent-tiny", "tpe-lbq", "sampled", 6e6, 1e6, 400, List.of(new Row.Fork(6e6, 400))));
    String md = BenchReport.tables(List.of(agentRun("agent-tiny")), rows);
    assertThat(md).contains("| executor | bare (tasks/s) | sampled | sampled / bare |",
        "| tpe-lbq | 8.00 M ± 1.00 M | 6.00 M ± 1.00 M | 0.75 |",
        "| tpe-lbq | sampled | 6.00 M at 400.0 | 1 of 1 | 6.00 M | 400.0 | 0.75, 1.33 |");
    List<Goals.Judgement> js = Goals.judge(rows);
    assertThat(goal(js, "agent, sampled: tpe-lbq ≥ 0.7× bare, tiny tasks (fast").verdict())
        .isEqualTo(Goals.Verdict.MET); // 6 / 8
    assertThat(goal(js, "agent: instrumented tpe-lbq ≥ 0.7× bare, tiny tasks (fast").verdict())
        .isEqualTo(Goals.Verdict.MISSED); // 4 / 8
  }

  @Test
  void narrowingToOtherExecutorsLeavesTheAgentSuiteOnTheBaseline() {
    List<BenchRun> plan = BenchMain.select(BenchPlan.full(),
        BenchMain.Args.parse(new String[] {"--only", "agent", "--executors", "tpe-lbq"}));
    assertThat(plan).hasSize(4).allMatch(r -> r.params().get("executor").equals(List.of("tpe-lbq")));
    assertThat(Set.copyOf(plan.stream().map(BenchRun::suite).toList())).containsExactly("agent");
  }

  private static Goals.Judgement goal(List<Goals.Judgement> js, String prefix) {
    return js.stream().filter(j -> j.goal().startsWith(prefix)).findFirst().orElseThrow();
  }
}
