package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.redis.harness.RedisServerProcess;
import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Compiles and runs the example of lanes-redis/README.md exactly as written, on a private Redis. */
class ReadmeExampleTest {

  @Test
  void theReadmeExampleCompilesRunsAndKeepsTheSharedCap() throws Exception {
    String printed;
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      printed = ReadmeExample.run(
          Path.of("README.md"), "<!-- readme-example -->", "Example", redis.uri());
    }
    Matcher m = Pattern.compile("^40 quotes, at most (\\d+) at once \\(shared cap 4, lane 10\\), queue wait p99 "
        + "[0-9.]+ ms, health GLOBAL$", Pattern.MULTILINE).matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as("most at once").isBetween(1, 4);
  }
}
