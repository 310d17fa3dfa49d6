package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Shares configured from properties alone, seen over real HTTP on the embedded Tomcat: {@code
 * /actuator/lanes} shows each shared lane's partition and what it may run now, {@code
 * /actuator/prometheus} the partitions' figures.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "lanes.shares.db.total=4",
      "lanes.shares.db.partitions.checkout.share=0.5",
      "lanes.shares.db.partitions.reports.share=0.5",
      "lanes.instances.checkout-db.kind=virtual",
      "lanes.instances.checkout-db.concurrency=5",
      "lanes.instances.checkout-db.share=db/checkout",
      "lanes.instances.reports-db.kind=blocking",
      "lanes.instances.reports-db.concurrency=5",
      "lanes.instances.reports-db.share=db/reports",
      // lane "db" (the test application's @Async("db")) is served by no share
      "lanes.instances.db.kind=virtual",
      "lanes.instances.db.concurrency=3",
      "management.endpoints.web.exposure.include=lanes,prometheus",
    })
class LanesSharesWebTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();
  private static final JsonMapper json = JsonMapper.builder().build();

  @LocalServerPort int port;
  @Autowired Lanes lanes;
  @Autowired LanesShares shares;

  @AfterAll
  static void closeClient() {
    http.close();
  }

  private String get(String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    return r.body();
  }

  @Test
  void theEndpointShowsWhatEachSharedLaneMayRunNow() throws Exception {
    // Idle: a lane of 5 behind a share of 4 may run 4.
    JsonNode idle = json.readTree(get("/actuator/lanes"));
    assertThat(idle.get("checkout-db").get("concurrency").asInt()).isEqualTo(5);
    JsonNode checkout = idle.get("checkout-db").get("share");
    assertThat(checkout.get("share").asString()).isEqualTo("db");
    assertThat(checkout.get("partition").asString()).isEqualTo("checkout");
    assertThat(checkout.get("priority").asInt()).isZero();
    assertThat(checkout.get("total").asInt()).isEqualTo(4);
    assertThat(checkout.get("guaranteed").asInt()).isEqualTo(2);
    assertThat(checkout.get("mayRunNow").asInt()).isEqualTo(4);
    assertThat(idle.get("db").get("share").isNull()).isTrue();

    CountDownLatch release = new CountDownLatch(1);
    try {
      // Reports takes its 2 and borrows 1 from checkout, which was never active (lendable).
      for (int i = 0; i < 3; i++) {
        lanes.lane("reports-db").submit(() -> hold(release));
      }
      await().atMost(PATIENCE).until(() -> shares.get("db").orElseThrow().stats().partition("reports").held() == 3);
      JsonNode busy = json.readTree(get("/actuator/lanes"));
      JsonNode reports = busy.get("reports-db").get("share");
      assertThat(reports.get("held").asInt()).isEqualTo(3);
      assertThat(reports.get("borrowed").asInt()).isEqualTo(1);
      assertThat(reports.get("free").asInt()).isEqualTo(1);
      assertThat(reports.get("mayRunNow").asInt()).isEqualTo(4);
      // Checkout may take the one free permit now; its second comes back when a report ends.
      assertThat(busy.get("checkout-db").get("share").get("mayRunNow").asInt()).isEqualTo(1);
      assertThat(busy.get("checkout-db").get("concurrency").asInt()).isEqualTo(5);

      String scrape = get("/actuator/prometheus");
      assertThat(scrape)
          .contains("lanes_shares_permits{share=\"db\"} 4.0")
          .contains("lanes_shares_partition_held{partition=\"reports\",share=\"db\"} 3.0")
          .contains("lanes_shares_partition_borrowed{partition=\"reports\",share=\"db\"} 1.0")
          .contains("lanes_shares_partition_guaranteed{partition=\"checkout\",share=\"db\"} 2.0")
          // 3 or more: a pass taken by a worker that then found the queue empty comes back unused.
          .contains("lanes_shares_partition_granted_total{partition=\"reports\",share=\"db\"} "
              + (double) shares.get("db").orElseThrow().stats().partition("reports").granted());
    } finally {
      release.countDown();
    }
    await().atMost(PATIENCE).until(() -> shares.get("db").orElseThrow().stats().held() == 0);
  }

  private static void hold(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
