package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
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

/**
 * The README's {@code application.yml} block, written verbatim to a file that Spring Boot loads as
 * its configuration, starts a Boot application on the real embedded Tomcat as the README says
 * (issue #26: the README had no YAML, and its end-of-line comments broke the properties).
 */
class ReadmeYamlTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @Test
  @Timeout(120)
  void theReadmesYamlBlockStartsAsWritten(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    Matcher block = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find()).as("a yaml block in the starter's README").isTrue();
    Path yaml = Files.writeString(dir.resolve("application.yml"), block.group(1));
    try (ConfigurableApplicationContext context =
            new SpringApplicationBuilder(TestApplication.class)
                .properties("spring.config.location=file:" + yaml, "server.port=0")
                .run();
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      Lanes lanes = context.getBean(Lanes.class);
      assertThat(lanes.names()).containsExactly("http", "db", "partner-api");
      assertThat(lanes.lane("db").concurrency()).isEqualTo(16);
      assertThat(lanes.lane("db").queueCapacity()).isEqualTo(500);
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      // lanes.server.lane: the request runs in lane "http" (the comment after the value is a comment).
      HttpResponse<String> where = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/where")).timeout(PATIENCE).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(where.body()).startsWith("http-");
      // lanes.task-executor: @Async without a name runs in lane "partner-api".
      TestApplication.AsyncWork work = context.getBean(TestApplication.AsyncWork.class);
      assertThat(work.onDefault().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).startsWith("partner-api-");
      // The actuator exposure line works too.
      HttpResponse<String> endpoint = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/lanes")).timeout(PATIENCE).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(endpoint.statusCode()).isEqualTo(200);
      assertThat(endpoint.body()).contains("\"partner-api\"");
    }
  }
}
