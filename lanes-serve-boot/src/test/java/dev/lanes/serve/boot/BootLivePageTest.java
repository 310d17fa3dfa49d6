package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lanes.Lanes;
import dev.lanes.testkit.HeadlessChromium;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * lanes-serve's live page on the Spring Boot demo: the page, uPlot and {@code /series.json} are
 * served, the series has samples of the endpoints' requests, and headless Chromium (Debian's
 * {@code chromium}; {@code ./lanes test} installs it) renders the page with the lanes' and the
 * endpoints' real figures. Without Chromium this test fails; it does not skip.
 */
class BootLivePageTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final int FAST_REQUESTS = 5;
  private static final int SLOW_REQUESTS = 3;
  private static final int SLOW_MS = 20;
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Pattern ROW = Pattern.compile("<tr data-(lane|label)=\"([^\"]+)\">(.*?)</tr>");
  private static final Pattern CELL = Pattern.compile("<td class=\"([^\"]+)\">([^<]*)</td>");

  @ParameterizedTest(name = "--server {0} --mode lanes")
  @ValueSource(strings = {"tomcat", "tomcat-virtual", "netty"})
  void thePageAndItsSeriesShowTheLanesAndEndpoints(String server, @TempDir Path tmp) throws Exception {
    BootDemo o = new BootDemo();
    new CommandLine(o).parseArgs("--server", server, "--mode", "lanes", "--port", "0");
    o.validate();
    try (ConfigurableApplicationContext c = BootDemo.start(o);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      String url = "http://127.0.0.1:" + c.getEnvironment().getProperty("local.server.port");
      assertThat(get(client, url + "/").body()).contains("<script src=\"/uplot.js\"></script>");
      HttpResponse<String> uplot = get(client, url + "/uplot.js");
      assertThat(uplot.statusCode()).isEqualTo(200);
      assertThat(uplot.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/javascript"));
      assertThat(uplot.body()).contains("uPlot");
      assertThat(get(client, url + "/uplot.css").statusCode()).isEqualTo(200);

      for (int i = 0; i < FAST_REQUESTS; i++) {
        assertThat(get(client, url + "/fast").statusCode()).isEqualTo(200);
      }
      for (int i = 0; i < SLOW_REQUESTS; i++) {
        assertThat(get(client, url + "/slow?ms=" + SLOW_MS).statusCode()).isEqualTo(200);
      }
      Lanes lanes = c.getBean(Lanes.class);
      Awaitility.await().atMost(PATIENCE).until(() ->
          lanes.lane("fast").stats().sinceStart().runTime().count() == FAST_REQUESTS
              && lanes.lane("slow").stats().sinceStart().runTime().count() == SLOW_REQUESTS);

      // The series (sampled once a second) counts the requests that ended, per endpoint.
      Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
        long fast = 0;
        long slow = 0;
        for (JsonNode s : JSON.readTree(get(client, url + "/series.json").body()).get("samples")) {
          fast += s.get("endpoints").get("fast").get("ended").asLong();
          slow += s.get("endpoints").get("slow").get("ended").asLong();
        }
        return fast == FAST_REQUESTS && slow == SLOW_REQUESTS;
      });
      JsonNode last = lastSample(client, url);
      assertThat(last.get("lanes").propertyNames()).contains("fast", "slow", "cpu");

      Map<String, Map<String, String>> rows = rows(dumpDom(url + "/", tmp));
      assertThat(rows.keySet()).contains("lane fast", "lane slow", "lane cpu", "label fast", "label slow", "label cpu");
      assertThat(rows.get("lane fast").get("completed")).isEqualTo(String.valueOf(FAST_REQUESTS));
      assertThat(rows.get("label fast").get("tasks")).isEqualTo(String.valueOf(FAST_REQUESTS));
      assertThat(rows.get("label slow").get("tasks")).isEqualTo(String.valueOf(SLOW_REQUESTS));
      // A slow request slept SLOW_MS, so its run time cannot be shorter.
      assertThat(Double.parseDouble(rows.get("label slow").get("run-p50 run"))).isGreaterThanOrEqualTo(SLOW_MS);
      assertThat(rows.get("label cpu").get("tasks")).isEqualTo("0");
    }
  }

  private static JsonNode lastSample(HttpClient client, String url) throws Exception {
    JsonNode samples = JSON.readTree(get(client, url + "/series.json").body()).get("samples");
    return samples.get(samples.size() - 1);
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(PATIENCE).build(),
        HttpResponse.BodyHandlers.ofString());
  }



  /** Table rows by "lane NAME" or "label NAME", each cell by its class. */
  private static Map<String, Map<String, String>> rows(String dom) {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    Matcher r = ROW.matcher(dom);
    while (r.find()) {
      Map<String, String> cells = new LinkedHashMap<>();
      Matcher cell = CELL.matcher(r.group(3));
      while (cell.find()) {
        cells.put(cell.group(1), cell.group(2));
      }
      rows.put(r.group(1) + " " + r.group(2), cells);
    }
    return rows;
  }
  private static String dumpDom(String url, Path tmp) throws Exception {
    HeadlessChromium.Run run = HeadlessChromium.find().dumpDom(url, tmp, 5000);
    if (run.exit() != 0 || !run.output().contains("data-state=\"ok\"")) {
      fail("chromium did not render the page with figures (exit " + run.exit() + "); stderr:\n"
          + run.stderrTail() + "\nDOM:\n" + run.output());
    }
    return run.output();
  }
}
