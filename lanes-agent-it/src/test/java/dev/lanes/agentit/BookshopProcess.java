package dev.lanes.agentit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The bookshop's fat jar in a JVM of its own (the JDK running the tests), on a free port, its
 * stdout and stderr both written to one log file. {@link #start} returns once the application
 * printed that it listens; {@link #close} stops it (SIGTERM, so Spring Boot and the agent shut
 * down as they would in production, then a kill if it lingers).
 *
 * <p>Concurrency: no threads of its own; the operating system writes the log file, which this
 * class only reads.
 */
final class BookshopProcess implements AutoCloseable {
  static final Path AGENT_JAR = Path.of(System.getProperty("lanes.agent.jar", "../lanes-agent/target/lanes-agent.jar"))
      .toAbsolutePath().normalize();
  static final Path APP_JAR = Path.of(System.getProperty("lanes.agentit.app.jar", "target/lanes-agent-it.jar"))
      .toAbsolutePath().normalize();
  private static final Pattern LISTENING = Pattern.compile("lanes-agent-it: listening on (http://\\S+)");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(150);

  private final Process process;
  private final Path log;
  private String url;

  private BookshopProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Starts the fat jar with {@code jvmArgs} before {@code -jar} and waits until it listens; if it
   * does not, stops it and fails with its log.
   */
  static BookshopProcess start(Path dir, List<String> jvmArgs) throws IOException {
    Path log = dir.resolve("app.log");
    List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx384m", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(jvmArgs);
    cmd.addAll(List.of("-jar", APP_JAR.toString()));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    BookshopProcess app = new BookshopProcess(p, log);
    try {
      await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200))
          .until(() -> app.listeningUrl() != null || !p.isAlive());
      app.url = app.listeningUrl();
      if (app.url == null) {
        throw new AssertionError("the bookshop did not start (" + app.state() + "): " + cmd
            + "\n--- its log ---\n" + app.log());
      }
      return app;
    } catch (ConditionTimeoutException | AssertionError e) {
      app.close();
      if (e instanceof AssertionError a) {
        throw a;
      }
      throw new AssertionError("the bookshop did not say it listens within " + START_TIMEOUT.toSeconds()
          + " s: " + cmd + "\n--- its log ---\n" + app.log(), e);
    }
  }

  private String listeningUrl() {
    Matcher m = LISTENING.matcher(log());
    return m.find() ? m.group(1) : null;
  }

  private String state() {
    return process.isAlive() ? "still running" : "exited with " + process.exitValue();
  }

  String url() {
    return url;
  }

  long pid() {
    return process.pid();
  }

  /** Everything the application printed so far. */
  String log() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
