package dev.lanes.lab.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lanes-agent demo application ({@code lanes-agent-demo}, Spring Boot, no lanes code) in a
 * JVM of its own, started under the lanes agent ({@code -javaagent:lanes-agent.jar=table-file=...}).
 * Every line it prints (stdout and stderr) is kept with the instant this JVM read it, so that a
 * caller can wait for a line (the agent's warnings) and time when it came. {@link #snapshot()}
 * reads the agent's pool table from the running JVM ({@code lanes-agent.jar attach <pid> --tsv});
 * {@link #close()} stops the JVM (SIGTERM, so the agent writes its table at exit, then a kill if it
 * lingers) and joins the threads that read its output.
 *
 * <p><b>Concurrency design.</b> Two reader threads append to {@link #lines} under this object's
 * monitor and notify; waiters wait on it with a deadline. The process and the reader threads are
 * ended in {@link #close()}, whatever happened before.
 */
public final class AgentDemoProcess implements AutoCloseable {

  /** The two jars, found from the folder the lab runs from. */
  public record Jars(Path agent, Path app) {

    /** Where {@code ./lanes lab} builds them; what to run to build them by hand. */
    public static final String BUILD_HINT = "./mvnw -pl lanes-agent,lanes-agent-demo -am package"
        + " -DskipTests (./lanes lab builds them)";

    /**
     * The jars under the lanes source tree: the tree given by {@code -Dlanes.root}, else the one
     * holding the lab's own jar or classes, else the working folder or one above it. Empty if
     * either jar is missing; {@link #missing} says which.
     */
    public static Optional<Jars> find(Path root) {
      Jars j = at(root);
      return Files.isRegularFile(j.agent) && Files.isRegularFile(j.app) ? Optional.of(j) : Optional.empty();
    }

    public static Jars at(Path root) {
      return new Jars(root.resolve("lanes-agent/target/lanes-agent.jar"),
          root.resolve("lanes-agent-demo/target/lanes-agent-demo.jar"));
    }

    /** One line naming the missing jars and how to build them. */
    public String missing() {
      List<String> m = new ArrayList<>();
      for (Path p : List.of(agent, app)) {
        if (!Files.isRegularFile(p)) {
          m.add(p.toString());
        }
      }
      return "missing " + String.join(" and ", m) + "; build them with " + BUILD_HINT;
    }

    /** The lanes source tree the lab runs from (see {@link #find}). */
    public static Path root() {
      String given = System.getProperty("lanes.root");
      if (given != null && !given.isBlank()) {
        return Path.of(given).toAbsolutePath();
      }
      List<Path> starts = new ArrayList<>();
      try {
        starts.add(Path.of(AgentDemoProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
      } catch (URISyntaxException | SecurityException | NullPointerException e) {
        // no code source: the working folder is all there is
      }
      starts.add(Path.of("").toAbsolutePath());
      for (Path start : starts) {
        for (Path p = start.toAbsolutePath(); p != null; p = p.getParent()) {
          if (Files.isDirectory(p.resolve("lanes-agent")) && Files.isRegularFile(p.resolve("pom.xml"))) {
            return p;
          }
        }
      }
      return Path.of("").toAbsolutePath();
    }
  }

  /** A line the application printed and when this JVM read it. */
  public record Line(Instant at, String text) {}

  private static final Pattern LISTENING = Pattern.compile("lanes-agent-demo: listening on (http://\\S+)");
  private static final int MAX_LINES = 20_000;

  private final Jars jars;
  private final Path dir;
  private final Process process;
  private final Path exitTable;
  private final List<Line> lines = new ArrayList<>();
  private final List<Thread> readers = new ArrayList<>();
  private final String url;

  private AgentDemoProcess(Jars jars, Path dir, Process process, Path exitTable, Duration startTimeout)
      throws IOException, InterruptedException {
    this.jars = jars;
    this.dir = dir;
    this.process = process;
    this.exitTable = exitTable;
    readers.add(read(process.getInputStream(), "out"));
    readers.add(read(process.getErrorStream(), "err"));
    Optional<Line> ready = awaitLine(l -> LISTENING.matcher(l.text()).find(), startTimeout);
    if (ready.isEmpty()) {
      throw new IOException("the demo application did not say it was listening within "
          + startTimeout.toSeconds() + " s (" + (process.isAlive() ? "still running" : "exited "
          + process.exitValue()) + "); its last lines:\n" + tail(30));
    }
    Matcher m = LISTENING.matcher(ready.get().text());
    m.find();
    this.url = m.group(1);
  }

  /**
   * Starts the application under the agent, with {@code agentOptions} after the table file, and
   * returns once it listens. {@code appArgs} go to Spring Boot (e.g. {@code
   * --spring.profiles.active=reactive}).
   */
  public static AgentDemoProcess start(Jars jars, Path dir, String agentOptions, List<String> appArgs,
      Duration startTimeout) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path table = dir.resolve("pools-at-exit.tsv");
    Files.deleteIfExists(table);
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.add("-Xmx384m");
    // The lab reads the agent's table while the application runs (attach); allowed without the JDK's warning.
    cmd.add("-XX:+EnableDynamicAgentLoading");
    cmd.add("-javaagent:" + jars.agent() + "=table-file=" + table
        + (agentOptions.isEmpty() ? "" : "," + agentOptions));
    cmd.add("-jar");
    cmd.add(jars.app().toString());
    cmd.addAll(appArgs);
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
    try {
      return new AgentDemoProcess(jars, dir, p, table, startTimeout);
    } catch (IOException | InterruptedException | RuntimeException e) {
      stop(p);
      throw e;
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String url() {
    return url;
  }

  public long pid() {
    return process.pid();
  }

  /** The agent's pool table now, read from the running JVM through the attach API. */
  public List<Map<String, String>> snapshot() throws IOException, InterruptedException {
    Path err = dir.resolve("attach-err.txt");
    Process attach = new ProcessBuilder(java(), "-jar", jars.agent().toString(), "attach",
        String.valueOf(process.pid()), "--tsv").redirectError(err.toFile()).start();
    try {
      byte[] out = attach.getInputStream().readAllBytes(); // until it exits (it prints the table last)
      if (!attach.waitFor(60, TimeUnit.SECONDS) || attach.exitValue() != 0) {
        throw new IOException("lanes-agent attach " + process.pid() + " --tsv failed: "
            + Files.readString(err).strip());
      }
      return parseTsv(new String(out, StandardCharsets.UTF_8));
    } finally {
      stop(attach);
    }
  }

  /**
   * The first line (printed since the start) that matches, waiting for it until {@code timeout};
   * empty if none came.
   */
  public synchronized Optional<Line> awaitLine(Predicate<Line> match, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int from = 0;
    while (true) {
      for (int i = from; i < lines.size(); i++) {
        if (match.test(lines.get(i))) {
          return Optional.of(lines.get(i));
        }
      }
      from = lines.size();
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** The last {@code n} lines, for error messages. */
  public synchronized String tail(int n) {
    StringBuilder b = new StringBuilder();
    for (Line l : lines.subList(Math.max(0, lines.size() - n), lines.size())) {
      b.append("  ").append(l.text()).append('\n');
    }
    return b.toString();
  }

  /**
   * Stops the JVM (SIGTERM: Spring's shutdown and the agent's table at exit run) and returns the
   * table it wrote at exit; empty if it wrote none.
   */
  public List<Map<String, String>> stopAndReadTable() throws IOException, InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    joinReaders();
    return Files.exists(exitTable) ? parseTsv(Files.readString(exitTable)) : List.of();
  }

  @Override
  public void close() throws InterruptedException {
    stop(process);
    joinReaders();
  }

  private void joinReaders() throws InterruptedException {
    for (Thread t : readers) {
      t.join(TimeUnit.SECONDS.toMillis(10)); // its stream closes when the process is gone
    }
  }

  private Thread read(InputStream in, String name) {
    Thread t = Thread.ofPlatform().daemon().name("e14-app-" + name).start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          Instant at = Instant.now();
          synchronized (this) {
            if (lines.size() < MAX_LINES) {
              lines.add(new Line(at, line));
            }
            notifyAll();
          }
        }
      } catch (IOException e) {
        // the process is gone and took its pipe with it: nothing more to read
      }
    });
    return t;
  }

  private static void stop(Process p) throws InterruptedException {
    if (p.isAlive()) {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The agent's TSV table as rows of column → cell. */
  public static List<Map<String, String>> parseTsv(String tsv) {
    String[] rows = tsv.split("\n");
    List<Map<String, String>> out = new ArrayList<>();
    if (rows.length == 0 || !rows[0].startsWith("pool\t")) {
      return out;
    }
    String[] head = rows[0].split("\t", -1);
    for (int i = 1; i < rows.length; i++) {
      if (rows[i].isBlank()) {
        continue;
      }
      String[] cells = rows[i].split("\t", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int c = 0; c < head.length; c++) {
        row.put(head[c], c < cells.length ? cells[c] : "");
      }
      out.add(row);
    }
    return out;
  }
}
