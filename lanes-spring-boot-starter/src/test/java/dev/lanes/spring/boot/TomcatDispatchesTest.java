package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.TaskRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the Tomcat lane counts: its tasks are Tomcat's socket dispatches, each labelled {@code
 * tomcat-dispatch}. A dispatch serves every request waiting on its connection (one, or several
 * pipelined ones), and the client's close of a kept-alive connection is a dispatch of its own. Its
 * requests are counted apart ({@link TomcatRequestFigures}), each once, and each waited what its
 * dispatch waited if it was the dispatch's first, else nothing. Requests are written on raw
 * sockets, so the connections' lives are the test's, not an HTTP client's pool's.
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
  @Autowired TomcatRequestFigures requests;

  @Test
  @Timeout(60)
  void nKeptAliveRequestsAreNTasksAndTheClientsCloseIsOneMore() throws Exception {
    Lane http = lanes.lane("http");
    List<TaskRecord> tasks = new CopyOnWriteArrayList<>();
    http.onTask(tasks::add);
    long before = http.stats().submitted();
    long requestsBefore = requests.requests();
    try (RawHttp connection = new RawHttp(port, PATIENCE)) {
      for (int i = 1; i <= REQUESTS; i++) {
        connection.send("/where", 1);
        assertThat(connection.readBody()).startsWith("http-");
        // The request's task was handed to the lane before its response was written; it ends
        // when Tomcat finds no further request on the connection and gives it back to its poller.
        int served = i;
        Awaitility.await().atMost(PATIENCE).until(() -> http.stats().completed() - before == served);
        assertThat(http.stats().submitted() - before).as("tasks after %d requests", i).isEqualTo(i);
        assertThat(requests.requests() - requestsBefore).as("requests counted").isEqualTo(i);
      }
    }
    // The client's close is one more dispatch (Tomcat reads the end of the stream, closes its side).
    Awaitility.await().atMost(PATIENCE).until(() -> http.stats().completed() - before == REQUESTS + 1);
    assertThat(http.stats().submitted() - before).isEqualTo(REQUESTS + 1);
    Awaitility.await().atMost(PATIENCE).until(() -> tasks.size() == REQUESTS + 1);
    assertThat(tasks).extracting(TaskRecord::label).containsOnly(LanesAutoConfiguration.TOMCAT_DISPATCH);
    assertThat(requests.requests() - requestsBefore).as("the close is no request").isEqualTo(REQUESTS);
  }

  @Test
  @Timeout(60)
  void pipelinedRequestsAreServedByFewerTasksAndCountedOneEach() throws Exception {
    Lane http = lanes.lane("http");
    long before = http.stats().submitted();
    long requestsBefore = requests.requests();
    long readBefore = requests.readByRunningDispatch();
    try (RawHttp connection = new RawHttp(port, PATIENCE)) {
      // Every request in one write: Tomcat reads them together and serves them in one dispatch.
      connection.send("/where", REQUESTS);
      for (int i = 1; i <= REQUESTS; i++) {
        assertThat(connection.readBody()).startsWith("http-");
      }
      long dispatches = http.stats().submitted() - before;
      assertThat(dispatches).isBetween(1L, REQUESTS - 1L);
      // Counted as each request ends, after its response is written: wait for the last.
      Awaitility.await().atMost(PATIENCE).until(() -> requests.requests() - requestsBefore == REQUESTS);
      // Only a dispatch's first request waited for a thread; the others were read by it running.
      assertThat(requests.readByRunningDispatch() - readBefore)
          .isGreaterThanOrEqualTo(REQUESTS - dispatches);
    }
  }

  /**
   * Four requests hold the lane's four threads; a fifth waits in the queue until they are let go.
   * The requests' wait is their dispatches' wait, measured around the lane's own: at least what
   * the lane measured for the same five tasks, at most what the clients waited for their answers.
   */
  @Test
  @Timeout(60)
  void aQueuedRequestWaitsWhatItsDispatchWaited() throws Exception {
    Lane http = lanes.lane("http");
    int threads = http.settings().concurrency();
    List<TaskRecord> tasks = new CopyOnWriteArrayList<>();
    http.onTask(tasks::add);
    TestApplication.HoldController.HELD.drainPermits();
    long waitBefore = requests.waitNanosTotal();
    long requestsBefore = requests.requests();
    List<RawHttp> held = new java.util.ArrayList<>();
    long[] sentAt = new long[threads + 1];
    long clientsWaited = 0;
    try {
      for (int i = 0; i < threads; i++) {
        RawHttp c = new RawHttp(port, PATIENCE);
        held.add(c);
        sentAt[i] = System.nanoTime();
        c.send("/hold", 1);
      }
      TestApplication.HoldController.HELD.acquire(threads);
      try (RawHttp queued = new RawHttp(port, PATIENCE)) {
        sentAt[threads] = System.nanoTime();
        queued.send("/where", 1);
        Awaitility.await().atMost(PATIENCE).until(() -> http.stats().queued() == 1);
        TestApplication.HoldController.GO.release(threads);
        for (int i = 0; i < threads; i++) {
          assertThat(held.get(i).readBody()).isEqualTo("let go");
          clientsWaited += System.nanoTime() - sentAt[i];
        }
        assertThat(queued.readBody()).startsWith("http-");
        clientsWaited += System.nanoTime() - sentAt[threads];
        Awaitility.await().atMost(PATIENCE).until(() -> requests.requests() - requestsBefore == threads + 1);
        Awaitility.await().atMost(PATIENCE).until(() -> tasks.size() >= threads + 1);
        long requestsWaited = requests.waitNanosTotal() - waitBefore;
        long laneWaited = tasks.stream().mapToLong(TaskRecord::queueWaitNanos).sum();
        assertThat(tasks).as("no connection closed yet: one dispatch per request").hasSize(threads + 1);
        assertThat(tasks).extracting(TaskRecord::queueWaitNanos).as("the fifth waited").anyMatch(w -> w > 0);
        assertThat(requestsWaited).isGreaterThanOrEqualTo(laneWaited).isLessThanOrEqualTo(clientsWaited);
        assertThat(requests.requests() - requestsBefore).isEqualTo(threads + 1);
      }
    } finally {
      TestApplication.HoldController.GO.release(threads);
      for (RawHttp c : held) {
        c.close();
      }
    }
  }
}
