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
  void anUnknownFlagGetsOneLineWithAHintAndExitTwo() {
    assertThat(run("--bogus")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("lanes lab: Unknown option: '--bogus'; try --help\n");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void aMissingValueIsOneLineToo() {
    assertThat(run("--only")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines()).singleElement().asString()
        .startsWith("lanes lab: Missing required parameter").endsWith("try --help");
  }

  @Test
  void aBadSeedIsRefused() {
    assertThat(run("--seed", "soon")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("lanes lab: Invalid value for option '--seed'");
  }

  @Test
  void anUnknownExperimentInOnlyIsRefusedWithTheKnownIds() {
    assertThat(run("--only", "E1,E42")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("lanes lab: unknown experiment 'E42' in --only; known: "
            + String.join(",", Experiments.all().stream().map(Experiment::id).toList()) + "; try --list\n");
    assertThat(Experiments.all().stream().map(Experiment::id).toList()).startsWith("E1", "E2", "E3").contains("E13", "E14");
  }

  @Test
  void aReportFolderThatIsAFileIsRefusedBeforeAnythingRuns(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
    assertThat(run("--only", "E4", "--out", file.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("lanes lab: cannot use '" + file)
        .endsWith("; try another --out\n");
    assertThat(err.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
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

  @Test
  void anExperimentThatThrowsIsAnErrorNotAClaimThatFailed(@TempDir Path dir) throws Exception {
    Experiment broken = new Experiment() {
      @Override
      public String id() {
        return "E6";
      }

      @Override
      public String question() {
        return "Does it run?";
      }

      @Override
      public ExperimentResult run(LabContext ctx) {
        throw new IllegalStateException("no thread could start");
      }
    };
    int status = new Lab(true, 1, dir, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), 0).run(java.util.List.of(broken));
    assertThat(status).isEqualTo(1);
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(printed).contains("E6   ERROR").contains("no thread could start")
        .contains("0 of 0 claims held on this machine; 1 failed to run");
  }
}
