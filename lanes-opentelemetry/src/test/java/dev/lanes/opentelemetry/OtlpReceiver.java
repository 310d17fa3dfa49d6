package dev.lanes.opentelemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP metrics receiver on 127.0.0.1 (binary protobuf, as the OTLP specification gives
 * it): decodes each POST to {@code /v1/metrics} with the official {@code opentelemetry-proto}
 * classes, keeps it, and answers 200 with an empty {@code ExportMetricsServiceResponse}. A body
 * that does not decode gets 400 and is kept as a failure, which fails the test.
 */
final class OtlpReceiver implements AutoCloseable {

  private static final int STOP_SECONDS = 5;

  private final HttpServer server;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(
      r -> new Thread(r, "otlp-receiver"));
  private final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
  private final List<String> failures = new CopyOnWriteArrayList<>();

  private OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/metrics", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  static OtlpReceiver start() throws IOException {
    return new OtlpReceiver();
  }

  String metricsEndpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/metrics";
  }

  List<ExportMetricsServiceRequest> requests() {
    if (!failures.isEmpty()) {
      throw new AssertionError("OTLP receiver got bad requests: " + failures);
    }
    return List.copyOf(requests);
  }

  ExportMetricsServiceRequest latest() {
    List<ExportMetricsServiceRequest> all = requests();
    if (all.isEmpty()) {
      throw new AssertionError("OTLP receiver got no request");
    }
    return all.get(all.size() - 1);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String type = exchange.getRequestHeaders().getFirst("Content-Type");
      if (!"POST".equals(exchange.getRequestMethod()) || !"application/x-protobuf".equals(type)) {
        failures.add(exchange.getRequestMethod() + " with Content-Type " + type);
        exchange.sendResponseHeaders(400, -1);
        return;
      }
      InputStream body = exchange.getRequestBody();
      if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(body);
      }
      ExportMetricsServiceRequest request;
      try {
        request = ExportMetricsServiceRequest.parseFrom(body);
      } catch (IOException e) {
        failures.add("undecodable body: " + e);
        exchange.sendResponseHeaders(400, -1);
        return;
      }
      requests.add(request);
      byte[] answer = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        exchange.getResponseBody().write(answer);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdown();
    try {
      if (!executor.awaitTermination(STOP_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("OTLP receiver thread did not stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping the OTLP receiver", e);
    }
  }
}
