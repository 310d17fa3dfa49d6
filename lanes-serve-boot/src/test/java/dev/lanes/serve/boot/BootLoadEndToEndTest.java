package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.serve.ServeMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;

/**
 * {@code ./lanes load --scenario noisy-neighbour} against the Spring Boot demo on real Tomcat, on
 * loopback, through the load command's own command line: it prints, per endpoint, the callers'
 * latency beside Actuator's {@code http.server.requests} and lanes' queue wait and run time, and
 * the figures tell the demo's story. Assertions compare figures with each other (and with the
 * scenario's own sleeps), never with a wall-clock threshold on this machine's speed.
 */
class BootLoadEndToEndTest {

  /** Tomcat's request threads in shared mode (lane http), or lane slow's in lanes mode: 8 slow requests take 4 rounds. */
  private static final int THREADS = 2;
  private static final int SLOW_COUNT = 8;
  private static final int SLOW_MS = 1_000;
  private static final int FAST_COUNT = 20;

  private record Run(String out, Map<String, String[]> rows) {
    /** Cells of the endpoint's first row: endpoint counts | client | actuator | stage | wait | run. */
    String[] row(String path) {
      return rows.get(path);
    }

    static double p50(String triple) {
      return Double.parseDouble(triple.split("/")[0].strip());
    }
  }

  private static Run load(int port) {
    CommandLine cl = ServeMain.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute("load", "--port", String.valueOf(port), "--scenario", "noisy-neighbour",
        "--slow-count", String.valueOf(SLOW_COUNT), "--slow-ms", String.valueOf(SLOW_MS),
        "--fast-count", String.valueOf(FAST_COUNT), "--max-in-flight", "100", "--max-seconds", "60");
    System.out.println(out);
    assertThat(err.toString()).isEmpty();
    assertThat(exit).isZero();
    Map<String, String[]> rows = new java.util.HashMap<>();
    for (String line : out.toString().lines().toList()) {
      if (line.startsWith("/fast ") || line.startsWith("/slow ")) {
        rows.put(line.substring(0, 5), Arrays.stream(line.split("\\|")).map(String::strip).toArray(String[]::new));
      }
    }
    return new Run(out.toString(), rows);
  }

  private static ConfigurableApplicationContext start(String mode, Map<String, Object> extra) {
    return start("tomcat", mode, extra);
  }

  private static ConfigurableApplicationContext start(String server, String mode, Map<String, Object> extra) {
    BootDemo o = new BootDemo();
    new CommandLine(o).parseArgs("--server", server, "--mode", mode, "--port", "0", "--threads", String.valueOf(THREADS));
    o.validate();
    return BootDemo.start(o, extra);
  }

  private static int port(ConfigurableApplicationContext c) {
    return Integer.parseInt(c.getEnvironment().getProperty("local.server.port"));
  }

  @Test
  void sharedTomcatPoolActuatorSaysFastWhileCallersWaitedInTheQueue() {
    // Tomcat's request pool (lane http) cut from 200 threads to THREADS, so 8 slow requests fill it.
    try (ConfigurableApplicationContext c = start("shared", Map.of("lanes.instances.http.concurrency", THREADS))) {
      Run r = load(port(c));
      assertThat(r.out()).contains("(server mode: tomcat / shared)");
      assertThat(r.out()).contains("client ms  p50 / p99 / max").contains("actuator ms  mean / max")
          .contains("queue wait p50/p99/max").contains("run time p50/p99/max");
      assertThat(r.out()).doesNotContain("note:");
      String[] fast = r.row("/fast");
      String[] slow = r.row("/slow");
      assertThat(fast[0]).as("sent and ok").matches("/fast\\s+" + FAST_COUNT + "\\s+" + FAST_COUNT + "\\s+0\\s+0\\s+0");
      assertThat(fast[3]).as("stage, lane, tasks").matches("fast\\s+http\\s+" + FAST_COUNT);
      assertThat(slow[3]).matches("slow\\s+http\\s+" + SLOW_COUNT);

      double client = Run.p50(fast[1]);
      double actuatorMean = Run.p50(fast[2]);
      double wait = Run.p50(fast[4]);
      double slowRun = Run.p50(slow[5]);
      // Fast requests waited in Tomcat's queue for the slow ones: at least one slow request's run.
      assertThat(wait).isGreaterThanOrEqualTo(slowRun);
      // The queue wait explains the callers' latency; Actuator's timer, which starts once a request
      // thread took the request, does not see it.
      assertThat(wait).isGreaterThanOrEqualTo(0.5 * client);
      assertThat(actuatorMean).isLessThanOrEqualTo(0.1 * client);
      assertThat(r.out()).contains("/fast: client p50").contains("Actuator's http.server.requests mean")
          .contains("queue wait explains");
    }
  }

  @ParameterizedTest(name = "--server {0} --mode lanes")
  @ValueSource(strings = {"tomcat", "netty"})
  void lanesKeepFastRequestsFastWhileTheSlowLaneQueues(String server) {
    try (ConfigurableApplicationContext c = start(server, "lanes", Map.of())) {
      Run r = load(port(c));
      assertThat(r.out()).contains("(server mode: " + server + " / lanes)").contains("actuator ms  mean / max");
      String[] fast = r.row("/fast");
      String[] slow = r.row("/slow");
      assertThat(fast[3]).matches("fast\\s+fast\\s+" + FAST_COUNT);
      assertThat(slow[3]).matches("slow\\s+slow\\s+" + SLOW_COUNT);
      assertThat(fast[2]).as("Actuator's figures for /fast").isNotEqualTo("-");
      double slowRun = Run.p50(slow[5]);
      // The slow lane still queues (8 requests, 2 threads) ...
      assertThat(Run.p50(slow[4])).isGreaterThanOrEqualTo(0.5 * slowRun);
      // ... but fast requests do not wait for slow ones: less than half of one slow request's run.
      assertThat(Run.p50(fast[4])).isLessThanOrEqualTo(slowRun / 2);
      assertThat(List.of(r.out().split("\\R"))).noneMatch(l -> l.startsWith("note:"));
    }
  }
}
