package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.agent.apps.ServiceApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code ./lanes attach <pid>}: the agent loaded into a JVM that started without it. */
class AttachAgentTest {



  @Test
  void attachedToARunningServiceItMeasuresThePoolsThatAlreadyRun() throws Exception {
    Path err = Files.createTempFile("service", ".err");
    Process app = new ProcessBuilder(AgentJvm.java(), "-XX:+EnableDynamicAgentLoading", "-cp",
        AgentJvm.CLASSES, ServiceApp.class.getName()).redirectError(err.toFile()).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("ready");
      AtomicReference<Map<String, String>> row = new AtomicReference<>();
      // The workers were started before the agent: their tasks are timed through the pool's hooks.
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
        List<Map<String, String>> pools = AgentJvm.parse(AgentJvm.attach(app.pid(), "--tsv"));
        pools.stream().filter(p -> p.get("pool").equals("svc-worker")).findFirst().ifPresent(row::set);
        return row.get() != null && Long.parseLong(row.get().get("tasks")) >= 100;
      });
      assertThat(row.get().get("kind")).isEqualTo("THREAD_POOL");
      assertThat(Double.parseDouble(row.get().get("run_p50_ms"))).isGreaterThan(1.0);
      // Loading it again changes nothing; the text table names the pools, and only the app's own
      // (answering an attach once made the JDK's process-reaper pool appear).
      assertThat(AgentJvm.attach(app.pid(), "--table")).contains("svc-worker", "svc-feeder");
      assertThat(AgentJvm.parse(AgentJvm.attach(app.pid(), "--tsv")).stream().map(p -> p.get("pool")))
          .containsExactlyInAnyOrder("svc-worker", "svc-feeder");
    } finally {
      app.getOutputStream().close();
      if (!app.waitFor(30, TimeUnit.SECONDS)) {
        app.destroyForcibly().waitFor();
      }
    }
    assertThat(app.exitValue()).isZero();
    String stderr = Files.readString(err);
    assertThat(stderr).doesNotContain("lanes-agent: could not", "Exception");
    assertThat(stderr).doesNotContain("loaded dynamically"); // -XX:+EnableDynamicAgentLoading
  }

  @Test
  void helpAndBadArgumentsAreClear() throws Exception {
    Process p = new ProcessBuilder(AgentJvm.java(), "-jar", AgentJvm.JAR.toAbsolutePath().toString(),
        "attach", "--tabel").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).isEqualTo("lanes attach: unexpected argument \"--tabel\" (a pid is a number);"
        + " try ./lanes attach --help\n");
    assertThat(AgentJvm.attach(ProcessHandle.current().pid(), "--help")).startsWith("usage: ./lanes attach <pid>");
  }
}
