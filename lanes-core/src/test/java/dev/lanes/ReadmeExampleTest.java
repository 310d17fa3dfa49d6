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

  @Test
  void theLiveChangeExamplePrintsWhatTheReadmeSays() throws Exception {
    String readme = java.nio.file.Files.readString(Path.of("../README.md"));
    String printed =
        ReadmeExample.run(Path.of("../README.md"), "<!-- readme-live-change -->", "LiveChange");
    int at = readme.indexOf("<!-- readme-live-change -->");
    int from = readme.indexOf("prints\n\n```\n", at) + "prints\n\n```\n".length();
    String promised = readme.substring(from, readme.indexOf("```", from));
    assertThat(printed.strip()).isEqualTo(promised.strip());
  }
}
