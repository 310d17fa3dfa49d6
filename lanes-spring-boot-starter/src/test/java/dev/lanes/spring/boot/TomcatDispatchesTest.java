package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.TaskRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the Tomcat lane counts (issue #26: 243 requests made 373 tasks): Tomcat's socket
 * dispatches, each labelled {@code tomcat-dispatch}. A dispatch serves every request waiting on its
 * connection (one, or several pipelined ones), and the client's close of a kept-alive connection
 * is a dispatch of its own. Requests are written on one raw socket, so the connection's life is
 * the test's, not an HTTP client's pool's.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "lanes.instances.http.kind=blocking",
      "lanes.instances.http.concurrency=4",
      "lanes.instances.db.kind=blocking",
      "lanes.instances.db.concurrency=1",
      "lanes.server.lane=http",
    })
class TomcatDispatchesTest {
  private static final int REQUESTS = 25;
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @LocalServerPort int port;
  @Autowired Lanes lanes;

  @Test
  @Timeout(60)
  void nKeptAliveRequestsAreNTasksAndTheClientsCloseIsOneMore() throws Exception {
    Lane http = lanes.lane("http");
    List<TaskRecord> tasks = new CopyOnWriteArrayList<>();
    http.onTask(tasks::add);
    long before = http.stats().submitted();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) PATIENCE.toMillis());
      BufferedReader in = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      OutputStream out = socket.getOutputStream();
      for (int i = 1; i <= REQUESTS; i++) {
        out.write("GET /where HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        assertThat(readResponseBody(in)).startsWith("http-");
        // The request's task was handed to the lane before its response was written; it ends
        // when Tomcat finds no further request on the connection and gives it back to its poller.
        int served = i;
        Awaitility.await().atMost(PATIENCE).until(() -> http.stats().completed() - before == served);
        assertThat(http.stats().submitted() - before).as("tasks after %d requests", i).isEqualTo(i);
      }
    }
    // The client's close is one more dispatch (Tomcat reads the end of the stream, closes its side).
    Awaitility.await().atMost(PATIENCE).until(() -> http.stats().completed() - before == REQUESTS + 1);
    assertThat(http.stats().submitted() - before).isEqualTo(REQUESTS + 1);
    Awaitility.await().atMost(PATIENCE).until(() -> tasks.size() == REQUESTS + 1);
    assertThat(tasks).extracting(TaskRecord::label).containsOnly(LanesAutoConfiguration.TOMCAT_DISPATCH);
  }

  @Test
  @Timeout(60)
  void pipelinedRequestsAreServedByFewerTasks() throws Exception {
    Lane http = lanes.lane("http");
    long before = http.stats().submitted();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) PATIENCE.toMillis());
      BufferedReader in = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      OutputStream out = socket.getOutputStream();
      // Every request in one write: Tomcat reads them together and serves them in one dispatch.
      out.write("GET /where HTTP/1.1\r\nHost: localhost\r\n\r\n".repeat(REQUESTS)
          .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      for (int i = 1; i <= REQUESTS; i++) {
        assertThat(readResponseBody(in)).startsWith("http-");
      }
      assertThat(http.stats().submitted() - before).isBetween(1L, REQUESTS - 1L);
    }
  }

  /** Reads one HTTP/1.1 response with a Content-Length and returns its body. */
  private static String readResponseBody(BufferedReader in) throws Exception {
    String status = in.readLine();
    assertThat(status).startsWith("HTTP/1.1 200");
    int length = -1;
    for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    assertThat(length).as("Content-Length").isNotNegative();
    char[] body = new char[length];
    for (int read = 0; read < length; ) {
      int n = in.read(body, read, length - read);
      assertThat(n).as("bytes of the body").isPositive();
      read += n;
    }
    return new String(body);
  }
}
