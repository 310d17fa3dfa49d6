package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ./lanes load} and {@code ./lanes serve} through the command line: refusals and a tiny run. */
class LoadCommandTest {

  private record Run(int exit, String out, String err, CommandLine cl) {}

  private static Run run(String... args) {
    CommandLine cl = ServeMain.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString(), cl);
  }

  @Test
  void refusesARemoteHostWithoutAllowRemote() {
    Run r = run("load", "--url", "http://example.com:8080");
    assertThat(r.exit()).isEqualTo(ServeMain.BAD_INPUT);
    assertThat(r.err()).contains("refusing host example.com").contains("--allow-remote");
  }

  @Test
  void refusesBadScenarioAndOutOfRangeFlags() {
    assertThat(run("load", "--scenario", "stampede").err()).contains("unknown scenario \"stampede\"");
    assertThat(run("load", "--slow-count", "0").err()).contains("count must be between 1 and 10000");
    assertThat(run("load", "--fast-rate", "0").err()).contains("rate must be between");
    assertThat(run("load", "--slow-ms", "20000").err()).contains("slow-ms must be between 0 and 10000");
    assertThat(run("load", "--max-seconds", "0").err()).contains("max-seconds");
    assertThat(run("load", "--url", "ftp://127.0.0.1/").err()).contains("url must look like");
    assertThat(run("load", "--slow-count", "many").exit()).isEqualTo(ServeMain.BAD_INPUT);
    assertThat(run("serve", "--mode", "both").err()).contains("--mode must be shared or lanes");
    assertThat(run("serve", "--threads", "0").err()).contains("threads must be between 1 and 1000");
    assertThat(run("serve", "--port", "70000").err()).contains("port must be between 0 and 65535");
    assertThat(run("serve", "--mode", "shared", "--redis", "redis://127.0.0.1:6379").err())
        .contains("--redis shares the cap of the \"call\" lane, which only --mode lanes has");
    assertThat(run("serve", "--redis", "redis://127.0.0.1:6379", "--shared-cap", "0").err())
        .contains("shared cap must be between 1 and 100 (the call lane's cap), was 0");
    assertThat(run("serve", "--server", "jetty").err())
        .contains("--server must be jdk, tomcat, tomcat-virtual or netty, was \"jetty\"");
  }

  /** The Spring Boot demo is another jar; this one says how to start it instead of ignoring --server. */
  @Test
  void springBootServersAreLeftToTheLauncher() {
    Run r = run("serve", "--server", "tomcat", "--port", "0");
    assertThat(r.exit()).isEqualTo(ServeMain.BAD_INPUT);
    assertThat(r.err()).isEqualTo("lanes serve: --server tomcat is the Spring Boot demo, which this jar does not"
        + " contain; start it with ./lanes serve --server tomcat" + System.lineSeparator());
  }

  @Test
  void loopbackNamesAreRecognisedWithoutALookUp() {
    assertThat(LoadGenerator.isLoopback("localhost")).isTrue();
    assertThat(LoadGenerator.isLoopback("127.0.0.1")).isTrue();
    assertThat(LoadGenerator.isLoopback("127.1.2.3")).isTrue();
    assertThat(LoadGenerator.isLoopback("[::1]")).isTrue();
    assertThat(LoadGenerator.isLoopback("127.0.0.256")).isFalse();
    assertThat(LoadGenerator.isLoopback("10.0.0.1")).isFalse();
    assertThat(LoadGenerator.isLoopback("localhost.example.com")).isFalse();
  }

  @Test
  void aRunLongerThanMaxSecondsIsCutShortAndSaysSo() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.SHARED, "127.0.0.1", 0, 1, 100))) {
      Run r = run("load", "--url", server.url(), "--slow-count", "3", "--slow-ms", "10000", "--pause-ms", "0",
          "--fast-count", "1", "--max-seconds", "1");
      assertThat(r.exit()).as(r.err()).isZero();
      LoadResult result = ((ServeMain.Load) r.cl().getSubcommands().get("load").getCommand()).result;
      assertThat(result.notes()).anyMatch(n -> n.contains("stopped at the 1 s limit"));
      // Cut short: far less than even one of the slow requests would have taken.
      assertThat(result.seconds()).isLessThan(10.0);
      assertThat(result.endpoint("/slow").ok()).isZero();
      assertThat(r.out()).contains("note: stopped at the 1 s limit");
    }
  }

  @Test
  void aTinyRunPrintsClientAndServerFiguresPerEndpoint() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 100))) {
      Run r = run("load", "--url", server.url(), "--slow-count", "2", "--slow-ms", "10", "--pause-ms", "0",
          "--fast-count", "3", "--max-seconds", "30");
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.out())
          .contains("noisy-neighbour against " + server.url() + " (server mode: lanes)")
          .contains("client ms  p50 / p99 / max")
          .contains("queue wait p50/p99/max")
          .containsPattern("(?m)^/slow +2 +2 ")
          .containsPattern("(?m)^/fast +3 +3 ")
          .contains("/fast: client p50");
      ServeMain.Load load = r.cl().getSubcommands().get("load").getCommand();
      assertThat(load.result.endpoint("/fast").stages().getFirst().tasks()).isEqualTo(3);
    }
  }

  @Test
  void everyErrorIsOneLineWithThePrefixAndAHint() {
    for (String[] args : new String[][] {
        {"load", "--bogus"}, {"load", "--slow-count", "many"}, {"load", "--scenario", "stampede"},
        {"serve", "--mode", "both"}, {"serve", "--port"}, {"nonsense"}}) {
      Run r = run(args);
      assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(ServeMain.BAD_INPUT);
      assertThat(r.err().lines()).as(r.err()).singleElement().asString()
          .startsWith(args[0].equals("nonsense") ? "lanes: " : "lanes " + args[0] + ": ")
          .contains("try ");
    }
    assertThat(run("load", "--bogus").err()).isEqualTo("lanes load: Unknown option: '--bogus'; try ./lanes load --help\n");
  }

  @Test
  void loadWithNoServerSaysSoPlainly() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // free once closed: nothing listens there
    }
    Run r = run("load", "--port", Integer.toString(port), "--slow-count", "1", "--fast-count", "1");
    assertThat(r.exit()).isEqualTo(ServeMain.BAD_INPUT);
    assertThat(r.err()).isEqualTo("lanes load: no server at http://127.0.0.1:" + port
        + " (connection refused); start one with ./lanes serve --port " + port + ", or give its --port or --url\n");
  }

  @Test
  void loadTakesPortAsServeDoes() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 100))) {
      Run r = run("load", "--port", Integer.toString(server.port()), "--slow-count", "1", "--slow-ms", "1",
          "--pause-ms", "0", "--fast-count", "1", "--max-seconds", "30");
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.out()).contains("noisy-neighbour against http://127.0.0.1:" + server.port());
    }
    assertThat(run("load", "--port", "8080", "--url", "http://127.0.0.1:8080").err()).contains("give --url or --port, not both");
    assertThat(run("load", "--port", "0").err()).contains("--port must be between 1 and 65535, was 0");
  }

  @Test
  void serveOnAPortInUseNamesThePort() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 100))) {
      Run r = run("serve", "--port", Integer.toString(server.port()));
      assertThat(r.exit()).isEqualTo(ServeMain.BAD_INPUT);
      assertThat(r.err()).startsWith("lanes serve: port " + server.port() + " on 127.0.0.1: Address already in use")
          .endsWith("; try another --port, or --port 0 for any free one\n");
    }
  }
}
