package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Compiles and runs the example in the root README exactly as written. */
class ReadmeExampleTest {
  @Test
  void theReadmeExampleCompilesAndRuns() throws Exception {
    String printed =
        ReadmeExample.run(Path.of("../README.md"), "<!-- readme-example -->", "Example");
    assertThat(printed).contains("score 3").contains("compute").contains("partner-api").contains("wait p99");
    assertThat(printed.lines().filter(l -> l.startsWith("db ")).findFirst()).isPresent();
  }
}
