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
import java.util.List;
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
      // In the agent's words (pools and tasks, not lanes serve's endpoints and requests), the worst
      // pool first: svc-worker, fed 2 ms tasks every millisecond on 2 threads, before the idle feeder
      // (which its name would put first).
      assertThat(dom).contains("<title>lanes agent</title>", "lanes agent: the pools of this JVM",
          ">Pools</h2>", "tasks waiting now").doesNotContain(">Endpoints</h2>", "requests waiting now");
      for (String attribute : List.of("data-lane", "data-label", "data-endpoint")) {
        assertThat(dom.indexOf(attribute + "=\"svc-worker\""))
            .as("%s: svc-worker before svc-feeder", attribute).isPositive()
            .isLessThan(dom.indexOf(attribute + "=\"svc-feeder\""));
      }
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

  /**
   * Each summary's quantiles, count and sum are over one population: an event loop's tasks
   * exclude its IO turns (which have a summary of their own), a Tomcat pool's requests are counted
   * apart from its tasks; the HELP says which, and the window (since the agent started).
   */
  @Test
  void eachSummaryIsOverOnePopulationAndSaysItsWindow() {
    PoolRecord loop = new PoolRecord(PoolKind.EVENT_LOOP, null, "loop-1", null, System.nanoTime());
    for (int i = 0; i < 10; i++) {
      loop.sample(1_000, 1_000_000, false); // tasks: waited 1 µs, ran 1 ms
    }
    loop.sample(RunSlot.NOT_QUEUED, 500_000_000, false); // one IO turn of 500 ms
    loop.sample(RunSlot.NOT_QUEUED, 500_000_000, false);
    PoolRecord tomcat = new PoolRecord(PoolKind.TOMCAT, null, "http-exec", null, System.nanoTime());
    tomcat.sample(6_000_000, 2_000_000, false); // one task: waited 6 ms, served three requests
    tomcat.request(6_000_000, true);
    tomcat.request(0, false);
    tomcat.request(0, false);
    String text = MetricsEndpoint.prometheus(List.of(
        new PoolTable.Row(loop.snapshot(System.nanoTime()), 1, 1, 0, 0, 0),
        new PoolTable.Row(tomcat.snapshot(System.nanoTime()), 1, 4, 0, 0, 0)));

    String l = "{pool=\"loop-1\",kind=\"event_loop\"}";
    assertThat(text).contains("lanes_task_run_seconds_count" + l + " 10\n",
        "lanes_task_run_seconds_sum" + l + " 0.01\n", "lanes_io_turn_seconds_count" + l + " 2\n",
        "lanes_io_turn_seconds_sum" + l + " 1.0\n");
    double taskRunP99 = value(text, "lanes_task_run_seconds{pool=\"loop-1\",kind=\"event_loop\",quantile=\"0.99\"}");
    assertThat(taskRunP99).isBetween(0.00099, 0.00102);
    assertThat(value(text, "lanes_task_run_seconds_max" + l)).isLessThan(0.0011);
    assertThat(value(text, "lanes_io_turn_seconds_max" + l)).isGreaterThanOrEqualTo(0.49);

    String t = "{pool=\"http-exec\",kind=\"tomcat\"}";
    assertThat(text).contains("lanes_tasks_total{pool=\"http-exec\",kind=\"tomcat\",outcome=\"completed\","
        + "rejected=\"false\"} 1\n", "lanes_requests_total" + t + " 3\n",
        "lanes_request_wait_seconds_count" + t + " 3\n", "lanes_request_wait_seconds_sum" + t + " 0.006\n",
        "lanes_task_wait_seconds_sum" + t + " 0.006\n");
    // Pools without requests or IO turns have no such series.
    assertThat(text).doesNotContain("lanes_requests_total" + l, "lanes_io_turn_seconds_count" + t);
    assertThat(text).contains(
        "# HELP lanes_task_wait_seconds Time tasks waited in the pool's queue, from handed to the pool"
            + " to started, per task; quantiles, count and sum over the same tasks (since the agent started)",
        "# HELP lanes_request_wait_seconds Time requests waited for a thread of the pool (Tomcat), per"
            + " request:",
        "# HELP lanes_io_turn_seconds ", "# HELP lanes_requests_total ",
        "# HELP lanes_task_run_seconds_max The largest (since the agent started)",
        "# HELP lanes_queue_size Tasks waiting in the pool's queue: due, not started (now)");
    for (String help : text.lines().filter(x -> x.startsWith("# HELP")).toList()) {
      assertThat(help).as("every figure says its window").containsAnyOf("(since the agent started)", "(now)");
    }

    // The live page's figures: requests and IO turns beside the tasks, each its own count.
    String stats = LiveSeries.statsJson(List.of(
        new PoolTable.Row(loop.snapshot(System.nanoTime()), 1, 1, 0, 0, 0),
        new PoolTable.Row(tomcat.snapshot(System.nanoTime()), 1, 4, 0, 0, 0)));
    assertThat(stats).contains("\"label\":\"loop-1\",\"lane\":\"loop-1\",\"tasks\":10,",
        "\"ioTurns\":{\"count\":2,", "\"label\":\"http-exec\",\"lane\":\"http-exec\",\"tasks\":1,",
        "\"requests\":{\"count\":3,\"tasks\":1,\"wait\":{\"count\":3,");
  }

  private static double value(String text, String series) {
    return text.lines().filter(x -> x.startsWith(series + " ")).findFirst()
        .map(x -> Double.parseDouble(x.substring(series.length() + 1)))
        .orElseThrow(() -> new AssertionError("no " + series + " in\n" + text));
  }
}
