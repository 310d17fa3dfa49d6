package dev.lanes.serve.boot;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private Prometheus server for tests: Debian's {@code prometheus} binary started as a child
 * process on 127.0.0.1, on a free port, with a configuration and a storage folder of its own in a
 * temporary folder, scraping one target every second. No system service: the package's own
 * service (which listens on 9090 where systemd runs) plays no part.
 *
 * <p>The binary is {@code $LANES_PROMETHEUS} if set, else {@code prometheus} on the PATH; {@code
 * ./lanes test} installs Debian's {@code prometheus} when it is missing and it runs as root. Without
 * one, {@link #start} fails in one sentence saying so (as lanes-redis's tests do without Redis).
 *
 * <p>Readiness is {@code GET /-/ready} answering 200, polled until {@link #START_TIMEOUT}; the
 * server's output goes to {@code prometheus.log} in the temporary folder, which a failure names.
 */
final class PrometheusProcess implements AutoCloseable {

  /** The longest a start may take before it is reported as failed. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

  private final String binary;
  private final Path dir;
  private final int port;
  private final Process process;
  private final HttpClient http;

  private PrometheusProcess(String binary, Path dir, int port, Process process, HttpClient http) {
    this.binary = binary;
    this.dir = dir;
    this.port = port;
    this.process = process;
    this.http = http;
  }

  /**
   * Starts Prometheus scraping {@code http://127.0.0.1:<targetPort><metricsPath>} every
   * {@code scrapeInterval} (job {@code lanes}, instance {@code 127.0.0.1:<targetPort>}).
   */
  static PrometheusProcess start(int targetPort, String metricsPath, Duration scrapeInterval) {
    String binary = findBinary(System.getenv());
    Path dir;
    try {
      dir = Files.createTempDirectory("lanes-prometheus-");
      Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
          "global:",
          "  scrape_interval: " + scrapeInterval.toMillis() + "ms",
          "  evaluation_interval: " + scrapeInterval.toMillis() + "ms",
          "scrape_configs:",
          "  - job_name: lanes",
          "    metrics_path: " + metricsPath,
          "    scrape_timeout: " + scrapeInterval.toMillis() + "ms",
          "    static_configs:",
          "      - targets: ['127.0.0.1:" + targetPort + "']",
          ""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return launch(binary, dir, freePort());
      } catch (IllegalStateException e) {
        last = e; // most likely the port was taken between probing it and Prometheus binding it
      }
    }
    throw last;
  }

  private static PrometheusProcess launch(String binary, Path dir, int port) {
    Path storage = dir.resolve("data-" + port);
    Path log = dir.resolve("prometheus.log");
    Process p;
    try {
      p = new ProcessBuilder(binary,
              "--config.file=" + dir.resolve("prometheus.yml"),
              "--storage.tsdb.path=" + storage,
              "--web.listen-address=127.0.0.1:" + port)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary, e);
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    PrometheusProcess server = new PrometheusProcess(binary, dir, port, p, http);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        http.close();
        throw new IllegalStateException(binary + " exited with status " + p.exitValue()
            + " while starting on port " + port + "; its output is in " + log);
      }
      if (server.ready()) {
        return server;
      }
      try {
        Thread.sleep(POLL); // polling an HTTP endpoint: nothing to wait on instead
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    server.stopProcess();
    http.close();
    throw new IllegalStateException(binary + " was not ready on port " + port + " within "
        + START_TIMEOUT.toSeconds() + " s; its output is in " + log);
  }

  private boolean ready() {
    try {
      HttpResponse<Void> r = http.send(HttpRequest.newBuilder(base().resolve("/-/ready"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** {@code $LANES_PROMETHEUS}, else {@code prometheus} on {@code $PATH}, in {@code env}. */
  static String findBinary(java.util.Map<String, String> env) {
    String configured = env.get("LANES_PROMETHEUS");
    if (configured != null && !configured.isBlank()) {
      if (!new File(configured).canExecute()) {
        throw new IllegalStateException("LANES_PROMETHEUS is " + configured
            + ", which is not an executable file");
      }
      return configured;
    }
    for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "prometheus");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    throw new IllegalStateException("no prometheus binary: the dashboard test runs a real"
        + " Prometheus server; ./lanes test installs Debian's prometheus when it runs as root,"
        + " or apt-get install prometheus, or set LANES_PROMETHEUS to a prometheus 2.x binary");
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  URI base() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The binary's {@code --version} first line, e.g. {@code prometheus, version 2.42.0+ds (...)}. */
  String version() {
    try {
      Process v = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
      String out = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      v.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      return out.lines().findFirst().orElse("?");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  /** GET {@code path} with the query parameters given as name, value, name, value, ... */
  String get(String path, String... params) throws IOException, InterruptedException {
    StringBuilder q = new StringBuilder();
    for (int i = 0; i < params.length; i += 2) {
      q.append(i == 0 ? "?" : "&").append(params[i]).append('=')
          .append(URLEncoder.encode(params[i + 1], StandardCharsets.UTF_8));
    }
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + path + q))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("Prometheus answered " + r.statusCode() + " to " + path + q
          + ": " + r.body());
    }
    return r.body();
  }

  /** The server's log so far (for a failure message). */
  Path log() {
    return dir.resolve("prometheus.log");
  }

  private void stopProcess() {
    process.destroy(); // SIGTERM: Prometheus shuts down cleanly
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** Stops the server and deletes its folder. */
  @Override
  public void close() {
    stopProcess();
    http.close();
    try (Stream<Path> files = Files.walk(dir)) {
      List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
      for (Path f : all) {
        f.toFile().delete();
      }
    } catch (IOException e) {
      // A temporary folder left behind is harmless.
    }
  }
}
