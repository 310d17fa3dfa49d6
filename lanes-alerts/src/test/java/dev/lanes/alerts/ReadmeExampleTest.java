package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The README's example, compiled and run as written, against a webhook receiver on loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadmeExampleTest {

  @Test
  void theReadmeExamplePrintsWhatTheReadmeSaysAndPostsOneSlackAlert() throws Exception {
    try (Hook hook = Hook.start(); LogCapture log = new LogCapture()) {
      String out = ReadmeExample.run(Path.of("README.md"), "<!-- alerts-example -->",
          "AlertsExample", hook.uri().toString());
      assertThat(out).isEqualTo("49 refused; alerts sent: 1\n");
      // close() waited for the webhook's request: it has arrived.
      assertThat(hook.bodies).hasSize(1);
      JsonNode body = JsonMapper.builder().build().readTree(hook.bodies.get(0));
      // The 49 refusals came in the little time watched so far: their rate over it, and over the
      // whole window (what the rule compares).
      assertThat(body.get("text").asString()).containsPattern(
          "^lane \"db\" refused or dropped 49 tasks in the [0-9.]+ [mµn]?s watched so far"
              + " \\([0-9.]+/s; 4\\.90/s over the 10\\.00 s window, alert above 1\\.00/s\\):"
              + " queue_full 49$");
      assertThat(log.messages()).singleElement().asString()
          // 2 tasks held: running 1 and queued 1, or both queued if the first has not started
          .containsPattern("in flight [01] of concurrency 1; queued [12] of capacity 1")
          .contains(
              "counts: submitted 51, completed 0, failed 0, rejected 49 (queue_full 49)",
              "worker stacks:", "\"db-1\"");
      System.out.println(log.messages().get(0)); // the README shows this alert
    }
  }
}
