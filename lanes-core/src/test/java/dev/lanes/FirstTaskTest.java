package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first task in a JVM does not load JFR's event machinery when no recording runs (it used to
 * load 116 {@code jdk.jfr} classes, about 200 ms, inside the task's run time), and a recording
 * started later still gets lanes' events. Each case runs in its own JVM, since another test in
 * this one may already have started Flight Recorder.
 */
class FirstTaskTest {

  @Test
  void theFirstTaskLoadsNoJfrEventClassesWhenNothingRecords() throws Exception {
    List<String> out = probe();
    List<String> beforeTheTaskEnded = out.subList(0, indexOf(out, "probe first-task-done"));
    assertThat(beforeTheTaskEnded).noneMatch(l -> l.contains(" jdk.jfr.Event "))
        .noneMatch(l -> l.contains("LaneEvents$TaskEvent"))
        .noneMatch(l -> l.contains("jdk.jfr.internal"));
    assertThat(out).contains("probe result=ada");
  }

  @Test
  void aRecordingStartedAfterTheFirstTaskStillGetsTaskEvents() throws Exception {
    List<String> out = probe("record-after");
    assertThat(out).as(String.join("\n", out)).contains("probe task_events=1");
  }

  private static int indexOf(List<String> lines, String line) {
    int i = lines.indexOf(line);
    assertThat(i).as(String.join("\n", lines)).isNotNegative();
    return i;
  }

  private static List<String> probe(String... args) throws Exception {
    Work.JvmRun run = Work.runJvm(List.of("-Xlog:class+load=info:stdout"), FirstTaskProbe.class, args);
    assertThat(run.exit()).as(run.output()).isZero();
    return run.lines();
  }
}
