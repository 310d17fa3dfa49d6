package dev.lanes.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {

  private static final long SECOND = 1_000_000_000L;
  private static final List<String> IDS = List.of("E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9");

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final AtomicLong now = new AtomicLong();

  @Test
  void withoutATerminalEachStepIsOnePlainLine() throws Exception {
    try (Progress p = new Progress(err, 0, IDS, true, now::get).startRedrawing()) {
      p.start(0);
      p.status("E1 cpu pooled, round 1");
      now.addAndGet(5 * SECOND);
      p.done(0, "holds");
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).doesNotContain("\r");
    assertThat(out.lines()).hasSize(3);
    assertThat(out.lines().toList().get(2)).isEqualTo("lanes lab: [1/9] E1 holds in 5.0 s");
  }

  @Test
  void onATerminalTheLineFitsItsWidth() throws Exception {
    for (int columns : new int[] {40, 80, 200}) {
      bytes.reset();
      try (Progress p = new Progress(err, columns, IDS, false, now::get)) {
        p.start(7);
        p.status("E8 shared pool, a long status that would not fit in forty columns at all");
        assertThat(p.line().length()).isLessThan(columns);
        p.done(7, "does not hold here");
      }
      for (String line : bytes.toString(StandardCharsets.UTF_8).split("[\r\n]")) {
        assertThat(line.length()).as(line).isLessThan(columns);
      }
    }
  }

  @Test
  void theEtaNeverClimbsEvenWhenAnExperimentRunsLong() throws Exception {
    try (Progress p = new Progress(err, 80, IDS, true, now::get)) {
      long previous = Long.MAX_VALUE;
      for (int i = 0; i < IDS.size(); i++) {
        p.start(i);
        // E3 runs ten times longer than typical, the others as typical.
        long secs = Math.round(Progress.TYPICAL_SECONDS.get(IDS.get(i))[0] * (i == 2 ? 10 : 1));
        for (long s = 0; s < secs; s++) {
          now.addAndGet(SECOND);
          long eta = p.etaNanos();
          assertThat(eta).as("ETA at %s after %d s", IDS.get(i), s).isLessThanOrEqualTo(previous);
          previous = eta;
        }
        p.done(i, "holds");
      }
    }
  }

  @Test
  void theFirstEtaIsTheTypicalTotal() throws Exception {
    try (Progress p = new Progress(err, 80, List.of("E4", "E7"), true, now::get)) {
      p.start(0);
      double typical = Progress.TYPICAL_SECONDS.get("E4")[0] + Progress.TYPICAL_SECONDS.get("E7")[0];
      assertThat(p.etaNanos()).isEqualTo((long) (typical * SECOND));
    }
  }
}
