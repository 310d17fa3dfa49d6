package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lanes.LaneStats;
import dev.lanes.redis.harness.RedisServerProcess;
import dev.lanes.testkit.HeadlessChromium;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./lanes serve --redis URI --shared-cap 2}: /call waits for a global permit on a private
 * redis-server, /stats.json carries the shared cap's figures, and the live page (headless Chromium)
 * shows them, with the wait for a permit apart from the lane's own.
 */
class SharedCapLivePageTest {

  private static final int CALLS = 6;
  private static final int CAP = 2;
  private static final long CALL_MS = 100;

  private static final Pattern ROW = Pattern.compile("<tr data-shared=\"([^\"]+)\">(.*?)</tr>");
  private static final Pattern CELL = Pattern.compile("<td class=\"([^\"]+)\">([^<]*)</td>");

  @Test
  void callsWaitForASharedPermitAndThePageShowsTheSharedCap(@TempDir Path tmp) throws Exception {
    HeadlessChromium chromium = HeadlessChromium.find();
    try (RedisServerProcess redis = RedisServerProcess.start();
        DemoServer server = DemoServer.start(
            new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 2, 100, redis.uri(), CAP));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      // More calls at once than the shared cap: the lane (cap 100) would run them all, the shared cap runs 2.
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        calls.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.url() + "/call?ms=" + CALL_MS)).build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> c : calls) {
        HttpResponse<String> r = c.get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
          server.lanes().lane("call").stats().sinceStart().runTime().count() == CALLS);

      String json = client.send(HttpRequest.newBuilder(URI.create(server.url() + "/stats.json")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(json).contains("\"shared\":[{\"name\":\"call\",\"health\":\"GLOBAL\",\"cap\":" + CAP + ",")
          .containsPattern("\"permitsGranted\":\\d+,").contains("\"refused\":0,");

      String dom = chromium.dumpDom(server.url() + "/", tmp, 5000).output();
      Matcher r = ROW.matcher(dom);
      if (!r.find()) {
        fail("no shared-cap row in the rendered page:\n" + dom);
      }
      assertThat(r.group(1)).isEqualTo("call");
      Map<String, String> cells = new HashMap<>();
      Matcher c = CELL.matcher(r.group(2));
      while (c.find()) {
        cells.put(c.group(1), c.group(2));
      }
      assertThat(cells.get("cap")).isEqualTo(String.valueOf(CAP));
      // A grant a worker found no call for is released and granted again: at least one per call.
      assertThat(Integer.parseInt(cells.get("granted"))).isGreaterThanOrEqualTo(CALLS);
      assertThat(cells.get("here")).isEqualTo("0");
      assertThat(cells.get("health")).isEqualTo("GLOBAL");
      // Six calls through two permits: the last two waited for two calls before them, in the lane's
      // queue (the shared cap is its gate), and the page shows the lane's figure.
      LaneStats call = server.lanes().lane("call").stats();
      assertThat(call.sinceStart().queueWait().p99()).isGreaterThanOrEqualTo(
          TimeUnit.MILLISECONDS.toNanos(CALL_MS));
      assertThat(server.sharedStats().refused()).isZero();
      assertThat(dom).contains("<div id=\"shared-box\">");
    }
  }
}
