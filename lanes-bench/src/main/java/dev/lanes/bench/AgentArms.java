package dev.lanes.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;

/**
 * The {@code agent} suite's two kinds of JVM: the lanes agent instruments every {@code
 * ThreadPoolExecutor} of the JVM it is loaded in, so the bare pool and the instrumented one are
 * measured in different forks, {@link Row#BARE} without and {@link Row#AGENT} with {@code
 * -javaagent:lanes-agent.jar}, and compared as the ratio agent ÷ bare.
 *
 * <p><b>Order.</b> One JMH call per fork, so that the two kinds alternate instead of running all
 * bare forks, then all instrumented ones (a machine whose load drifts would move one arm only):
 * for each fork number, each executor runs one bare and one instrumented fork, bare first on odd
 * fork numbers and instrumented first on even ones (so neither arm always comes first). The forks
 * of one executor and arm are merged into one JMH result, as if JMH had run them together: score
 * and error over every iteration of every fork, and the forks kept apart in the JSON's {@code
 * rawData} and in {@link Row#forks()}.
 *
 * <p><b>Sampled arm.</b> With {@code --agent-sample N} a third kind of JVM, {@link Row#SAMPLED},
 * runs with {@code -javaagent:lanes-agent.jar=sample=N}; the fork order rotates over the three
 * kinds (fork 1: bare, agent, sampled; fork 2: agent, sampled, bare; …).
 *
 * <p><b>Bimodal forks.</b> On the machine of BENCHMARKS.md a JVM runs a tiny-task batch either
 * fast or about three times slower per task, decided per JVM ("Issue #24"). So besides the
 * all-forks ratio (the goals' verdict), the report gives each arm's fork means in order, how many
 * forks ran in the fast mode ({@link #modes}) and the medians of those: a rule fixed before the
 * run, applied to both arms alike.
 */
final class AgentArms {

  /** {@code -Dlanes.agentJar=PATH}: where the agent jar is, if not next to the bench module. */
  static final String AGENT_JAR_PROPERTY = "lanes.agentJar";

  /** The agent jar, relative to the repository root. */
  static final String AGENT_JAR = "lanes-agent/target/lanes-agent.jar";

  /**
   * A fork is in the fast mode when its CPU per task is at most this many times its arm's lowest
   * fork's (the slow mode is ≈ 2.5–3×; iteration noise within a mode stays well under 1.5×).
   */
  static final double FAST_CPU_FACTOR = 1.5;

  private AgentArms() {}

  /** One JMH call: fork {@code fork} (from 1) of {@code executor} in a JVM of kind {@code arm}. */
  record Step(int fork, String executor, String arm) {}

  /** The calls an agent run makes, in order (see the class comment). */
  static List<Step> order(BenchRun run) {
    return order(run, 0);
  }

  /** As {@link #order(BenchRun)}, with the sampled arm when {@code sample} &gt; 0. */
  static List<Step> order(BenchRun run, int sample) {
    List<String> arms = sample > 0 ? List.of(Row.BARE, Row.AGENT, Row.SAMPLED)
        : List.of(Row.BARE, Row.AGENT);
    List<Step> steps = new ArrayList<>();
    int forks = run.iterations() == null ? 1 : run.iterations().forks();
    for (int f = 1; f <= forks; f++) {
      for (String e : run.params().getOrDefault("executor", List.of(""))) {
        for (int k = 0; k < arms.size(); k++) {
          steps.add(new Step(f, e, arms.get((f - 1 + k) % arms.size())));
        }
      }
    }
    return steps;
  }

  /** The JVM arguments of one arm's forks. */
  static List<String> jvmArgs(String arm, Path agentJar, int sample) {
    return switch (arm) {
      case Row.AGENT -> List.of("-javaagent:" + agentJar);
      case Row.SAMPLED -> List.of("-javaagent:" + agentJar + "=sample=" + sample);
      default -> List.of();
    };
  }

  /** {@code run} with {@code forks} forks of each kind of JVM. */
  static BenchRun withForks(BenchRun run, int forks) {
    BenchRun.Iterations it = run.iterations() == null
        ? new BenchRun.Iterations(1, 1, 3, 1, forks) : run.iterations();
    return new BenchRun(run.id(), run.suite(), run.include(), run.params(),
        new BenchRun.Iterations(it.warmups(), it.warmupSeconds(), it.measurements(), it.seconds(),
            forks), run.agentArms());
  }

  /**
   * The agent jar: {@code --agent-jar}, else {@value #AGENT_JAR_PROPERTY}, else {@value
   * #AGENT_JAR} under the first folder above {@code codeSource} (the bench jar or its classes)
   * that has it.
   *
   * @throws BenchMain.UsageException naming where it looked and how to build the jar
   */
  static Path agentJar(String option, String property, Path codeSource, Predicate<Path> exists) {
    String given = option != null ? option : property;
    if (given != null) {
      Path p = Path.of(given).toAbsolutePath().normalize();
      if (!exists.test(p)) {
        throw new BenchMain.UsageException("the agent suite needs the lanes agent jar; " + p
            + " does not exist (build it: ./mvnw -pl lanes-agent -am package -DskipTests)");
      }
      return p;
    }
    Path first = null;
    for (Path dir = codeSource == null ? null : codeSource.toAbsolutePath().normalize();
        dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(AGENT_JAR);
      if (exists.test(candidate)) {
        return candidate;
      }
      if (first == null && Files.isDirectory(dir.resolve("lanes-agent"))) {
        first = candidate;
      }
    }
    throw new BenchMain.UsageException("the agent suite needs the lanes agent jar, not found at "
        + (first == null ? AGENT_JAR + " above " + codeSource : first)
        + "; build it with ./mvnw -pl lanes-agent -am package -DskipTests (./lanes bench does),"
        + " or pass --agent-jar PATH");
  }

  /** Where this class was loaded from: the bench jar, or the module's classes folder. */
  static Path codeSource() {
    try {
      var cs = AgentArms.class.getProtectionDomain().getCodeSource();
      return cs == null ? null : Path.of(cs.getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Runs {@code run}'s forks in {@link #order}, each JMH call's JSON to {@code <dir>/<id>/}, the
   * merged results to {@code <dir>/<id>.json}; returns one row per executor and arm.
   */
  static List<Row> run(BenchRun run, Path dir, Path agentJar, int sample, String profiler,
      PrintStream out) throws RunnerException, IOException {
    Path forkDir = dir.resolve(run.id());
    Files.createDirectories(forkDir);
    Map<String, BenchmarkParams> params = new LinkedHashMap<>();
    Map<String, List<BenchmarkResult>> results = new LinkedHashMap<>();
    List<Step> steps = order(run, sample);
    for (Step s : steps) {
      BenchRun one = oneFork(run, s.executor());
      Path json = forkDir.resolve(
          String.format(java.util.Locale.ROOT, "%02d-%s-%s.json", s.fork(), s.executor(), s.arm()));
      out.println("\n=== " + run.id() + ": fork " + s.fork() + " of " + forks(run) + ", "
          + s.executor() + ", " + (s.arm().equals(Row.AGENT) ? "with the agent"
              : s.arm().equals(Row.SAMPLED) ? "with the agent, sample=" + sample : "bare")
          + " → " + json);
      List<String> jvmArgs = jvmArgs(s.arm(), agentJar, sample);
      for (RunResult rr : new Runner(BenchMain.options(one, json, profiler, jvmArgs).build()).run()) {
        String key = s.executor() + "|" + s.arm();
        params.putIfAbsent(key, rr.getParams());
        results.computeIfAbsent(key, k -> new ArrayList<>()).addAll(rr.getBenchmarkResults());
      }
    }
    List<RunResult> merged = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, List<BenchmarkResult>> e : results.entrySet()) {
      RunResult rr = new RunResult(params.get(e.getKey()), e.getValue());
      merged.add(rr);
      rows.add(Row.of(run, rr).withParam(Row.ARM, e.getKey().substring(e.getKey().indexOf('|') + 1)));
    }
    ResultFormatFactory.getInstance(ResultFormatType.JSON, dir.resolve(run.id() + ".json").toString())
        .writeOut(merged);
    return rows;
  }

  private static int forks(BenchRun run) {
    return run.iterations() == null ? 1 : run.iterations().forks();
  }

  /** {@code run} for one executor, one fork. */
  static BenchRun oneFork(BenchRun run, String executor) {
    Map<String, List<String>> p = new LinkedHashMap<>(run.params());
    if (!executor.isEmpty()) {
      p.put("executor", List.of(executor));
    }
    BenchRun.Iterations it = run.iterations();
    BenchRun.Iterations one = it == null ? null
        : new BenchRun.Iterations(it.warmups(), it.warmupSeconds(), it.measurements(), it.seconds(), 1);
    return new BenchRun(run.id(), run.suite(), run.include(), p, one, run.agentArms());
  }

  /**
   * One arm's forks: how many ran in the fast mode (CPU per task at most {@link #FAST_CPU_FACTOR}
   * × the arm's lowest; every fork when CPU time was not measured), and those forks' median score
   * and CPU per task.
   */
  record Modes(int fast, int all, double medianScore, double medianCpu) {}

  static Modes modes(List<Row.Fork> forks) {
    double lowest = forks.stream().mapToDouble(Row.Fork::cpuPerTask).filter(c -> !Double.isNaN(c))
        .min().orElse(Double.NaN);
    List<Row.Fork> fast = forks.stream()
        .filter(f -> Double.isNaN(lowest) || Double.isNaN(f.cpuPerTask())
            || f.cpuPerTask() <= FAST_CPU_FACTOR * lowest)
        .toList();
    return new Modes(fast.size(), forks.size(),
        median(fast.stream().map(Row.Fork::score).toList()),
        median(fast.stream().map(Row.Fork::cpuPerTask).toList()));
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }
}
