package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.agent.apps.ServiceApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code port=0}: the pools in Prometheus' text format on loopback, under the binder's names, and
 * lanes-serve's live page over them.
 */
class MetricsEndpointTest {

  @Test
  void aRunningServiceShowsItsPoolsUnderTheBindersMetricNames(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    Path err = Files.createTempFile("service", ".err");
    Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-javaagent:" + AgentJvm.JAR.toAbsolutePath() + "=port=0", "-cp", AgentJvm.CLASSES,
        ServiceApp.class.getName()).redirectError(err.toFile()).start();
    HttpClient http = HttpClient.newHttpClient();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("ready");
      AtomicReference<String> url = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        Matcher m = Pattern.compile("Prometheus metrics on (http://127\\.0\\.0\\.1:\\d+/metrics)")
            .matcher(Files.readString(err));
        if (m.find()) {
          url.set(m.group(1));
        }
        return url.get() != null;
      });
      AtomicReference<String> body = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url.get())).build(),
            HttpResponse.BodyHandlers.ofString());
        body.set(r.body());
        Matcher m = Pattern.compile("lanes_task_run_seconds_count\\{pool=\"svc-worker\",kind=\"thread_pool\"\\} (\\d+)")
            .matcher(r.body());
        return r.statusCode() == 200 && m.find() && Long.parseLong(m.group(1)) >= 50;
      });
      assertThat(body.get()).contains(
          "# TYPE lanes_task_wait_seconds summary",
          "lanes_task_wait_seconds{pool=\"svc-worker\",kind=\"thread_pool\",quantile=\"0.99\"} ",
          "lanes_task_wait_seconds_max{pool=\"svc-worker\",kind=\"thread_pool\"} ",
          "lanes_tasks_total{pool=\"svc-worker\",kind=\"thread_pool\",outcome=\"completed\",rejected=\"false\"} ",
          "lanes_queue_size{pool=\"svc-worker\",kind=\"thread_pool\"} ",
          "lanes_workers{pool=\"svc-worker\",kind=\"thread_pool\"} 2\n",
          "lanes_saturated_time_seconds_total{pool=\"svc-feeder\",kind=\"scheduled\"} ",
          "lanes_scheduled_tasks{pool=\"svc-feeder\",kind=\"scheduled\"} ");
      // The live page lanes-serve draws, over the agent's pools (each pool a lane and a stage).
      String base = url.get().replace("/metrics", "");
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("<script src=\"/uplot.js\"></script>", "/series.json", "/stats.json");
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/uplot.js")).build(),
          HttpResponse.BodyHandlers.ofString()).body()).contains("uPlot");
      String stats = http.send(HttpRequest.newBuilder(URI.create(base + "/stats.json")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(stats).contains("\"mode\":\"agent\"", "\"name\":\"svc-worker\"",
          "\"label\":\"svc-worker\"", "\"wait\":{\"count\":");
      AtomicReference<String> series = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
        series.set(http.send(HttpRequest.newBuilder(URI.create(base + "/series.json")).build(),
            HttpResponse.BodyHandlers.ofString()).body());
        return series.get().contains("\"svc-worker\":{\"lane\":\"svc-worker\"");
      });
      assertThat(series.get()).contains("\"windowSeconds\":120", "\"svc-worker\":{\"queued\":",
          "\"waitP99\":", "\"runP50\":");
      // Drawn by a real browser: the page reads the figures and lists the pools.
      String dom = dev.lanes.testkit.HeadlessChromium.find().dumpDom(base + "/", tmp, 5_000).output();
      assertThat(dom).contains("data-state=\"ok\"", "<tr data-lane=\"svc-worker\">",
          "<tr data-label=\"svc-feeder\">", "scheduled for later");
      HttpResponse<String> other = http.send(HttpRequest.newBuilder(
          URI.create(url.get().replace("/metrics", "/other"))).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(other.statusCode()).isEqualTo(404);
    } finally {
      http.close();
      app.getOutputStream().close();
      if (!app.waitFor(30, TimeUnit.SECONDS)) {
        app.destroyForcibly().waitFor();
      }
    }
    assertThat(app.exitValue()).isZero();
  }
}
