package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad requests get a 4xx and a one-line reason, a full lane a 503, and the server lives on. */
class BadInputTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private DemoServer server;
  private HttpClient client;

  @BeforeEach
  void start() throws Exception {
    server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.SHARED, "127.0.0.1", 0, 1, 1));
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void badMillisAndUnknownPathsGetA4xxWithOneLineReason() throws Exception {
    assertBad("/slow", 400, "missing query parameter ms");
    assertBad("/slow?ms=", 400, "whole number");
    assertBad("/slow?ms=-5", 400, "between 0 and 10000");
    assertBad("/cpu?ms=abc", 400, "whole number");
    assertBad("/cpu?ms=99999999999999999999", 400, "whole number");
    assertBad("/call?ms=10001", 400, "between 0 and 10000");
    assertBad("/call?ms=10&cpu=-1", 400, "cpu must be between");
    assertBad("/slow?ms=1&ms=2", 400, "given twice");
    assertBad("/nope", 404, "no such path");
    assertBad("/slow?ms=" + "1".repeat(2_000), 414, "query longer");

    HttpResponse<String> post = client.send(
        HttpRequest.newBuilder(uri("/fast")).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(get("/stats/reset").statusCode()).isEqualTo(405);

    // Still serving.
    assertThat(get("/fast").statusCode()).isEqualTo(200);
    assertThat(get("/slow?ms=0").statusCode()).isEqualTo(200);
  }

  @Test
  void aFullLaneAnswers503AtOnce() throws Exception {
    Lane shared = server.lanes().lane("shared");
    CompletableFuture<HttpResponse<String>> running = getAsync("/slow?ms=2000");
    await().atMost(TIMEOUT).until(() -> shared.stats().running() == 1);
    CompletableFuture<HttpResponse<String>> queued = getAsync("/slow?ms=0");
    await().atMost(TIMEOUT).until(() -> shared.stats().queued() == 1);

    HttpResponse<String> refused = get("/fast");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("lane \"shared\" refused").doesNotContain("\n\n");
    assertThat(refused.body().strip().lines()).hasSize(1);

    // The observation endpoints have their own lane and answer meanwhile.
    assertThat(get("/stats.json").statusCode()).isEqualTo(200);
    assertThat(running.get().statusCode()).isEqualTo(200);
    assertThat(queued.get().statusCode()).isEqualTo(200);
    assertThat(shared.stats().rejected()).isEqualTo(1);
  }

  @Test
  void aClientThatStallsMidRequestDoesNotBlockOthers() throws Exception {
    try (java.net.Socket stalled = new java.net.Socket("127.0.0.1", server.port())) {
      // Headers begun, never finished: the reader of this request waits on its own virtual thread.
      stalled.getOutputStream().write("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      stalled.getOutputStream().flush();
      Lane http = server.lanes().lane("http");
      await().atMost(TIMEOUT).until(() -> http.stats().running() >= 1);
      assertThat(get("/fast").statusCode()).isEqualTo(200);
    }
  }

  private void assertBad(String pathAndQuery, int status, String reason) throws Exception {
    HttpResponse<String> r = get(pathAndQuery);
    assertThat(r.statusCode()).as(pathAndQuery).isEqualTo(status);
    assertThat(r.body()).as(pathAndQuery).contains(reason);
    assertThat(r.body().strip().lines()).as("one line: %s", r.body()).hasSize(1);
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return client.send(HttpRequest.newBuilder(uri(pathAndQuery)).timeout(TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private CompletableFuture<HttpResponse<String>> getAsync(String pathAndQuery) {
    return client.sendAsync(HttpRequest.newBuilder(uri(pathAndQuery)).timeout(TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String pathAndQuery) {
    return URI.create(server.url() + pathAndQuery);
  }
}
