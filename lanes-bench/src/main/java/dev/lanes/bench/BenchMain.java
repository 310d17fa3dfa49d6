package dev.lanes.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code ./lanes bench}: runs the JMH benchmarks of this module programmatically, writes JMH's
 * JSON for every run to {@code bench-results/<time>/} (under the current directory), then prints
 * each executor's score and its ratio to {@code tpe-lbq} from the same run, and the goals
 * with a verdict computed from the figures. The same text goes to {@code summary.md} beside the
 * JSON.
 */
public final class BenchMain {

  static final String USAGE =
      """
      usage: ./lanes bench [--quick] [--only SUITES] [--executors NAMES] [--out DIR] [--prof NAME]
                           [--agent-jar PATH] [--agent-sample N] [--agent-forks N]

        --quick            a short pass (1 fork, 1-second iterations, fewer executors in the
                           scaling, memory and work suites; at least %d minutes of iterations)
        (no --quick)       the full run (%d forks of 10 one-second iterations for throughput,
                           shared-latch and both scaling suites, %d for health, %d for
                           throughput-cap64, %d forks of 2-second iterations for handoff and
                           work; at least %d minutes of iterations, plus a JVM start per fork)
        --only SUITES      comma-separated suites to run: %s
                           (agent runs only when named here: %d forks of each kind of JVM, at
                           least %d minutes, %d with --quick)
        --executors NAMES  comma-separated executors to keep (tpe-lbq is always kept as the
                           baseline, and tpe-abq in shared-latch): %s
        --out DIR          where to write results (default: bench-results, under the current
                           directory); each run gets a time-stamped folder
        --prof NAME        add a JMH profiler to every run, e.g. gc or stack, or
                           dev.lanes.bench.ContextSwitchProfiler (blocks and preemptions a task)
                           or dev.lanes.bench.ThreadCpuProfiler (CPU a task: producers, others)
        --agent-jar PATH   the lanes agent for the agent suite (default: the -Dlanes.agentJar
                           property, else lanes-agent/target/lanes-agent.jar in this repository)
        --agent-sample N   the agent suite gets a third kind of JVM, "sampled": the agent with
                           its option sample=N (1..1024; it times about 1 task in N)
        --agent-forks N    forks of each kind of JVM in the agent suite (1..100), instead of the
                           plan's
        --help             this text

      Ratios are computed against tpe-lbq (tpe-abq in a table without it, as in the shared-latch
      producers sweep) measured in the same JMH run with the same parameters;
      ratios between different runs of this command mean little on a shared machine. Beside
      throughput, each result reports CPU ns/task: the benchmark JVM's process CPU time (all
      threads, from the OS) during measurement ÷ tasks, which load disturbs far less; and the
      round trip: how long a cache line took to go between two spinning threads and back,
      measured for 20 ms before each measurement iteration (on a virtual machine it moves as the
      host moves the virtual CPUs, and lanes' CPU per task with it).

      The shared-latch suite (issue #27) runs tasks that are one Runnable instance, each spinning
      Blackhole.consumeCPU(10) and counting down one latch shared by the batch: one producer by
      execute and by CompletableFuture.runAsync, then 2, 4 and 8 producers (JMH threads).

      The agent suite measures the cost of the lanes agent (-javaagent): each executor's batch in
      JVMs without and with the agent, alternating fork by fork, reported as the ratio
      instrumented ÷ bare, for the tiny-task and work-sized batches as they are (one shared task
      object per batch) and with one task object per task.
      """;

  /** The suite that runs only when {@code --only} names it. */
  static final String AGENT_SUITE = "agent";

  private BenchMain() {}

  public static void main(String[] args) {
    int code;
    try {
      code = run(args, System.out);
    } catch (UsageException e) {
      System.err.println("lanes bench: " + e.getMessage());
      System.err.println("run ./lanes bench --help for the options");
      code = 2;
    } catch (RunnerException | IOException e) {
      System.err.println("lanes bench: " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  /** Parsed command line. */
  record Args(boolean quick, Set<String> only, Set<String> executors, Path out, String profiler,
      boolean help, String agentJar, int agentSample, int agentForks) {

    static Args parse(String[] args) {
      boolean quick = false;
      boolean help = false;
      Set<String> only = Set.of();
      Set<String> executors = Set.of();
      Path out = Path.of("bench-results");
      String prof = null;
      String agentJar = null;
      int agentSample = 0;
      int agentForks = 0;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--help", "-h" -> help = true;
          case "--only" -> only = names(value(args, ++i, a), BenchPlan.SUITES, "suite");
          case "--executors" ->
              executors = names(value(args, ++i, a), ExecutorFactory.names(), "executor");
          case "--out" -> out = Path.of(value(args, ++i, a));
          case "--prof" -> prof = value(args, ++i, a);
          case "--agent-jar" -> agentJar = value(args, ++i, a);
          case "--agent-sample" -> agentSample = number(value(args, ++i, a), a, 1, 1024);
          case "--agent-forks" -> agentForks = number(value(args, ++i, a), a, 1, 100);
          default -> throw new UsageException("unknown option '" + a + "'");
        }
      }
      return new Args(quick, only, executors, out, prof, help, agentJar, agentSample, agentForks);
    }

    private static int number(String value, String option, int min, int max) {
      try {
        int n = Integer.parseInt(value);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // the message below
      }
      throw new UsageException(option + " must be a whole number between " + min + " and " + max
          + ", was '" + value + "'");
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length || args[i].startsWith("--")) {
        throw new UsageException(option + " needs a value");
      }
      return args[i];
    }

    private static Set<String> names(String list, List<String> known, String what) {
      Set<String> out = new LinkedHashSet<>();
      for (String n : list.split(",")) {
        String t = n.trim();
        if (!known.contains(t)) {
          throw new UsageException(
              "unknown " + what + " '" + t + "'; known: " + String.join(", ", known));
        }
        out.add(t);
      }
      return out;
    }
  }

  /** A bad command line: one line for the user. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  static int run(String[] argv, PrintStream out) throws RunnerException, IOException {
    Args args = Args.parse(argv);
    if (args.help()) {
      String list = BenchPlan.benchmarkList();
      Args agentOnly = Args.parse(new String[] {"--only", "agent"});
      out.print(
          USAGE.formatted(
              BenchPlan.estimateMinutes(BenchPlan.quick(), list),
              BenchPlan.FULL_NOISY_FORKS,
              BenchPlan.FULL_TINY_FORKS,
              BenchPlan.FULL_CAP64_FORKS,
              BenchPlan.FULL_FORKS,
              BenchPlan.estimateMinutes(select(BenchPlan.full(), Args.parse(new String[0])), list),
              String.join(",", BenchPlan.SUITES),
              BenchPlan.FULL_AGENT_FORKS,
              BenchPlan.estimateMinutes(select(BenchPlan.full(), agentOnly), list),
              BenchPlan.estimateMinutes(select(BenchPlan.quick(), agentOnly), list),
              String.join(",", ExecutorFactory.names())));
      return 0;
    }
    List<BenchRun> plan = select(args.quick() ? BenchPlan.quick() : BenchPlan.full(), args);
    if (plan.isEmpty()) {
      throw new UsageException("nothing to run with these --only / --executors choices");
    }
    // Found before anything runs, so a missing jar fails at once, not after an hour.
    Path agentJar = plan.stream().anyMatch(BenchRun::agentArms)
        ? AgentArms.agentJar(args.agentJar(), System.getProperty(AgentArms.AGENT_JAR_PROPERTY),
            AgentArms.codeSource(), Files::isRegularFile)
        : null;
    ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
    String loadAtStart = loadAverage();
    Path dir =
        args.out()
            .resolve(started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)))
            .toAbsolutePath();
    Files.createDirectories(dir);
    out.println("lanes bench: " + (args.quick() ? "quick" : "full") + " run, " + plan.size()
        + " JMH runs, at least " + BenchPlan.estimateMinutes(plan, BenchPlan.benchmarkList())
        + " minutes of iterations; results go to " + dir);

    List<Row> rows = new ArrayList<>();
    for (BenchRun run : plan) {
      if (run.agentArms()) {
        BenchRun forked = args.agentForks() == 0 ? run : AgentArms.withForks(run, args.agentForks());
        rows.addAll(AgentArms.run(forked, dir, agentJar, args.agentSample(), args.profiler(), out));
        continue;
      }
      Path json = dir.resolve(run.id() + ".json");
      out.println("\n=== " + run.id() + " → " + json);
      for (RunResult rr : new Runner(options(run, json, args.profiler()).build()).run()) {
        rows.add(Row.of(run, rr));
      }
    }

    String report = summary(argv, args, started, loadAtStart, plan, rows);
    Path summary = dir.resolve("summary.md");
    Files.writeString(summary, report, StandardCharsets.UTF_8);
    out.println("\n" + report);
    out.println("JMH JSON and this summary: " + dir);
    return 0;
  }

  static List<BenchRun> select(List<BenchRun> runs, Args args) {
    List<BenchRun> out = new ArrayList<>();
    for (BenchRun r : runs) {
      if (!args.only().isEmpty() && !args.only().contains(r.suite())) {
        continue;
      }
      if (args.only().isEmpty() && r.suite().equals(AGENT_SUITE)) {
        continue; // opt-in: the full run without it already takes most of a 3-hour session
      }
      BenchRun narrowed = args.executors().isEmpty() ? r : r.onlyExecutors(args.executors());
      if (narrowed.measuresSomething()) {
        out.add(narrowed);
      }
    }
    return out;
  }

  static ChainedOptionsBuilder options(BenchRun run, Path json, String profiler) {
    return options(run, json, profiler, List.of());
  }

  /** {@code extraJvmArgs}: added to every fork's command line after {@code -Xms1g -Xmx1g}. */
  static ChainedOptionsBuilder options(BenchRun run, Path json, String profiler,
      List<String> extraJvmArgs) {
    List<String> jvmArgs = new ArrayList<>(List.of("-Xms1g", "-Xmx1g"));
    jvmArgs.addAll(extraJvmArgs);
    ChainedOptionsBuilder o =
        new OptionsBuilder()
            .include(run.include())
            .forks(run.iterations() == null ? 1 : run.iterations().forks())
            .jvmArgsAppend(jvmArgs.toArray(String[]::new))
            .addProfiler(CpuTimeProfiler.class)
            .addProfiler(LineRoundTripProfiler.class)
            .shouldFailOnError(false)
            .result(json.toString())
            .resultFormat(ResultFormatType.JSON);
    for (Map.Entry<String, List<String>> p : run.params().entrySet()) {
      o.param(p.getKey(), p.getValue().toArray(String[]::new));
    }
    if (run.iterations() != null) {
      BenchRun.Iterations it = run.iterations();
      o.warmupIterations(it.warmups())
          .warmupTime(TimeValue.seconds(it.warmupSeconds()))
          .measurementIterations(it.measurements())
          .measurementTime(TimeValue.seconds(it.seconds()));
    }
    if (profiler != null) {
      o.addProfiler(profiler);
    }
    return o;
  }

  /** The machine's load averages (Linux), so a reader can tell a busy machine from a quiet one. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + ", " + f[1] + ", " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String summary(
      String[] argv,
      Args args,
      ZonedDateTime started,
      String loadAtStart,
      List<BenchRun> plan,
      List<Row> rows) {
    Runtime rt = Runtime.getRuntime();
    StringBuilder s = new StringBuilder("## lanes bench results\n\n");
    s.append("- command: `./lanes bench").append(argv.length == 0 ? "" : " ")
        .append(String.join(" ", Arrays.asList(argv))).append("`\n");
    s.append("- date: ").append(started.format(DateTimeFormatter.ISO_INSTANT)).append('\n');
    s.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
        .append(System.getProperty("java.runtime.version")).append(" (")
        .append(System.getProperty("java.vendor")).append(")\n");
    s.append("- machine: ").append(rt.availableProcessors()).append(" cores, ")
        .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch"))
        .append(", forks run with -Xms1g -Xmx1g\n");
    s.append("- load average (1, 5, 15 min) at start: ").append(loadAtStart)
        .append("; at end: ").append(loadAverage()).append('\n');
    s.append("- JMH: ").append(args.quick() ? "1 fork per benchmark (agent: 1 of each kind of JVM)"
            : BenchPlan.FULL_NOISY_FORKS
                + " forks × 10 × 1 s (throughput, shared-latch, scaling-tasks, scaling-producers; "
                + BenchPlan.FULL_TINY_FORKS + " for health; "
                + BenchPlan.FULL_CAP64_FORKS + " for throughput-cap64) or "
                + BenchPlan.FULL_FORKS + " forks × 5 × 2 s (handoff, work); agent: "
                + BenchPlan.FULL_AGENT_FORKS + " bare and " + BenchPlan.FULL_AGENT_FORKS
                + " instrumented forks × 10 × 1 s, alternating")
        .append("; ").append(args.quick() ? "quick" : "full")
        .append(" plan; error = JMH's 99.9 % confidence half-width; CPU ns/task = the forked JVM's")
        .append(" process CPU time (all threads) during measurement ÷ tasks; round trip = a cache")
        .append(" line's trip between two spinning threads and back, measured for ")
        .append(LineRoundTripProfiler.MEASURE_MILLIS).append(" ms before each measurement")
        .append(" iteration (the median of 64-trip chunks), the median over the iterations\n");
    s.append("\n## Goals (verdicts computed from this run)\n\n");
    s.append(Goals.markdown(Goals.judge(rows)));
    s.append("\n## Tables\n");
    s.append(BenchReport.tables(plan, rows));
    return s.toString();
  }
}
