package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Each set-up on its real server, called over real HTTP on loopback. */
class BootDemoTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();
  private static final JsonMapper json = JsonMapper.builder().build();

  @AfterAll
  static void closeClient() {
    http.close();
  }

  private static BootDemo options(String... args) {
    BootDemo o = new BootDemo();
    new CommandLine(o).parseArgs(args);
    o.validate();
    return o;
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(PATIENCE).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static int port(ConfigurableApplicationContext c) {
    return Integer.parseInt(c.getEnvironment().getProperty("local.server.port"));
  }

  @ParameterizedTest(name = "--server {0} --mode {1}")
  @CsvSource({
    // server, mode, thread that runs /slow, thread that runs /fast, thread that runs /cpu
    "tomcat, lanes, slow-, fast-, cpu-",
    "tomcat, shared, http-, http-, http-",
    "tomcat-virtual, lanes, slow-, fast-, cpu-",
    "netty, shared, shared-, shared-, shared-",
    "netty, lanes, slow-, fast-, cpu-",
  })
  void eachSetUpServesItsEndpointsWhereItSays(
      String server, String mode, String slowOn, String fastOn, String cpuOn) throws Exception {
    try (ConfigurableApplicationContext c =
        BootDemo.start(options("--server", server, "--mode", mode, "--port", "0"))) {
      int port = port(c);
      HttpResponse<String> fast = get(port, "/fast");
      assertThat(fast.statusCode()).isEqualTo(200);
      assertThat(fast.body()).startsWith("fast on " + fastOn);
      HttpResponse<String> slow = get(port, "/slow?ms=5");
      assertThat(slow.statusCode()).isEqualTo(200);
      assertThat(slow.body()).startsWith("slow 5 ms on " + slowOn);
      assertThat(get(port, "/cpu?ms=1").body()).startsWith("cpu 1 ms on " + cpuOn);
      HttpResponse<String> bad = get(port, "/slow?ms=99999");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("ms must be between 0 and 10000 ms, was 99999");

      JsonNode stats = json.readTree(get(port, "/stats.json").body());
      assertThat(stats.get("server").asString()).isEqualTo(server);
      assertThat(stats.get("mode").asString()).isEqualTo(mode);
      String slowLane = slowOn.substring(0, slowOn.length() - 1);
      // Per endpoint, as the JDK-HttpServer demo's /stats.json (what ./lanes load reads). A task's
      // figures arrive when its lane task ends, which may be just after the client had its answer
      // (in shared mode the requests of one connection may all be one Tomcat dispatch, still
      // running while it serves /stats.json).
      org.awaitility.Awaitility.await().atMost(PATIENCE).until(() -> {
        JsonNode now = json.readTree(get(port, "/stats.json").body());
        return lane(now, slowLane).get("wait").get("count").asLong() > 0
            && endpoint(now, "fast").get("tasks").asLong() == 1 && endpoint(now, "slow").get("tasks").asLong() == 1
            && endpoint(now, "cpu").get("tasks").asLong() == 1;
      });
      stats = json.readTree(get(port, "/stats.json").body());
      JsonNode slowStage = endpoint(stats, "slow");
      assertThat(slowStage.get("lane").asString()).isEqualTo(slowLane);
      assertThat(slowStage.get("tasks").asLong()).as("the /slow?ms=5 request").isEqualTo(1);
      assertThat(slowStage.get("run").get("p50").asDouble()).isGreaterThanOrEqualTo(5.0);
      HttpResponse<String> reset = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/stats/reset"))
              .POST(HttpRequest.BodyPublishers.noBody()).timeout(PATIENCE).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reset.statusCode()).isEqualTo(200);
      assertThat(endpoint(json.readTree(get(port, "/stats.json").body()), "slow").get("tasks").asLong()).isZero();

      // Actuator's own view of the same requests.
      HttpResponse<String> requests = get(port, "/actuator/metrics/http.server.requests?tag=uri:/fast");
      assertThat(requests.statusCode()).isEqualTo(200);
      assertThat(get(port, "/actuator/prometheus").body()).contains("lanes_task_wait_seconds");
    }
  }

  private static JsonNode lane(JsonNode stats, String name) {
    for (JsonNode l : stats.get("lanes")) {
      if (l.get("name").asString().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no lane " + name + " in " + stats);
  }

  private static JsonNode endpoint(JsonNode stats, String label) {
    for (JsonNode e : stats.get("endpoints")) {
      if (e.get("label").asString().equals(label)) {
        return e;
      }
    }
    throw new AssertionError("no endpoint " + label + " in " + stats);
  }

  /** A client that stalls mid-request costs Tomcat a connection, not a request thread. */
  @Test
  void stalledPartialRequestsDoNotStopFastFromAnswering() throws Exception {
    int stalled = 300;
    // Tomcat would close the stalled connections after its connection timeout (20 s by default)
    // and free whatever they held; make it longer than the test's patience, so a server that held
    // a request thread per stalled client would fail this test rather than recover in time.
    Map<String, Object> longTimeout = Map.of("server.tomcat.connection-timeout", "120s");
    try (ConfigurableApplicationContext c =
        BootDemo.start(options("--server", "tomcat", "--mode", "shared", "--port", "0"), longTimeout)) {
      int port = port(c);
      List<Socket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < stalled; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", port), (int) PATIENCE.toMillis());
          OutputStream out = s.getOutputStream();
          out.write("GET /fast HTTP/1.1\r\nHost: 127".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          sockets.add(s);
        }
        HttpResponse<String> fast = get(port, "/fast");
        assertThat(fast.statusCode()).isEqualTo(200);
        assertThat(get(port, "/stats.json").statusCode()).isEqualTo(200);
        // The stalled clients hold no request thread of the 200 and queue nothing.
        var httpLane = c.getBean(dev.lanes.Lanes.class).lane("http").stats();
        assertThat(httpLane.running()).isLessThan(200);
        assertThat(httpLane.queued()).isZero();
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }

  @Test
  void badOptionsAreRefusedWithTheOptionAndValue() {
    assertThat(run("--server", "jetty")).contains("'jetty' is not a server; use tomcat, tomcat-virtual or netty")
        .startsWith("lanes serve: ").endsWith("; try ./lanes serve --server tomcat --help" + System.lineSeparator());
    assertThat(run("--mode", "solo")).contains("--mode").contains("solo");
    assertThat(run("--port", "70000")).contains("--port must be between 0 and 65535, was 70000");
    assertThat(run("--threads", "0")).contains("--threads must be between 1 and 1000, was 0");
  }

  @Test
  void aPortInUseIsSaidInOneLineWithAHint() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String port = String.valueOf(taken.getLocalPort());
      assertThat(run("--server", "tomcat", "--port", port)).isEqualTo("lanes serve: port " + port
          + " on 127.0.0.1 is already in use; try another --port, or --port 0 for any free one" + System.lineSeparator());
    }
  }

  private static String run(String... args) {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cli = BootDemo.commandLine();
    cli.setErr(new java.io.PrintWriter(err));
    int rc = cli.execute(args);
    assertThat(rc).isEqualTo(BootDemo.BAD_INPUT);
    assertThat(err.toString().lines()).as("one line").hasSize(1);
    return err.toString();
  }
}
