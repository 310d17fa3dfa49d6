package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.shares.PartitionStats;
import dev.lanes.shares.PriorityShares;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The README's "Priority shares" {@code application.yml} block, written verbatim to a file that
 * Spring Boot loads as its configuration, starts a Boot application on the embedded Tomcat whose
 * shares are as the README says, visible in {@code /actuator/lanes} and {@code /actuator/prometheus}.
 */
class ReadmeSharesYamlTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @Test
  @Timeout(120)
  void theReadmesSharesBlockStartsAsWritten(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    Matcher block = Pattern.compile("## Priority shares\n.*?```yaml\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find()).as("a yaml block in the README's Priority shares section").isTrue();
    Path yaml = Files.writeString(dir.resolve("application.yml"), block.group(1));
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
            .properties("spring.config.location=file:" + yaml, "server.port=0").run();
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      PriorityShares db = context.getBean(LanesShares.class).get("db").orElseThrow();
      assertThat(db.total()).isEqualTo(10);
      assertThat(db.stats().partitions()).extracting(PartitionStats::partition, PartitionStats::guaranteed)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("checkout", 7),
              org.assertj.core.groups.Tuple.tuple("reports", 3));
      Lanes lanes = context.getBean(Lanes.class);
      assertThat(lanes.lane("db").submit(() -> "ran").get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ran");
      // The task went through checkout's gate. A pass may also be taken and given back unused (two
      // workers saw the task; LaneGate's contract), so passes are at least one, and all back.
      assertThat(db.stats().partition("checkout").granted()).isPositive();
      org.awaitility.Awaitility.await().atMost(PATIENCE).until(() -> db.stats().partition("checkout").held() == 0);
      assertThat(lanes.lane("reports").queueCapacity()).isEqualTo(50);

      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      JsonNode all = JsonMapper.builder().build().readTree(get(http, port, "/actuator/lanes"));
      assertThat(all.get("db").get("share").get("partition").asString()).isEqualTo("checkout");
      assertThat(all.get("db").get("share").get("mayRunNow").asInt()).isEqualTo(10);
      assertThat(all.get("reports").get("share").get("guaranteed").asInt()).isEqualTo(3);
      assertThat(get(http, port, "/actuator/prometheus"))
          .contains("lanes_shares_partition_guaranteed{partition=\"reports\",share=\"db\"} 3.0")
          .contains("lanes_shares_partition_granted_total{partition=\"checkout\",share=\"db\"} "
              + (double) db.stats().partition("checkout").granted());
    }
  }

  private static String get(HttpClient http, int port, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    return r.body();
  }
}
