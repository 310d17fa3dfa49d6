package dev.lanes.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the test apps ({@code dev.lanes.agent.apps.*}, plain Java with no lanes code) in a
 * JVM of its own, with or without the agent, and hands back what it printed and the agent's pool
 * table (tab-separated, written at exit). The child gets no {@code --add-opens}: what the agent
 * does must work without it.
 */
final class AgentJvm {
  static final Path JAR = Path.of(System.getProperty("lanes.agent.jar", "target/lanes-agent.jar"));
  static final String CLASSES = System.getProperty("lanes.agent.testClasses", "target/test-classes");

  /** What a child JVM did. */
  record Result(int exit, String out, String err, List<Map<String, String>> pools) {
    /** The table row of the pool with this name; fails if there is none. */
    Map<String, String> pool(String name) {
      return pools.stream().filter(p -> p.get("pool").equals(name)).findFirst().orElseThrow(
          () -> new AssertionError("no pool \"" + name + "\" in the agent's table: " + pools
              + "\nstderr:\n" + err));
    }

    /**
     * The agent's figures for {@code pool} agree with what the app's tasks measured themselves (the
     * app printed {@code wait_mean_ms}, {@code run_mean_ms} and {@code run_p50_ms}). The agent's
     * stamps sit just outside the task's code, so its run of a task is the task's own plus the
     * edges: microseconds, or a whole time slice when the thread was preempted there, which a busy
     * machine does to a few tasks. So: the median run within 5 % (a few preempted edges do not
     * move it); the mean run at least the task's own (less 1 % for the clocks); the mean wait and
     * the mean wait + run within 5 % (what the edges move from the wait to the run stays in the
     * sum).
     */
    void agreesWithTheTasksOwn(String pool) {
      double appWait = printed("wait_mean_ms");
      double appRun = printed("run_mean_ms");
      double appRunMedian = printed("run_p50_ms");
      org.assertj.core.api.Assertions.assertThat(number(pool, "run_p50_ms"))
          .as("median run").isCloseTo(appRunMedian,
              org.assertj.core.data.Offset.offset(appRunMedian * 0.05));
      org.assertj.core.api.Assertions.assertThat(number(pool, "run_mean_ms"))
          .as("mean run").isGreaterThanOrEqualTo(appRun * 0.99);
      org.assertj.core.api.Assertions.assertThat(number(pool, "wait_mean_ms"))
          .as("mean wait").isCloseTo(appWait, org.assertj.core.data.Offset.offset(appWait * 0.05));
      double appTotal = appWait + appRun;
      org.assertj.core.api.Assertions.assertThat(
              number(pool, "wait_mean_ms") + number(pool, "run_mean_ms"))
          .as("mean wait + run").isCloseTo(appTotal,
              org.assertj.core.data.Offset.offset(appTotal * 0.05));
    }

    /** A figure the app printed as {@code name=value}. */
    double printed(String name) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile(name + "=([0-9.]+)").matcher(out);
      org.assertj.core.api.Assertions.assertThat(m.find())
          .as("the app printed %s: %s", name, out).isTrue();
      return Double.parseDouble(m.group(1));
    }

    double number(String pool, String column) {
      return Double.parseDouble(pool(pool).get(column));
    }
  }

  /** Put in {@code jvmArgs}: the app's class path is {@link #libraryClassPath()}. */
  static final String WITH_LIBRARIES = "(libraries)";

  private AgentJvm() {}

  /** The {@code java} of the JDK the tests run on. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Runs {@code java -jar lanes-agent.jar attach <pid> more...} and returns what it printed; fails
   * unless it ends with status 0 within 60 s.
   */
  static String attach(long pid, String... more) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(java(), "-jar", JAR.toAbsolutePath().toString(),
        "attach", String.valueOf(pid)));
    cmd.addAll(List.of(more));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("attach " + pid + " did not end in 60 s: " + out);
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("attach " + pid + " ended with " + p.exitValue() + ": " + out);
    }
    return out;
  }


  /**
   * The test JVM's class path (test classes, lanes-core, HdrHistogram, JUnit …) without the
   * agent's own unshaded classes and Byte Buddy: for apps that need libraries. The agent must come
   * from its jar only.
   */
  static String libraryClassPath() {
    return java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        .filter(e -> !e.replace('\\', '/').endsWith("lanes-agent/target/classes"))
        .filter(e -> !e.contains("byte-buddy"))
        .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
  }

  /** Runs {@code app} with the agent and {@code options} (null: without the agent). */
  static Result run(Class<?> app, String options, String... args) throws IOException, InterruptedException {
    return run(app, options, List.of(), args);
  }

  static Result run(Class<?> app, String options, List<String> jvmArgs, String... args)
      throws IOException, InterruptedException {
    return runOn(System.getProperty("lanes.agent.appClassPath", CLASSES), app, options, jvmArgs, args);
  }

  /**
   * The test classes and the jars of this JVM's class path whose file names start with one of
   * {@code jarPrefixes} ({@code "netty-"}): an app's class path for a framework the tests depend
   * on, without the agent's own classes or its dependencies.
   */
  static String classPathWith(String... jarPrefixes) {
    String all = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> out = new ArrayList<>(List.of(CLASSES));
    for (String entry : all.split(java.io.File.pathSeparator)) {
      String file = Path.of(entry).getFileName().toString();
      if (file.endsWith(".jar") && Arrays.stream(jarPrefixes).anyMatch(file::startsWith)) {
        out.add(entry);
      }
    }
    return String.join(java.io.File.pathSeparator, out);
  }

  /** Runs {@code app} on the class path {@code classPath}; see {@link #run(Class, String, String...)}. */
  static Result runOn(String classPath, Class<?> app, String options, List<String> jvmArgs,
      String... args) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("lanes-agent-test");
    Path table = dir.resolve("pools.tsv");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xshare:auto");
    cmd.addAll(jvmArgs.stream().filter(a -> !a.equals(WITH_LIBRARIES)).toList());
    if (options != null) {
      String all = "table-file=" + table + (options.isEmpty() ? "" : "," + options);
      cmd.add("-javaagent:" + JAR.toAbsolutePath() + "=" + all);
    }
    cmd.add("-cp");
    cmd.add(jvmArgs.contains(WITH_LIBRARIES) ? libraryClassPath() : classPath);
    cmd.add(app.getName());
    cmd.addAll(Arrays.asList(args));
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("the app did not end in 90 s: " + cmd + "\nstdout:\n"
          + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
    }
    List<Map<String, String>> pools = Files.exists(table) ? parse(Files.readString(table)) : List.of();
    return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8), pools);
  }

  static List<Map<String, String>> parse(String tsv) {
    String[] lines = tsv.split("\n");
    String[] head = lines[0].split("\t", -1);
    List<Map<String, String>> rows = new ArrayList<>();
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isBlank()) {
        continue;
      }
      String[] cells = lines[i].split("\t", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int c = 0; c < head.length; c++) {
        row.put(head[c], c < cells.length ? cells[c] : "");
      }
      rows.add(row);
    }
    return rows;
  }
}
