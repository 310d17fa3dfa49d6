package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Compiles and runs the adaptive-limit example in the root README exactly as written. */
class ReadmeAdaptiveExampleTest {
  @Test
  void theReadmeAdaptiveExampleCompilesRunsAndDoesWhatTheReadmeSays() throws Exception {
    String printed = ReadmeExample.run(
        Path.of("../README.md"), "<!-- adaptive-example -->", "AdaptiveExample");
    // What the README says it prints: the limit doubles from 2 while calls wait, is cut once more
    // calls are in flight than the partner serves, and is the lane's concurrency at the end.
    assertThat(printed).startsWith("PROBE 2 -> 4").contains("CUT ");
    Matcher m = Pattern.compile("limit (\\d+), lane concurrency (\\d+)").matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    assertThat(m.group(1)).isEqualTo(m.group(2));
    assertThat(Integer.parseInt(m.group(1))).isBetween(1, 64);
  }
}
