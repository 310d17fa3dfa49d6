package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lanes.LaneStats;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.lanes.testkit.HeadlessChromium;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the live page in headless Chromium (Debian's {@code chromium}; {@code ./lanes test} installs
 * it) and checks that the lane table shows the server's real figures. Without Chromium this test
 * fails, on purpose: a skipped browser test would hide a broken page.
 */
class LivePageBrowserTest {

  private static final int FAST_REQUESTS = 5;
  private static final int SLOW_REQUESTS = 3;
  private static final long SLOW_MS = 20;

  private static final int NOISY_THREADS = 2;
  private static final int NOISY_SLOW_REQUESTS = 8;
  /** Long enough that the fast requests are still stuck when the series is read twice, a second apart. */
  private static final long NOISY_SLOW_MS = 2_500;
  private static final int NOISY_FAST_REQUESTS = 4;

  private static final Pattern CHART = Pattern.compile("data-chart=\"([^\"]+)\" data-points=\"(\\d+)\"");
  private static final Pattern ROW = Pattern.compile("<tr data-lane=\"([^\"]+)\">(.*?)</tr>");
  private static final Pattern CELL = Pattern.compile("<td class=\"([^\"]+)\">([^<]*)</td>");

  @Test
  void theLaneTableShowsRealFigures(@TempDir Path tmp) throws Exception {
    HeadlessChromium chromium = HeadlessChromium.find();
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 100));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < FAST_REQUESTS; i++) {
        assertThat(get(client, server.url() + "/fast")).isEqualTo(200);
      }
      for (int i = 0; i < SLOW_REQUESTS; i++) {
        assertThat(get(client, server.url() + "/slow?ms=" + SLOW_MS)).isEqualTo(200);
      }
      // Every task's figures are in before the browser looks.
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
          server.lanes().lane("slow").stats().sinceStart().runTime().count() == SLOW_REQUESTS
              && server.lanes().lane("fast").stats().sinceStart().runTime().count() == FAST_REQUESTS);

      String dom = dumpDom(chromium, server.url() + "/", tmp);
      Map<String, Map<String, String>> rows = laneRows(dom);
      assertThat(rows.keySet()).as("lane rows in the rendered page").containsExactly("fast", "slow", "cpu", "call", "admin", "http");
      assertThat(dom).contains("data-state=\"ok\"");

      Map<String, String> fast = rows.get("fast");
      Map<String, String> slow = rows.get("slow");
      assertThat(fast.get("completed")).isEqualTo(String.valueOf(FAST_REQUESTS));
      assertThat(slow.get("completed")).isEqualTo(String.valueOf(SLOW_REQUESTS));
      assertThat(fast.get("kind")).isEqualTo("blocking");
      // A slow request slept SLOW_MS, so its run time cannot be shorter; the wait sits beside it.
      assertThat(Double.parseDouble(slow.get("run-p50 run"))).isGreaterThanOrEqualTo(SLOW_MS);
      assertThat(slow.get("wait-p50 wait")).matches("\\d+(\\.\\d+)?");
      // The page shows the lane's own figures (since start, stable once the lane is idle).
      LaneStats s = server.lanes().lane("slow").stats();
      assertThat(Double.parseDouble(slow.get("run-p50 run")))
          .isCloseTo(s.sinceStart().runTime().p50Millis(), org.assertj.core.data.Offset.offset(0.51));
      assertThat(Double.parseDouble(fast.get("wait-p50 wait")))
          .isCloseTo(server.lanes().lane("fast").stats().sinceStart().queueWait().p50Millis(),
              org.assertj.core.data.Offset.offset(0.51));
      // Lanes with no tasks yet show a dash, not a made-up zero.
      assertThat(rows.get("cpu").get("run-p50 run")).isEqualTo("-");
    }
  }

  /**
   * A noisy neighbour on the shared pool, as {@code ./lanes load} makes it: slow requests fill the
   * pool's threads, fast ones queue behind them. While the fast requests are still stuck, the
   * series the page draws shows them waiting, with an age that rises; the page renders every chart
   * with data; and screenshots are kept in target/screenshots.
   */
  @Test
  @SuppressWarnings("unchecked")
  void duringANoisyNeighbourTheChartsShowFastRequestsWaitingBeforeTheyEnd(@TempDir Path tmp) throws Exception {
    HeadlessChromium chromium = HeadlessChromium.find();
    List<java.util.concurrent.CompletableFuture<HttpResponse<Void>>> slow = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<HttpResponse<Void>>> fast = new ArrayList<>();
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.SHARED, "127.0.0.1", 0,
            NOISY_THREADS, 100));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < NOISY_SLOW_REQUESTS; i++) {
        slow.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.url() + "/slow?ms=" + NOISY_SLOW_MS)).build(),
            HttpResponse.BodyHandlers.discarding()));
      }
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
          .until(() -> server.lanes().lane("shared").stats().running() == NOISY_THREADS);
      for (int i = 0; i < NOISY_FAST_REQUESTS; i++) {
        fast.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.url() + "/fast")).build(),
            HttpResponse.BodyHandlers.discarding()));
      }
      // Two samples of the series while every fast request is still stuck: its age rises.
      List<Double> ages = new ArrayList<>();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).pollInterval(java.time.Duration.ofMillis(200))
          .until(() -> {
            List<Object> samples = (List<Object>) ((Map<String, Object>) Json.parse(
                body(client, server.url() + "/series.json"))).get("samples");
            if (samples.isEmpty()) {
              return false; // the first sample is taken a second after the start
            }
            Map<String, Object> last = (Map<String, Object>) ((Map<String, Object>)
                ((Map<String, Object>) samples.getLast()).get("endpoints")).get("fast");
            boolean stuck = fast.stream().noneMatch(java.util.concurrent.CompletableFuture::isDone);
            double waiting = ((Number) last.get("waiting")).doubleValue();
            if (stuck && waiting == NOISY_FAST_REQUESTS
                && (ages.isEmpty() || ((Number) last.get("oldestWaitingMs")).doubleValue() != ages.getLast().doubleValue())) {
              ages.add(((Number) last.get("oldestWaitingMs")).doubleValue());
            }
            return ages.size() >= 2;
          });
      assertThat(fast).as("the fast requests were still waiting").noneMatch(java.util.concurrent.CompletableFuture::isDone);
      assertThat(ages.get(1)).as("oldest waiting age, two samples apart").isGreaterThan(ages.get(0));
      assertThat(ages.get(0)).isPositive();

      String dom = dumpDom(chromium, server.url() + "/", tmp);
      screenshot(chromium, server.url() + "/", tmp, "live-page-noisy-neighbour-shared.png");
      Matcher charts = CHART.matcher(dom);
      Map<String, Integer> points = new java.util.LinkedHashMap<>();
      while (charts.find()) {
        points.put(charts.group(1), Integer.parseInt(charts.group(2)));
      }
      assertThat(points).as("charts drawn").containsKeys("ep-time-fast", "ep-waiting-fast", "ep-time-slow",
          "ep-waiting-slow", "lanes-queued", "lanes-oldest");
      for (String chart : List.of("ep-time-fast", "ep-waiting-fast", "ep-time-slow", "ep-waiting-slow",
          "lanes-queued", "lanes-oldest")) {
        assertThat(points.get(chart)).as(chart + " has data").isPositive();
      }
      assertThat(dom).contains("<canvas");
      Matcher peak = Pattern.compile("data-peak-oldest-ms=\"([0-9.]+)\"").matcher(
          dom.substring(dom.indexOf("data-endpoint=\"fast\"")));
      assertThat(peak.find()).isTrue();
      assertThat(Double.parseDouble(peak.group(1))).as("the fast endpoint's oldest-waiting peak on the page")
          .isGreaterThanOrEqualTo(ages.get(1));
      // Let every request finish before the server closes (a join, not a sleep).
      java.util.concurrent.CompletableFuture.allOf(fast.toArray(new java.util.concurrent.CompletableFuture[0]))
          .get(60, TimeUnit.SECONDS);
      java.util.concurrent.CompletableFuture.allOf(slow.toArray(new java.util.concurrent.CompletableFuture[0]))
          .get(60, TimeUnit.SECONDS);
      screenshot(chromium, server.url() + "/", tmp, "live-page-after-the-burst.png");
    }
  }


  private static String body(HttpClient client, String url) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }



  private static Map<String, Map<String, String>> laneRows(String dom) {
    Map<String, Map<String, String>> rows = new java.util.LinkedHashMap<>();
    Matcher r = ROW.matcher(dom);
    while (r.find()) {
      Map<String, String> cells = new HashMap<>();
      Matcher c = CELL.matcher(r.group(2));
      while (c.find()) {
        cells.put(c.group(1), c.group(2));
      }
      rows.put(r.group(1), cells);
    }
    return rows;
  }

  private static int get(HttpClient client, String url) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static void screenshot(HeadlessChromium chromium, String url, Path tmp, String name)
      throws Exception {
    Path png = Path.of("target", "screenshots", name);
    HeadlessChromium.Run run = chromium.screenshot(url, tmp, png, 1280, 2400, 3000);
    assertThat(png).as("screenshot " + name + "; chromium said:\n" + run.stderrTail()).exists();
    assertThat(Files.size(png)).isGreaterThan(10_000);
  }

  private static String dumpDom(HeadlessChromium chromium, String url, Path tmp) throws Exception {
    HeadlessChromium.Run run = chromium.dumpDom(url, tmp, 5000);
    if (run.exit() != 0) {
      fail("chromium exited with " + run.exit() + "; stderr:\n" + run.stderrTail());
    }
    if (!run.output().contains("<table id=\"lanes\">")) {
      fail("chromium's DOM has no lane table; stderr:\n" + run.stderrTail() + "\nDOM:\n" + run.output());
    }
    return run.output();
  }
}
