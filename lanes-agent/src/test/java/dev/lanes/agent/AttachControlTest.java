package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.agent.apps.ServiceApp;
import dev.lanes.agent.apps.TomcatHoldApp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./lanes attach} once the agent runs: later commands go through its control channel (no
 * second load, no second JDK warning), {@code --set} changes a pool's size, and each way an attach
 * can fail is one line.
 */
class AttachControlTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  record Run(int exit, String out, String err) {}


  private static Run attach(List<String> prefix, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of(AgentJvm.java(), "-jar", AgentJvm.JAR.toAbsolutePath().toString(), "attach"));
    cmd.addAll(List.of(args));
    Path dir = Files.createTempDirectory("lanes-attach");
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("lanes attach did not end in 60 s: " + cmd);
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static Run attach(String... args) throws Exception {
    return attach(List.of(), args);
  }

  private static String ok(String... args) throws Exception {
    Run r = attach(args);
    assertThat(r.exit()).as(r.err()).isZero();
    return r.out();
  }

  private static long count(Path file, String text) throws IOException {
    return Files.readString(file).lines().filter(l -> l.contains(text)).count();
  }

  /**
   * The JDK's warning lines in the app's stderr. The agent's own warnings (a pool SATURATED, on a
   * busy machine) are logged at WARNING too, as {@code WARNING: lanes-agent: …}: not counted.
   */
  private static long jdkWarnings(Path file) throws IOException {
    return Files.readString(file).lines()
        .filter(l -> l.startsWith("WARNING:") && !l.startsWith("WARNING: lanes-agent:")).count();
  }

  /** Ends an app that runs until its stdin closes; asserts it ended by itself. */
  private static void end(Process app) throws InterruptedException {
    try {
      app.getOutputStream().close();
    } catch (IOException e) {
      // it is gone already
    }
    if (!app.waitFor(30, TimeUnit.SECONDS)) {
      app.destroyForcibly().waitFor();
      throw new AssertionError("the app did not end when its stdin closed");
    }
  }

  @Test
  void theAgentIsLoadedOnceAndLaterQueriesAddNoJdkWarning() throws Exception {
    Path err = Files.createTempFile("service", ".err");
    Process app = new ProcessBuilder(AgentJvm.java(), "-cp", AgentJvm.CLASSES, ServiceApp.class.getName())
        .redirectError(err.toFile()).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("ready");
      String pid = String.valueOf(app.pid());
      assertThat(attach(pid).exit()).isZero();
      // The JDK's warning for one dynamic load (JEP 451): its lines, once.
      long warnings = jdkWarnings(err);
      assertThat(count(err, "loaded dynamically")).isEqualTo(1);
      assertThat(warnings).isBetween(1L, 4L);
      await().atMost(PATIENCE).until(() -> ok(pid, "--table").contains("svc-worker"));
      assertThat(ok(pid, "--tsv")).contains("svc-worker\tTHREAD_POOL");
      assertThat(ok(pid, "--table")).contains("svc-feeder");
      assertThat(jdkWarnings(err)).isEqualTo(warnings);
      assertThat(count(err, "loaded dynamically")).isEqualTo(1);

      // --set through the same channel; a refusal is one line and a non-zero exit.
      assertThat(ok(pid, "--set", "svc-worker", "core=3", "max=3")).isEqualTo(
          "lanes-agent: pool \"svc-worker\" core 2 → 3 max 2 → 3 (by lanes attach)\n");
      Run refused = attach(pid, "--set", "svc-worker", "queue-capacity=5");
      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.err()).isEqualTo("lanes attach: pool \"svc-worker\": its queue, a"
          + " java.util.concurrent.LinkedBlockingQueue, fixes its capacity when it is made; core"
          + " and max can change\n");
      await().atMost(PATIENCE).until(() -> ok(pid, "--table").lines()
          .anyMatch(l -> l.startsWith("svc-worker ") && l.contains(" 3/3 ")));
      assertThat(ok(pid, "--table")).contains(
          "changed: pool \"svc-worker\" core 2 → 3 max 2 → 3 (by lanes attach)");
      assertThat(count(err, "lanes-agent: pool \"svc-worker\" core 2 → 3 max 2 → 3 (by lanes attach)"))
          .isEqualTo(1);
      Run again = attach(pid, "--options", "verbose");
      assertThat(again.err()).contains("lanes attach: the agent runs already in " + pid
          + "; --options \"verbose\" ignored (they apply when it starts)");
      assertThat(jdkWarnings(err)).isEqualTo(warnings);
    } finally {
      end(app);
    }
    assertThat(app.exitValue()).isZero();
    assertThat(Files.readString(err)).doesNotContain("Exception", "lanes-agent: could not");
  }

  @Test
  void setRaisesTomcatsPoolWhileRequestsQueueAndTheQueueDrains() throws Exception {
    Path err = Files.createTempFile("tomcat", ".err");
    Process app = new ProcessBuilder(AgentJvm.java(), "-javaagent:" + AgentJvm.JAR.toAbsolutePath(), "-cp",
        AgentJvm.classPathWith("tomcat-"), TomcatHoldApp.class.getName())
        .redirectError(err.toFile()).start();
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
      String port = out.readLine().replace("port ", "");
      String pid = String.valueOf(app.pid());
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        calls.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hold"))
            .build(), HttpResponse.BodyHandlers.ofString()));
      }
      // Tomcat's 2 threads hold 2 requests; 4 wait in its queue.
      String pool = await().atMost(PATIENCE).until(() -> requestPool(pid)
          .filter(row -> row.get("threads").equals("2") && row.get("queued").equals("4"))
          .map(row -> row.get("pool")), Optional::isPresent).orElseThrow();
      assertThat(ok(pid, "--table").lines().filter(l -> l.startsWith(pool + " ")))
          .singleElement().asString().contains(" 2/2 ");

      assertThat(ok(pid, "--set", pool, "core=6", "max=6")).isEqualTo(
          "lanes-agent: pool \"" + pool + "\" core 2 → 6 max 2 → 6 (by lanes attach)\n");
      // Raising core started threads for the queued requests: all 6 run, none waits.
      await().atMost(PATIENCE).until(() -> requestPool(pid)
          .filter(row -> row.get("threads").equals("6") && row.get("queued").equals("0")).isPresent());
      String table = ok(pid, "--table");
      assertThat(table.lines().filter(l -> l.startsWith(pool + " "))).singleElement().asString()
          .contains(" 6/6 ");
      assertThat(table).contains("changed: pool \"" + pool + "\" core 2 → 6 max 2 → 6 (by lanes attach)");

      try (Writer in = new java.io.OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
        in.write("open\n");
        in.flush();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
          HttpResponse<String> r = call.get(60, TimeUnit.SECONDS);
          assertThat(r.statusCode()).isEqualTo(200);
          assertThat(r.body()).isEqualTo("held");
        }
      }
    } finally {
      end(app);
    }
    String log = Files.readString(err);
    assertThat(log.lines().filter(l -> l.startsWith("lanes-agent: pool ")))
        .singleElement().asString().endsWith("core 2 → 6 max 2 → 6 (by lanes attach)");
    assertThat(log).doesNotContain("Exception", "lanes-agent: could not");
  }

  private static Optional<Map<String, String>> requestPool(String pid) throws Exception {
    return AgentJvm.parse(ok(pid, "--tsv")).stream()
        .filter(row -> row.get("pool").startsWith("http-nio-") && row.get("pool").endsWith("-exec"))
        .findFirst();
  }

  @Test
  void eachAttachFailureIsOneLine() throws Exception {
    // A bad setting: refused before any attach (exit 2, as for a bad argument).
    Run bad = attach("1", "--set", "pool", "core=abc");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).isEqualTo("lanes attach: core must be a whole number between 0 and"
        + " 100000, was \"abc\"\n");
    bad = attach("1", "--set", "pool");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).isEqualTo("lanes attach: --set <pool> needs core=N, max=N or"
        + " queue-capacity=N\n");

    // No such process: one that ran and ended.
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Run r = attach(String.valueOf(gone.pid()));
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("lanes attach: no process " + gone.pid() + " (./lanes attach"
        + " --list shows the JVMs this user can attach to)\n");

    // Not a JVM: refused before the attach API signals it (SIGQUIT would end it).
    Process sleep = new ProcessBuilder("sleep", "120").start();
    try {
      r = attach(String.valueOf(sleep.pid()));
      assertThat(r.exit()).isEqualTo(1);
      assertThat(r.err()).isEqualTo("lanes attach: process " + sleep.pid() + " (sleep) is not a"
          + " JVM this user can attach to (./lanes attach --list shows those)\n");
      assertThat(sleep.isAlive()).isTrue();
    } finally {
      sleep.destroy();
      sleep.waitFor();
    }

    // Too old: a Java 17 JVM (a single-file program that waits on stdin).
    Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
    if (Files.isExecutable(java17)) {
      Path source = Files.createTempDirectory("java17").resolve("Wait.java");
      Files.writeString(source, "class Wait { public static void main(String[] a) throws Exception {"
          + " System.out.println(\"ready\"); System.out.flush(); while (System.in.read() >= 0) { } } }");
      Process old = new ProcessBuilder(java17.toString(), source.toString()).start();
      try {
        assertThat(new BufferedReader(new InputStreamReader(old.getInputStream(), StandardCharsets.UTF_8))
            .readLine()).isEqualTo("ready");
        r = attach(String.valueOf(old.pid()), "--table");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("lanes attach: the agent needs Java 21 or newer; " + old.pid()
            + " runs Java 17\n");
      } finally {
        end(old);
      }
    }
  }

  @Test
  void anotherUsersProcessIsNotPermitted() throws Exception {
    assumeThat(System.getProperty("user.name")).isEqualTo("root"); // to run lanes attach as nobody
    assumeThat(Path.of("/usr/bin/setpriv")).isExecutable();
    Run r = attach(List.of("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"),
        "1");
    assumeThat(r.err()).as("nobody can run the JDK and read the agent jar").startsWith("lanes attach:");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("lanes attach: not permitted: process 1 runs as root, lanes attach"
        + " as nobody; the JDK lets only the same user attach\n");
  }
}
