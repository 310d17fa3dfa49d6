package dev.lanes.stages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Compiles and runs the staged-pipeline example in the root README exactly as written. */
class ReadmeStagesExampleTest {

  @Test
  void theReadmeStagesExampleCompilesRunsAndNamesTheStoreStage() throws Exception {
    String printed =
        ReadmeExample.run(Path.of("../README.md"), "<!-- stages-example -->", "StagesExample");
    System.out.print(printed); // into this test's output file, for a reader of the report
    // What the README says the program prints.
    assertThat(printed).startsWith("RECORD-0 saved");
    assertThat(printed.lines().filter(l -> l.startsWith("fetch ") || l.startsWith("parse ")
        || l.startsWith("store ")).count()).isEqualTo(3);
    assertThat(printed).contains("end to end: 20 of 20 items completed, 0 failed, 0 rejected");
    assertThat(printed).contains("bottleneck: store (queue wait)");
  }
}
