package dev.lanes.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabCommandLineTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return LabMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void anUnknownFlagGetsAOneLineErrorThenTheUsageAndExitTwo() {
    assertThat(run("--bogus")).isEqualTo(2);
    String[] lines = err.toString(StandardCharsets.UTF_8).split("\n");
    assertThat(lines[0]).isEqualTo("lanes lab: Unknown option: '--bogus'");
    assertThat(lines[1]).startsWith("lanes lab [");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void aBadSeedIsRefused() {
    assertThat(run("--seed", "soon")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("lanes lab: Invalid value for option '--seed'");
  }

  @Test
  void anUnknownExperimentInOnlyIsRefusedWithTheKnownIds() {
    assertThat(run("--only", "E1,E42")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).split("\n")[0])
        .isEqualTo("lanes lab: unknown experiment 'E42' in --only; known: E1,E2,E3,E4,E5,E6,E7,E8,E9");
  }

  @Test
  void aReportFolderThatIsAFileIsRefusedBeforeAnythingRuns(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
    assertThat(run("--only", "E4", "--out", file.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("lanes lab: cannot use '" + file);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void listShowsEveryExperimentWithItsQuestion() {
    assertThat(run("--list")).isZero();
    String listed = out.toString(StandardCharsets.UTF_8);
    for (Experiment e : Experiments.all()) {
      assertThat(listed).contains(e.id() + "  " + e.question());
    }
  }

  @Test
  void helpDescribesEveryOption() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--quick", "--only", "--list", "--out", "--seed", "--help", "summary.json");
  }
}
