package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each endpoint answers, on the lane its mode routes it to, and the figures say so. */
class EndpointsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final long CALL_MS = 50;

  @Test
  void lanesModeStagesCallOverTheCallLaneThenTheCpuLane() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 10));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> call = get(client, server, "/call?ms=" + CALL_MS + "&cpu=2");
      assertThat(call.statusCode()).isEqualTo(200);
      assertThat(call.body()).startsWith("called (" + CALL_MS + " ms), then spun 2 ms");
      assertThat(get(client, server, "/cpu?ms=3").statusCode()).isEqualTo(200);
      assertThat(get(client, server, "/fast").body()).isEqualTo("fast\n");
      HttpResponse<String> head = client.send(
          HttpRequest.newBuilder(URI.create(server.url() + "/fast")).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(head.statusCode()).isEqualTo(200);

      await().atMost(TIMEOUT).until(() -> tasks(server, "call.cpu") == 1 && tasks(server, "cpu") == 1);
      Map<String, Map<?, ?>> byLabel = endpoints(server);
      assertThat(byLabel.get("call.io").get("lane")).isEqualTo("call");
      assertThat(byLabel.get("call.cpu").get("lane")).isEqualTo("cpu");
      assertThat(tasks(server, "call.io")).isEqualTo(1);
      // The IO stage waited for the delay server's answer, so it ran at least that long.
      double ioRunMax = ((Number) ((Map<?, ?>) byLabel.get("call.io").get("run")).get("max")).doubleValue();
      assertThat(ioRunMax).isGreaterThanOrEqualTo(CALL_MS * 0.99);
      assertThat(server.lanes().lane("call").stats().completed()).isEqualTo(1);
    }
  }

  @Test
  void sharedModeRunsEveryApplicationEndpointOnTheSharedLane() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.SHARED, "127.0.0.1", 0, 2, 10));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (String path : List.of("/fast", "/slow?ms=1", "/cpu?ms=1", "/call?ms=1&cpu=0")) {
        assertThat(get(client, server, path).statusCode()).as(path).isEqualTo(200);
      }
      await().atMost(TIMEOUT).until(() -> server.lanes().lane("shared").stats().completed() == 4);
      assertThat(server.lanes().names()).containsExactly("shared", "admin", "http");
      assertThat(endpoints(server).values()).allSatisfy(e -> assertThat(e.get("lane")).isEqualTo("shared"));
    }
  }

  @Test
  void metricsEndpointServesPrometheusTextWithTheLanesMeters() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 10));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      assertThat(get(client, server, "/fast").statusCode()).isEqualTo(200);
      HttpResponse<String> m = get(client, server, "/metrics");
      assertThat(m.statusCode()).isEqualTo(200);
      assertThat(m.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      for (String name : List.of("lanes_task_wait_seconds_count", "lanes_task_run_seconds_sum", "lanes_tasks_total",
          "lanes_queue_size_tasks", "lanes_running_tasks", "lanes_workers_threads", "lanes_concurrency_tasks", "lanes_capacity_remaining_tasks",
          "lanes_saturated_lanes", "lanes_saturated_time_seconds_total")) {
        assertThat(m.body()).as(name).containsPattern("(?m)^" + name + "\\{[^}]*lane=\"fast\"[^}]*} ");
      }
    }
  }

  private static HttpResponse<String> get(HttpClient client, DemoServer server, String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Map<String, Map<?, ?>> endpoints(DemoServer server) {
    Map<String, Map<?, ?>> out = new java.util.LinkedHashMap<>();
    for (Object o : (List<?>) ((Map<?, ?>) Json.parse(server.statsJson())).get("endpoints")) {
      Map<?, ?> e = (Map<?, ?>) o;
      out.put((String) e.get("label"), e);
    }
    return out;
  }

  private static long tasks(DemoServer server, String label) {
    return ((Number) endpoints(server).get(label).get("tasks")).longValue();
  }
}
