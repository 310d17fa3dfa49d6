package dev.lanes.agentit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every request the tests send the bookshop, GET and POST, and what came back: status, content
 * type and body, byte for byte, except one run-dependent value (see {@link #masked}).
 */
final class Exchanges {
  /** One request: method, path, JSON body (null for a GET). */
  record Request(String method, String path, String body) {
    String label() {
      return method + " " + path + (body == null ? "" : " " + body);
    }
  }

  static final List<Request> REQUESTS = List.of(
      new Request("GET", "/", null),
      new Request("GET", "/books", null),
      new Request("GET", "/books/2", null),
      new Request("GET", "/books/3/author-proxy", null),
      new Request("GET", "/books/99", null),
      new Request("POST", "/numbers/doubles", "[1.5, 2.25e3]"),
      new Request("POST", "/numbers/doubles", "[0.1, 0.2, -7.0E-3, 1e300, 3.141592653589793, 12345678901234567890]"),
      new Request("POST", "/numbers/invoice", "{\"item\":\"paper\",\"unitPrice\":19.99,\"quantity\":3,"
          + "\"parcelKilograms\":[1.5, 2.25e3, 0.125]}"),
      new Request("POST", "/numbers/doubles", "[1.5, \"many\"]"),
      new Request("GET", "/runtime-subclass", null));

  private Exchanges() {}

  /** Sends every request in order; the answers by request label, as "status content-type\nbody". */
  static Map<String, String> send(String baseUrl) throws IOException, InterruptedException {
    Map<String, String> answers = new LinkedHashMap<>();
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20)).build()) {
      for (Request r : REQUESTS) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + r.path())).timeout(Duration.ofSeconds(60));
        if (r.body() == null) {
          b.GET();
        } else {
          b.header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(r.body(), StandardCharsets.UTF_8));
        }
        HttpResponse<String> response = client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        answers.put(r.label(), response.statusCode() + " "
            + response.headers().firstValue("Content-Type").orElse("(no content type)") + "\n"
            + masked(response.body()));
      }
    }
    return answers;
  }

  /** Spring Boot's error body says when the error happened: the clock, different every run. */
  static String masked(String body) {
    return body.replaceAll("\"timestamp\":\"[^\"]*\"", "\"timestamp\":\"(masked)\"");
  }
}
