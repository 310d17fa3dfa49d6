package dev.lanes.lab.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * E7 detects the seed's four nested-submission shapes and raises nothing in its busy shapes, both
 * in this JVM (the build's surefire opens java.util.concurrent: every cycle proven and its waits
 * failed) and in a plain {@code java -cp} JVM without {@code --add-opens} (the runAsync/join cycles
 * suspected, nothing failed on a suspicion), and its verdict says which.
 */
class E7NestedSubmissionTest {
  private static final List<String> SHAPES =
      List.of("1_thread", "9_threads", "runasync_1_thread", "runasync_9_threads");

  @Test
  void withTheOpensEveryShapeIsProvenAndNoBusyShapeRaisesAnything() throws Exception {
    try (LabContext ctx = new LabContext(true, 1, s -> {})) {
      ExperimentResult r = new E7NestedSubmission().run(ctx);
      Map<String, Object> f = r.figures();
      assertThat(f.get("opens")).isEqualTo(true);
      for (String n : SHAPES) {
        assertThat(f.get("proven_" + n)).as(n + ": " + r.verdict()).isEqualTo(true);
        assertThat(f.get("waits_failed_" + n)).as(n + ": " + r.verdict()).isEqualTo(true);
      }
      assertThat(((Number) f.get("false_alarms")).intValue()).as(r.verdict()).isZero();
      assertThat(r.holds()).as(r.verdict()).isTrue();
      assertThat(r.verdict()).doesNotContain("suspected", "NOT");
    }
  }

  @Test
  void withoutTheOpensRunAsyncCyclesAreSuspectedAndNothingIsFailed() throws Exception {
    Map<String, String> out = runWithoutOpens();
    String all = out.get("output");
    assertThat(out.get("exit")).as(all).isEqualTo("0");
    assertThat(out.get("opens")).as(all).isEqualTo("false");
    for (String n : List.of("1_thread", "9_threads")) {
      assertThat(out.get("proven_" + n)).as(n + all).isEqualTo("true");
    }
    for (String n : List.of("runasync_1_thread", "runasync_9_threads")) {
      assertThat(out.get("suspected_" + n)).as(n + all).isEqualTo("true");
      assertThat(out.get("proven_" + n)).as(n + all).isEqualTo("false");
      assertThat(out.get("waits_failed_" + n)).as(n + all).isEqualTo("false");
    }
    assertThat(out.get("false_alarms")).as(all).isEqualTo("0");
    assertThat(out.get("holds")).as(all).isEqualTo("true");
    assertThat(all).contains("as suspected", "cannot be proven");
  }

  private static Map<String, String> runWithoutOpens() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), E7Probe.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (var in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("E7Probe did not finish:\n" + output);
    }
    Map<String, String> out = new HashMap<>();
    for (String line : output.lines().toList()) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.substring(0, eq).contains(" ")) {
        out.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    out.put("exit", Integer.toString(p.exitValue()));
    out.put("output", output);
    return out;
  }
}
