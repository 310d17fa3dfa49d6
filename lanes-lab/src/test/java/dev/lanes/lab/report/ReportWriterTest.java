package dev.lanes.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

  @TempDir Path dir;

  private static Experiment experiment(String id) {
    return new Experiment() {
      @Override
      public String id() {
        return id;
      }

      @Override
      public String question() {
        return "Question " + id + "?";
      }

      @Override
      public ExperimentResult run(LabContext ctx) {
        throw new UnsupportedOperationException();
      }
    };
  }

  private static ExperimentResult result(String id) {
    return new ExperimentResult(experiment(id)).figure("n", 1L).verdict(true, "fine");
  }

  @Test
  void aSecondRunRemovesTheFirstRunsFilesAndNothingElse() throws Exception {
    Files.writeString(dir.resolve("notes.txt"), "mine");
    Files.writeString(dir.resolve("E5-mine.txt"), "mine too");
    new ReportWriter(dir).write(true, 1, 2, 10, List.of(result("E2"), result("E5")));
    assertThat(dir.resolve("E2.csv")).exists();
    new ReportWriter(dir).write(true, 1, 2, 10, List.of(result("E5")));
    assertThat(dir.resolve("E2.csv")).doesNotExist();
    assertThat(dir.resolve("E5.csv")).exists();
    assertThat(dir.resolve("index.html")).exists();
    assertThat(dir.resolve("notes.txt")).hasContent("mine");
    assertThat(dir.resolve("E5-mine.txt")).hasContent("mine too");
  }

  @Test
  void aManifestNamingOtherFilesRemovesOnlyTheLabsOwnNames() throws Exception {
    Files.writeString(dir.resolve("precious.doc"), "keep");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/E1.csv"), "keep");
    Files.write(dir.resolve(ReportWriter.MANIFEST), List.of("precious.doc", "../outside.csv", "sub/E1.csv"));
    new ReportWriter(dir).write(true, 1, 2, 10, List.of(result("E1")));
    assertThat(dir.resolve("precious.doc")).exists();
    assertThat(dir.resolve("sub/E1.csv")).exists();
  }

  @Test
  void aFolderWithoutAManifestKeepsItsFiles() throws Exception {
    Files.writeString(dir.resolve("E9.csv"), "someone's own");
    new ReportWriter(dir).write(true, 1, 2, 10, List.of(result("E1")));
    assertThat(dir.resolve("E9.csv")).hasContent("someone's own");
  }

  @Test
  void aCrashedExperimentIsAnErrorWithItsCauseNotAFailedClaim() throws Exception {
    ExperimentResult crashed = ExperimentResult.crashed(experiment("E6"),
        new IllegalStateException("run failed", new OutOfMemoryError("unable to create native thread")));
    new ReportWriter(dir).write(true, 1, 2, 10, List.of(crashed));
    String html = Files.readString(dir.resolve("index.html"));
    assertThat(html).contains("Error: the experiment failed to run.")
        .contains("unable to create native thread").doesNotContain("Does not hold here");
    assertThat(Files.readString(dir.resolve("summary.json"))).contains("\"error\": \"java.lang.IllegalStateException");
  }
}
