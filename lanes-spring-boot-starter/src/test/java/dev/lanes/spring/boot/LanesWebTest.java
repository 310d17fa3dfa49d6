package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The real application on the real embedded Tomcat, called over real HTTP. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "lanes.instances.http.kind=blocking",
      "lanes.instances.http.concurrency=8",
      "lanes.instances.http.queue-capacity=200",
      "lanes.instances.db.kind=blocking",
      "lanes.instances.db.concurrency=2",
      "lanes.instances.background.kind=virtual",
      "lanes.instances.background.concurrency=4",
      "lanes.server.lane=http",
      "lanes.task-executor=background",
      "management.endpoints.web.exposure.include=health,lanes,metrics",
      "management.endpoint.health.show-details=always",
    })
class LanesWebTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();
  private static final JsonMapper json = JsonMapper.builder().build();

  @LocalServerPort int port;
  @Autowired Lanes lanes;
  @Autowired TestApplication.AsyncWork work;
  @Autowired @Qualifier("db") Lane db;

  @AfterAll
  static void closeClient() {
    http.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(PATIENCE).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void tomcatServesRequestsInTheirLaneAndTheLaneTimesThem() throws Exception {
    long before = lanes.lane("http").stats().completed();
    HttpResponse<String> response = get("/where");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).startsWith("http-");
    // Tomcat's task for the request ends just after the response is written: wait for it.
    org.awaitility.Awaitility.await()
        .atMost(PATIENCE)
        .until(() -> lanes.lane("http").stats().completed() > before);
    var stats = lanes.lane("http").stats();
    assertThat(stats.sinceStart().queueWait().count()).isPositive();
    assertThat(stats.sinceStart().runTime().count()).isPositive();
  }

  @Test
  void asyncWithALaneNameRunsOnThatLaneAndIsTimed() throws Exception {
    long before = db.stats().completed();
    assertThat(work.onDb().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).startsWith("db-");
    org.awaitility.Awaitility.await().atMost(PATIENCE).until(() -> db.stats().completed() > before);
    assertThat(db.stats().sinceStart().queueWait().count()).isPositive();
  }

  @Test
  void theApplicationTaskExecutorIsTheConfiguredLane() throws Exception {
    assertThat(work.onDefault().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).startsWith("background-");
  }

  @Autowired org.springframework.context.ApplicationContext context;

  @Test
  void lanesStopAfterTheWebServer() {
    int lanesPhase = context.getBean(LanesLifecycle.class).getPhase();
    for (String webServerLifecycle : new String[] {"webServerStartStop", "webServerGracefulShutdown"}) {
      var server = context.getBean(webServerLifecycle, org.springframework.context.SmartLifecycle.class);
      // Higher phases stop first.
      assertThat(server.getPhase()).as(webServerLifecycle).isGreaterThan(lanesPhase);
    }
  }

  @Test
  void aLaneIsInjectableByItsName() {
    assertThat(db.name()).isEqualTo("db");
    assertThat(db).isSameAs(lanes.lane("db"));
  }

  @Test
  void actuatorPublishesTheQueueWaitTimer() throws Exception {
    get("/where");
    HttpResponse<String> response = get("/actuator/metrics/lanes.task.wait?tag=lane:http");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("name").asString()).isEqualTo("lanes.task.wait");
    double count = 0;
    for (JsonNode m : body.get("measurements")) {
      if (m.get("statistic").asString().equals("COUNT")) {
        count = m.get("value").asDouble();
      }
    }
    assertThat(count).isPositive();
  }

  @Test
  void actuatorPublishesTheRequestsApartFromTheTasks() throws Exception {
    get("/where");
    for (String meter : new String[] {"lanes.request.wait", "lanes.request.run"}) {
      HttpResponse<String> response = get("/actuator/metrics/" + meter + "?tag=lane:http");
      assertThat(response.statusCode()).as(meter).isEqualTo(200);
      double count = 0;
      for (JsonNode m : json.readTree(response.body()).get("measurements")) {
        if (m.get("statistic").asString().equals("COUNT")) {
          count = m.get("value").asDouble();
        }
      }
      assertThat(count).as(meter + " count").isPositive();
    }
  }

  @Test
  void actuatorHealthShowsTheLanes() throws Exception {
    HttpResponse<String> response = get("/actuator/health");
    JsonNode lanesHealth = json.readTree(response.body()).get("components").get("lanes");
    assertThat(lanesHealth.get("status").asString()).isEqualTo("UP");
    assertThat(lanesHealth.get("details").get("db").get("health").asString()).isEqualTo("OK");
    assertThat(lanesHealth.get("details").get("http").get("concurrency").asInt()).isEqualTo(8);
  }

  @Test
  void theLanesEndpointListsEveryLaneWithStatsAndAdvice() throws Exception {
    get("/where");
    // The request's Tomcat task ends after its response is sent, so the client may read the
    // endpoint before that task is counted: wait until it is (the figures of ended tasks).
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> json
        .readTree(get("/actuator/lanes").body()).get("http").get("queueWait").get("count")
        .asLong() > 0);
    JsonNode all = json.readTree(get("/actuator/lanes").body());
    assertThat(all.propertyNames()).containsExactly("http", "db", "background");
    JsonNode httpLane = all.get("http");
    assertThat(httpLane.get("kind").asString()).isEqualTo("blocking");
    assertThat(httpLane.get("queueCapacity").asInt()).isEqualTo(200);
    assertThat(httpLane.get("concurrency").asInt()).isEqualTo(8);
    assertThat(httpLane.get("workers").asInt()).isEqualTo(8);
    assertThat(httpLane.get("shutdown").asBoolean()).isFalse();
    assertThat(httpLane.get("queueWait").get("count").asLong()).isPositive();
    assertThat(httpLane.get("sizingAdvice").get("text").asString()).contains("lane \"http\"");
    // Tomcat's lane shows its requests beside its tasks (dispatches); the other lanes serve none.
    assertThat(httpLane.get("tomcatRequests").get("count").asLong()).isPositive();
    assertThat(httpLane.get("tomcatRequests").get("queueWait").get("count").asLong())
        .isEqualTo(httpLane.get("tomcatRequests").get("count").asLong());
    assertThat(all.get("db").get("tomcatRequests").isNull()).isTrue();

    HttpResponse<String> one = get("/actuator/lanes/background");
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(json.readTree(one.body()).get("kind").asString()).isEqualTo("virtual");
    assertThat(get("/actuator/lanes/nope").statusCode()).isEqualTo(404);
  }
}
