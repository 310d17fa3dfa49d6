package dev.lanes.opentelemetry;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The OpenTelemetry Collector (its core OTLP receiver and OTLP/HTTP exporter; built from {@code
 * src/test/otelcol} by {@code ./lanes test}, its path in {@code LANES_OTELCOL}) running as its own
 * process: OTLP/HTTP in on 127.0.0.1, every metrics batch passed on, uncompressed, to a downstream
 * OTLP endpoint the test reads.
 */
final class OtelCollector implements AutoCloseable {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private final Process process;
  private final int port;
  private final Path log;

  private OtelCollector(Path binary, Path dir, String downstream) throws IOException {
    port = freePort();
    log = dir.resolve("collector.log");
    Path config = Files.writeString(dir.resolve("config.yaml"), """
        receivers:
          otlp:
            protocols:
              http:
                endpoint: 127.0.0.1:%d
        exporters:
          otlphttp:
            metrics_endpoint: %s
            compression: none
        service:
          pipelines:
            metrics:
              receivers: [otlp]
              exporters: [otlphttp]
        """.formatted(port, downstream));
    process = new ProcessBuilder(binary.toString(), "--config", config.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    await().atMost(PATIENCE).until(() -> {
      if (!process.isAlive()) {
        throw new AssertionError("the collector exited (" + process.exitValue() + "): "
            + Files.readString(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return true;
      } catch (IOException notYet) {
        return false;
      }
    });
  }

  /**
   * Starts the collector {@code LANES_OTELCOL} names, its files in {@code dir}, passing metrics on
   * to {@code downstream} (an OTLP/HTTP metrics URL).
   */
  static OtelCollector start(Path dir, String downstream) throws IOException {
    String path = System.getenv("LANES_OTELCOL");
    if (path == null || !Files.isExecutable(Path.of(path))) {
      throw new AssertionError("this test needs the OpenTelemetry Collector that ./lanes test builds"
          + " from lanes-opentelemetry/src/test/otelcol (go build); set LANES_OTELCOL to its path"
          + (path == null ? "" : " (was \"" + path + "\", not an executable)"));
    }
    return new OtelCollector(Path.of(path), dir, downstream);
  }

  String metricsEndpoint() {
    return "http://127.0.0.1:" + port + "/v1/metrics";
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
