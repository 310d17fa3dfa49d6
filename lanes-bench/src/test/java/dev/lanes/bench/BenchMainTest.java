package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleFunction;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

/** The runner's command line and plans; JMH itself is never started here. */
class BenchMainTest {

  @Test
  void helpListsSuitesAndExecutors() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = BenchMain.run(new String[] {"--help"}, new PrintStream(bytes, true, "UTF-8"));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(text).contains("--quick", "throughput,shared-latch,handoff,scaling,memory,work,health,agent",
        "spring-vthreads-limit", "--agent-jar PATH");
  }

  @Test
  void badOptionsFailWithOneLine() {
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--fast"}))
        .hasMessage("unknown option '--fast'");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--only"}))
        .hasMessage("--only needs a value");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--only", "speed"}))
        .hasMessageStartingWith("unknown suite 'speed'; known: throughput");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--executors", "tpe"}))
        .hasMessageStartingWith("unknown executor 'tpe'");
  }

  @Test
  void everyPlannedRunSelectsAnExistingBenchmark() throws Exception {
    // META-INF/BenchmarkList is written by JMH's annotation processor; without it the jar is empty.
    String list;
    try (InputStream in =
        BenchMainTest.class.getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
      assertThat(in).as("META-INF/BenchmarkList (JMH annotation processor output)").isNotNull();
      list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (List<BenchRun> plan : List.of(BenchPlan.full(), BenchPlan.quick())) {
      for (BenchRun run : plan) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(run.include());
        // Each line: JMH S <len> <user class> S <len> <generated class> S <len> <method> ...
        boolean found =
            list.lines()
                .map(l -> l.split(" "))
                .filter(t -> t.length > 9)
                .anyMatch(t -> p.matcher(t[3] + "." + t[9]).find());
        assertThat(found).as(run.id() + " includes " + run.include()).isTrue();
      }
    }
  }

  @Test
  void theStandAloneBenchmarksAreNotPartOfAnyPlan() {
    // BENCHMARKS.md and their javadoc say PartsBenchmark and ClockBenchmark run only by hand
    List<String> standAlone = List.of("dev.lanes.PartsBenchmark.allParts",
        "dev.lanes.PartsBenchmark.ringHandOff", "dev.lanes.bench.ClockBenchmark.nanoTimeOneThread");
    for (List<BenchRun> plan : List.of(BenchPlan.full(), BenchPlan.quick())) {
      for (BenchRun run : plan) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(run.include());
        for (String benchmark : standAlone) {
          assertThat(p.matcher(benchmark).find()).as(run.id() + " includes " + benchmark).isFalse();
        }
      }
    }
  }

  @Test
  void narrowingExecutorsKeepsTheBaseline() {
    BenchRun throughput = BenchPlan.full().get(0);
    BenchRun narrowed = throughput.onlyExecutors(java.util.Set.of("lanes"));
    assertThat(narrowed.params().get("executor")).containsExactly("tpe-lbq", "lanes");
    assertThat(throughput.onlyExecutors(java.util.Set.of("tpe-lbq")).measuresSomething()).isFalse();
  }

  @Test
  void anAgentRunOfTheBaselineAloneStillMeasuresSomething() {
    BenchRun agentTiny = BenchPlan.full().stream().filter(r -> r.id().equals("agent-tiny"))
        .findFirst().orElseThrow();
    // in an agent run the baseline is the bare JVM: tpe-lbq alone is a comparison
    assertThat(agentTiny.onlyExecutors(java.util.Set.of("tpe-lbq")).measuresSomething()).isTrue();
    assertThat(agentTiny.onlyExecutors(java.util.Set.of("lanes")).params().get("executor"))
        .containsExactly("tpe-lbq");
  }

  @Test
  void theFullPlanRunsAtLeastThreeForksAndEveryRunMeasuresCpuPerTask() {
    java.util.Set<String> tiny =
        java.util.Set.of(
            "throughput", "throughput-cap64", "scaling-tasks", "scaling-producers", "health",
            "shared-latch", "shared-latch-async", "shared-latch-producers",
            "agent-tiny", "agent-work", "agent-tiny-distinct", "agent-work-distinct");
    for (BenchRun run : BenchPlan.full()) {
      assertThat(run.iterations()).as(run.id()).isNotNull();
      int forks = switch (run.id()) {
        case "throughput-cap64" -> 16;
        case "throughput", "scaling-tasks", "scaling-producers" -> 10;
        case "shared-latch", "shared-latch-async" -> 10;
        case "shared-latch-producers" -> 6;
        case "agent-tiny", "agent-work", "agent-tiny-distinct", "agent-work-distinct" -> 10;
        case "health" -> 6;
        default -> 3;
      };
      assertThat(run.iterations().forks()).as(run.id()).isEqualTo(forks);
      if (tiny.contains(run.id())) {
        assertThat(run.iterations().measurements()).as(run.id()).isEqualTo(10);
        assertThat(run.iterations().seconds()).as(run.id()).isEqualTo(1);
      }
      var options = BenchMain.options(run, java.nio.file.Path.of("x.json"), null).build();
      assertThat(options.getForkCount().get()).isEqualTo(forks);
      assertThat(options.getWarmupTime().get().getTime())
          .isEqualTo(run.iterations().warmupSeconds());
      assertThat(options.getMeasurementTime().get().getTime())
          .isEqualTo(run.iterations().seconds());
      assertThat(options.getProfilers()).anyMatch(p -> p.getKlass().equals(CpuTimeProfiler.class.getName()));
      assertThat(options.getProfilers())
          .anyMatch(p -> p.getKlass().equals(LineRoundTripProfiler.class.getName()));
    }
    assertThat(BenchPlan.quick()).allMatch(r -> r.iterations().forks() == 1);
  }

  @Test
  void helpStatesEachPlansTimeFromThePlanItself() throws Exception {
    String list = BenchPlan.benchmarkList();
    long quick = BenchPlan.estimateMinutes(BenchPlan.quick(), list);
    // The full run leaves the agent suite out unless --only names it.
    long full = BenchPlan.estimateMinutes(
        BenchMain.select(BenchPlan.full(), BenchMain.Args.parse(new String[0])), list);
    assertThat(full).isGreaterThan(quick * 5);
    // README: the full plan fits in one working session (issue #27), about 140 minutes of
    // iterations (plus about 9 % for JVM starts).
    assertThat(full).isLessThanOrEqualTo(140);
    assertThat(BenchMain.select(BenchPlan.full(), BenchMain.Args.parse(new String[0])))
        .noneMatch(r -> r.suite().equals("agent"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchMain.run(new String[] {"--help"}, new PrintStream(bytes, true, "UTF-8"));
    String text = bytes.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " ");
    assertThat(text).contains("at least " + quick + " minutes",
        "10 forks of 10 one-second iterations for throughput, shared-latch and both scaling suites",
        "6 for health", "16 for throughput-cap64",
        "3 forks of 2-second iterations",
        "at least " + full + " minutes", "CPU ns/task",
        "measured for " + LineRoundTripProfiler.MEASURE_MILLIS
            + " ms before each measurement iteration");
    BenchMain.Args agentOnly = BenchMain.Args.parse(new String[] {"--only", "agent"});
    long agentFull = BenchPlan.estimateMinutes(BenchMain.select(BenchPlan.full(), agentOnly), list);
    long agentQuick =
        BenchPlan.estimateMinutes(BenchMain.select(BenchPlan.quick(), agentOnly), list);
    // 6 benchmark-executor pairs × 2 JVM kinds × 10 forks × 14 s = 28 minutes
    assertThat(agentFull).isEqualTo(28);
    assertThat(text).contains("(agent runs only when named here: 10 forks of each kind of JVM, at"
        + " least " + agentFull + " minutes, " + agentQuick + " with --quick)");
    System.out.printf("bench plans: quick >= %d min, full >= %d min of iterations (agent %d)%n",
        quick, full, agentFull);
  }

  @Test
  void theReadmesStateThePlansForkCounts() throws Exception {
    java.util.IntSummaryStatistics forks = BenchPlan.full().stream()
        .mapToInt(r -> r.iterations().forks()).summaryStatistics();
    String range = forks.getMin() + "–" + forks.getMax() + " forks per benchmark";
    String bench = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"))
        .replaceAll("\\s+", " ");
    String root = java.nio.file.Files.readString(java.nio.file.Path.of("../README.md"))
        .replaceAll("\\s+", " ");
    assertThat(root).contains(range);
    assertThat(bench).contains(range,
        BenchPlan.FULL_NOISY_FORKS + " forks of 10 one-second iterations",
        BenchPlan.FULL_TINY_FORKS + " such forks for `health`",
        "with " + BenchPlan.FULL_CAP64_FORKS + " such forks for `throughput-cap64`",
        BenchPlan.FULL_FORKS + " forks of 2-second iterations for `handoff` and `work`");
  }

  @Test
  void sharedLatchGoalsAreRatiosWithinEachRunAndItsSweepTableIsAgainstTpeAbq() {
    java.util.function.Function<String[], Row> row = a -> new Row(
        a[0], "shared-latch", "SharedLatchBenchmark." + a[1],
        Map.of("executor", a[2], "cap", "2"),
        Mode.Throughput, Double.parseDouble(a[3]), Double.parseDouble(a[4]), "ops/s", 0, 0, 0,
        Map.of());
    List<Row> rows = List.of(
        row.apply(new String[] {"shared-latch", "producers1", "tpe-abq", "10e6", "0.5e6"}),
        row.apply(new String[] {"shared-latch", "producers1", "lanes", "10.5e6", "0.5e6"}),
        row.apply(new String[] {"shared-latch-async", "runAsync1", "tpe-abq", "9e6", "1.8e6"}),
        row.apply(new String[] {"shared-latch-async", "runAsync1", "lanes", "8e6", "0.1e6"}),
        row.apply(new String[] {"shared-latch-producers", "producers4", "tpe-abq", "12e6", "1e5"}),
        row.apply(new String[] {"shared-latch-producers", "producers4", "fjp", "30e6", "1e5"}),
        row.apply(new String[] {"shared-latch-producers", "producers4", "lanes", "16e6", "1e5"}),
        row.apply(new String[] {"shared-latch-producers", "producers2", "lanes", "99e6", "1e5"}));
    List<Goals.Judgement> js = Goals.judge(rows);
    assertThat(goal(js, "shared-latch: lanes ≥ 1.0× tpe-abq (1 producer)").measured())
        .startsWith("1.05×");
    assertThat(goal(js, "shared-latch: lanes through CompletableFuture.runAsync").verdict())
        .isEqualTo(Goals.Verdict.MISSED);
    // 4 producers: lanes against tpe-abq and fjp of the same method, never producers2's row
    assertThat(goal(js, "shared-latch: lanes ≥ 1.0× tpe-abq (4 producers)").measured())
        .startsWith("1.33×");
    assertThat(goal(js, "shared-latch: lanes ≥ 0.5× fjp (4 producers)").measured())
        .startsWith("0.53×");
    assertThat(goal(js, "shared-latch: lanes ≥ 2.5× micrometer").verdict())
        .isEqualTo(Goals.Verdict.NOT_MEASURED);
    assertThat(goal(js, "error bar of tpe-abq (shared-latch-async, runAsync1)").verdict())
        .isEqualTo(Goals.Verdict.MISSED);
    assertThat(goal(js, "error bar of tpe-abq (shared-latch, producers1)").verdict())
        .isEqualTo(Goals.Verdict.MET);
    String tables = BenchReport.tables(
        BenchPlan.full().stream().filter(r -> r.id().equals("shared-latch-producers")).toList(),
        rows);
    assertThat(tables).contains("ratio to tpe-abq").contains("| lanes | 16.00 M | ");
    // --help: one producer by execute and by runAsync, then 2, 4 and 8 producers
    String list = BenchPlan.benchmarkList();
    java.util.Map<String, Long> methods = new java.util.HashMap<>();
    for (BenchRun r : BenchPlan.full()) {
      if (r.suite().equals("shared-latch")) {
        methods.put(r.id(), BenchPlan.methods(r, list));
      }
    }
    assertThat(methods).containsExactlyInAnyOrderEntriesOf(Map.of(
        "shared-latch", 1L, "shared-latch-async", 1L, "shared-latch-producers", 3L));
  }

  @Test
  void goalsJudgeCpuPerTaskAgainstTheArrayQueuePool() {
    java.util.function.BiFunction<String, Double, Row> row = (executor, cpu) -> new Row(
        "throughput", "throughput", "ThroughputBenchmark.batch",
        Map.of("executor", executor, "cap", "2"),
        Mode.Throughput, 1e6, 1e4, "ops/s", 0, 0, 0,
        Map.of(CpuTimeProfiler.KEY, cpu));
    List<Goals.Judgement> met = Goals.judge(List.of(row.apply("lanes", 140.0), row.apply("tpe-abq", 100.0)));
    List<Goals.Judgement> missed = Goals.judge(List.of(row.apply("lanes", 160.0), row.apply("tpe-abq", 100.0)));
    assertThat(cpuGoal(met).verdict()).isEqualTo(Goals.Verdict.MET);
    assertThat(cpuGoal(met).measured()).startsWith("1.40×");
    assertThat(cpuGoal(missed).verdict()).isEqualTo(Goals.Verdict.MISSED);
  }

  @Test
  void goalsJudgeTheBaselinesErrorBarsAgainstTenPercent() {
    java.util.function.BiFunction<String, Double, Row> row = (executor, error) -> new Row(
        "throughput", "throughput", "ThroughputBenchmark.batch",
        Map.of("executor", executor, "cap", "2"),
        Mode.Throughput, 1e6, error, "ops/s", 0, 0, 0,
        Map.of());
    Row scalingLbq = new Row(
        "scaling-producers", "scaling", "ScalingBenchmark.producers100k",
        Map.of("executor", "tpe-lbq", "cap", "2", "producers", "4"),
        Mode.Throughput, 2e6, 2.4e5, "ops/s", 0, 0, 0,
        Map.of());
    List<Goals.Judgement> js =
        Goals.judge(List.of(row.apply("tpe-abq", 1e5), row.apply("micrometer", 1.01e5),
            row.apply("tpe-lbq", 5e4), scalingLbq));
    assertThat(goal(js, "error bar of tpe-abq (throughput)").verdict()).isEqualTo(Goals.Verdict.MET);
    assertThat(goal(js, "error bar of tpe-abq (throughput)").measured()).startsWith("± 10.0 %");
    assertThat(goal(js, "error bar of micrometer").verdict()).isEqualTo(Goals.Verdict.MISSED);
    assertThat(goal(js, "error bar of r4j-threadpool").verdict())
        .isEqualTo(Goals.Verdict.NOT_MEASURED);
    // the widest tpe-lbq bar wins: 12 % in scaling-producers, not 5 % in throughput
    Goals.Judgement lbq = goal(js, "error bar of tpe-lbq");
    assertThat(lbq.verdict()).isEqualTo(Goals.Verdict.MISSED);
    assertThat(lbq.measured()).startsWith("± 12.0 %");
    assertThat(lbq.note()).contains("scaling-producers", "producers=4");
  }

  @Test
  void goalsPrintAHeapDeltaOfAFractionOfAByteAsNoneAndAddNothingForTheGrowingRing() {
    DoubleFunction<Row> memory = bytes -> new Row(
        "memory", "memory", "MemoryBenchmark.queued",
        Map.of("executor", "lanes-virtual"),
        Mode.SingleShotTime, 1, 0, "s/op", 0, 0, 0,
        Map.of("bytesPerQueuedTask", bytes));
    Goals.Judgement small = goal(Goals.judge(List.of(memory.apply(-0.3))), "memory per queued");
    assertThat(small.measured()).isEqualTo("0 bytes");
    assertThat(small.verdict()).isEqualTo(Goals.Verdict.MET);
    Goals.Judgement atGoal = goal(Goals.judge(List.of(memory.apply(56.0))), "memory per queued");
    assertThat(atGoal.measured()).isEqualTo("56 bytes");
    assertThat(atGoal.verdict()).isEqualTo(Goals.Verdict.MET);
    Goals.Judgement big = goal(Goals.judge(List.of(memory.apply(56.6))), "memory per queued");
    assertThat(big.verdict()).isEqualTo(Goals.Verdict.MISSED);
  }

  private static Goals.Judgement goal(List<Goals.Judgement> js, String prefix) {
    return js.stream().filter(j -> j.goal().startsWith(prefix)).findFirst().orElseThrow();
  }

  private static Goals.Judgement cpuGoal(List<Goals.Judgement> js) {
    return js.stream().filter(j -> j.goal().startsWith("lanes CPU time per task")).findFirst().orElseThrow();
  }
}
