package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.TaskDeadline;
import dev.lanes.TaskOutcome;
import dev.lanes.testkit.Occupied;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;

/**
 * Deadlines through Spring: {@code @Async} called inside a {@link TaskDeadline} scope, and {@code
 * lanes.server.request-deadline}, on the real embedded Tomcat over real HTTP.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RequestDeadlineTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(TestApplication.class).properties(properties).run();
  }

  @Test
  void aRequestsAsyncWorkStillQueuedAtTheRequestDeadlineNeverStarts() throws Exception {
    try (ConfigurableApplicationContext context = start("server.port=0",
            "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=1",
            "lanes.server.request-deadline=5s");
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      Lane db = context.getBean("db", Lane.class);
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      HttpRequest request = HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/db-in-request")).timeout(PATIENCE).build();
      // The first request starts Spring's DispatcherServlet (seconds on a busy machine): not timed.
      http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/where"))
          .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ran");
      Occupied release = Occupied.oneThreadOf(db);
      assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).body())
          .isEqualTo("EXPIRED");
      release.close();
      assertThat(db.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1);
      // the first request's task, then the occupier once released
      org.awaitility.Awaitility.await().until(() -> db.stats().completed() == 2);
      // Outside a request: no deadline.
      TestApplication.AsyncWork work = context.getBean(TestApplication.AsyncWork.class);
      assertThat(work.onDb().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).startsWith("db-");
    }
  }

  @Test
  void asyncCalledInsideATaskDeadlineScopeGetsItsDeadline() throws Exception {
    try (ConfigurableApplicationContext context = start("spring.main.web-application-type=none",
        "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=1")) {
      Lane db = context.getBean("db", Lane.class);
      TestApplication.AsyncWork work = context.getBean(TestApplication.AsyncWork.class);
      Occupied release = Occupied.oneThreadOf(db);
      CompletableFuture<String> late;
      try (TaskDeadline d = TaskDeadline.startWithin(Duration.ofMillis(50))) {
        late = work.onDb();
      }
      assertThatThrownBy(() -> late.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .satisfies(e -> assertThat(NestedExceptionUtils.getMostSpecificCause(e))
              .isInstanceOfSatisfying(LaneRejectedException.class,
                  r -> assertThat(r.reason()).isEqualTo(TaskOutcome.EXPIRED)));
      release.close();
      assertThat(db.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1);
    }
  }

  @Test
  void aRequestDeadlineOfZeroStopsStartupNamingTheProperty() {
    assertThatThrownBy(() -> start("spring.main.web-application-type=servlet", "server.port=0",
            "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=1",
            "lanes.server.request-deadline=0s").close())
        .satisfies(e -> assertThat(NestedExceptionUtils.getMostSpecificCause(e))
            .isInstanceOfSatisfying(LanesPropertyException.class, p -> assertThat(p.getMessage())
                .contains("lanes.server.request-deadline", "must be positive")));
  }
}
