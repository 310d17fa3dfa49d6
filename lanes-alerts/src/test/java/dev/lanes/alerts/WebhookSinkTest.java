package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The webhook sink against real servers on loopback: Slack's shape, a server down, a slow one. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebhookSinkTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static Alert alert(String lane, String stacks) {
    LaneStats stats;
    try (Lane l = Lane.blocking("stats-source", 1).build()) {
      stats = l.stats();
    }
    return new Alert(lane, AlertKind.SATURATED, false, Instant.now(),
        "lane \"" + lane + "\" has been SATURATED for 31.00 s (alert after 30.00 s)", stats,
        Map.of("saturatedForMs", 31_000.0), "", stacks);
  }

  @Test
  void theSlackShapeIsJsonWithTextAndSectionsWithinSlacksLimitAndEscaped() throws Exception {
    try (Hook hook = Hook.start();
        WebhookSink slack = WebhookSink.to(hook.uri()).format(WebhookSink.Format.SLACK).build()) {
      String stacks = "\"a<b&c-1\" WAITING\n" + "\tat some.Frame.method(Frame.java:1)\n".repeat(400);
      slack.send(alert("a<b&c", stacks));
      await().until(() -> slack.delivered() == 1);
      JsonNode body = JSON.readTree(hook.bodies.get(0));
      assertThat(body.get("text").isString()).isTrue();
      assertThat(body.get("text").asString())
          .isEqualTo("lane \"a&lt;b&amp;c\" has been SATURATED for 31.00 s (alert after 30.00 s)");
      JsonNode blocks = body.get("blocks");
      assertThat(blocks.isArray()).isTrue();
      assertThat(blocks.size()).isEqualTo(3); // headline, evidence, stacks
      for (JsonNode block : blocks) {
        assertThat(block.get("type").asString()).isEqualTo("section");
        assertThat(block.get("text").get("type").asString()).isEqualTo("mrkdwn");
        assertThat(block.get("text").get("text").asString().length())
            .isLessThanOrEqualTo(AlertJson.SLACK_SECTION_LIMIT);
      }
      assertThat(blocks.get(1).get("text").get("text").asString())
          .contains("• in flight 0 of concurrency 1", "• state: SATURATED (SATURATED at this check); the lane's own monitor, judging over"
              + " its own windows, said OK");
      assertThat(blocks.get(2).get("text").get("text").asString())
          .startsWith("*worker stacks*\n```\"a&lt;b&amp;c-1\" WAITING")
          .contains("more characters)").endsWith("```");
    }
  }

  @Test
  void aServerThatIsDownIsLoggedOncePerIntervalWithTheCountHeldBack() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed at once: nothing listens there
    }
    ManualTicker clock = new ManualTicker();
    try (LogCapture log = new LogCapture();
        WebhookSink down = WebhookSink.to(URI.create("http://127.0.0.1:" + port + "/hook"))
            .failureLogInterval(Duration.ofMinutes(1)).ticker(clock).build()) {
      for (int i = 0; i < 3; i++) {
        down.send(alert("db", ""));
      }
      await().until(() -> down.failed() == 3);
      assertThat(log.records).hasSize(1);
      assertThat(log.records.get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(log.messages().get(0)).contains("webhook http://127.0.0.1:" + port,
          "ConnectException", "alert SATURATED for lane \"db\" not delivered");

      clock.advance(Duration.ofMinutes(1));
      down.send(alert("db", ""));
      await().until(() -> down.failed() == 4);
      assertThat(log.records).hasSize(2);
      assertThat(log.messages().get(1)).contains("(2 more failures since the last line)");
      assertThat(down.delivered()).isZero();
    }
  }

  @Test
  void aSlowServerDoesNotHoldTheCheckAndItsTimeoutIsLoggedOnce() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    Lane lane = Lane.blocking("slow-hook", 1).queueCapacity(1).build();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch running = new CountDownLatch(1);
    try (LogCapture log = new LogCapture(); Hook hook = Hook.slow(answer)) {
      WebhookSink slow = WebhookSink.to(hook.uri()).requestTimeout(Duration.ofMillis(200)).build();
      try (LaneAlerts alerts = LaneAlerts.builder().manualChecks()
          .rejectionsPerSecond(0, Duration.ofSeconds(10)).sink(slow).build()) {
        alerts.watch(lane);
        CompletableFuture<?> held = lane.submit(() -> {
          running.countDown();
          release.await();
          return null;
        });
        running.await();
        CompletableFuture<?> queued = lane.submit(() -> null);
        assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(LaneRejectedException.class);
        // The server holds its answer until the test counts `answer` down, after the check:
        // a check that waited for the webhook would never return (and the test time out).
        alerts.check();
        assertThat(alerts.alertsSent()).isEqualTo(1);
        await().until(() -> hook.bodies.size() == 1);
        await().until(() -> slow.failed() == 1);
        assertThat(log.messages()).singleElement().asString()
            .contains("HttpTimeoutException", "alert REJECTING for lane \"slow-hook\"");
        answer.countDown();
        release.countDown();
        CompletableFuture.allOf(held, queued).get();
      }
    } finally {
      answer.countDown();
      release.countDown();
      lane.close();
    }
  }

  @Test
  void beyondMaxInFlightAnAlertIsDroppedAndCountedNotQueued() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    try (LogCapture log = new LogCapture(); Hook hook = Hook.slow(answer)) {
      WebhookSink one = WebhookSink.to(hook.uri()).maxInFlight(1).build();
      try {
        one.send(alert("db", ""));
        await().until(() -> hook.bodies.size() == 1); // held by the server
        one.send(alert("db", ""));
        assertThat(one.failed()).isEqualTo(1);
        assertThat(log.messages()).singleElement().asString()
            .contains("1 requests still in flight; alert dropped");
        answer.countDown();
        await().until(() -> one.delivered() == 1);
        assertThat(hook.bodies).hasSize(1);
      } finally {
        answer.countDown();
        one.close();
      }
    }
  }

  @Test
  void aSinkThatThrowsIsLoggedAndTheOtherSinksStillGetTheAlert() throws Exception {
    List<Alert> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (LogCapture log = new LogCapture();
        Lane lane = Lane.blocking("throws", 1).queueCapacity(1).build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks()
            .rejectionsPerSecond(0, Duration.ofSeconds(10))
            .sink(a -> {
              throw new IllegalStateException("broken sink");
            })
            .sink(sent::add).build()) {
      alerts.watch(lane);
      lane.shutdown();
      assertThat(lane.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(LaneRejectedException.class);
      alerts.check();
      assertThat(sent).singleElement().extracting(Alert::kind).isEqualTo(AlertKind.REJECTING);
      assertThat(sent.get(0).figures()).containsKey("rejectedPerSecond.shutdown");
      assertThat(log.messages()).singleElement().asString().contains("broken sink");
      assertThat(alerts.watching()).as("a terminated lane is no longer watched").isEmpty();
    }
  }

  @Test
  void theLogSinkWritesTheHeadlineAndTheEvidenceInOneRecord() {
    try (LogCapture log = new LogCapture()) {
      AlertSink.log(System.Logger.Level.ERROR).send(alert("db", "\"db-1\" RUNNABLE\n"));
      assertThat(log.records).singleElement().extracting(r -> r.getLevel()).isEqualTo(Level.SEVERE);
      assertThat(log.messages().get(0)).startsWith("lane \"db\" has been SATURATED for 31.00 s")
          .contains("\n  queue wait / run: no task ended in the lane's last stats interval",
              "\n  in flight 0 of concurrency 1; queued 0 of capacity 10000",
              "\n  counts: submitted 0", "\n  measured: saturatedForMs=31000",
              "\n  worker stacks:\n    \"db-1\" RUNNABLE");
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheSettingTheBoundAndTheValue() {
    assertThatThrownBy(() -> WebhookSink.to(URI.create("ftp://x/y")))
        .hasMessage("webhook url must be an absolute http or https URL, was ftp://x/y");
    assertThatThrownBy(() -> WebhookSink.to(URI.create("http://h/")).requestTimeout(Duration.ZERO))
        .hasMessage("webhook http://h/: requestTimeout must be > 0 and at most PT1H, was PT0S");
    assertThatThrownBy(() -> WebhookSink.to(URI.create("http://h/")).maxInFlight(0))
        .hasMessage("webhook http://h/: maxInFlight must be between 1 and 1024, was 0");
    assertThatThrownBy(() -> LaneAlerts.builder().saturatedFor(Duration.ofSeconds(-1)))
        .hasMessage("lanes alerts: saturatedFor must be between PT0S and PT24H, was PT-1S");
    assertThatThrownBy(() -> LaneAlerts.builder().rejectionsPerSecond(Double.NaN, Duration.ofMinutes(1)))
        .hasMessage("lanes alerts: rejectionsPerSecond must be a finite number ≥ 0, was NaN");
    assertThatThrownBy(() -> LaneAlerts.builder().checkInterval(Duration.ofMillis(1)))
        .hasMessage("lanes alerts: checkInterval must be between PT0.01S and PT24H, was PT0.001S");
    assertThatThrownBy(() -> LaneAlerts.builder().silence(Duration.ofMinutes(1)).silence(Duration.ofMinutes(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("lanes alerts: silence was already set to PT1M; refused PT2M");
    assertThatThrownBy(() -> LaneAlerts.builder().manualChecks().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no sink");
  }
}
