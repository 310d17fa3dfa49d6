package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The control law's invariants, fed directly (no lane, no threads, no clock). */
class ControlLawTest {

  private static final long MS = 1_000_000L;

  private static AdaptiveSettings settings(int min, int max) {
    return AdaptiveSettings.builder().minLimit(min).maxLimit(max).samplesPerDecision(10)
        .probeSamples(4).build();
  }

  /** Feeds a window of samples of {@code runMs}, started at {@code now}; true if a decision is due. */
  private static boolean window(ControlLaw law, int n, long startedAt, double runMs) {
    boolean due = false;
    for (int i = 0; i < n; i++) {
      due = law.add(startedAt, (long) (runMs * MS));
    }
    return due;
  }

  @Test
  void neverLeavesItsBoundsWhateverItIsFed() {
    SplittableRandom rnd = new SplittableRandom(42);
    for (int run = 0; run < 200; run++) {
      int min = 1 + rnd.nextInt(20);
      int max = min + rnd.nextInt(200);
      ControlLaw law = new ControlLaw(settings(min, max), max);
      int limit = min + rnd.nextInt(max - min + 1);
      long now = 0;
      for (int step = 0; step < 500; step++) {
        now += rnd.nextLong(1, 50 * MS);
        long runNanos = (long) (rnd.nextDouble() < 0.1 ? rnd.nextDouble(0, 5_000) * MS : rnd.nextDouble(0, 100) * MS);
        if (law.add(now - runNanos, runNanos)) {
          ControlLaw.Decision d = law.decide(now, limit, rnd.nextInt(limit + 1), rnd.nextInt(100_000));
          assertThat(d.to()).isBetween(min, max);
          limit = d.to();
        }
      }
    }
  }

  @Test
  void noSamplesNoChange() {
    ControlLaw law = new ControlLaw(settings(1, 100), 100);
    ControlLaw.Decision d = law.decide(0, 10, 10, 1_000);
    assertThat(d.changed()).isFalse();
    assertThat(d.samples()).isZero();
    // a window not yet full is not due
    assertThat(window(law, 3, 0, 5)).isFalse();
    assertThat(window(law, 1, 0, 5)).isTrue();
  }

  @Test
  void noGrowthWhenNothingWaits() {
    ControlLaw law = new ControlLaw(settings(1, 100), 100);
    int limit = 10;
    for (int i = 0; i < 100; i++) {
      window(law, 10, i * 10 * MS, 5);
      ControlLaw.Decision d = law.decide(i * 10 * MS + 5 * MS, limit, 7, 0);
      assertThat(d.to()).isLessThanOrEqualTo(limit);
      limit = d.to();
    }
    assertThat(limit).isEqualTo(10); // flat run time: no cut either
  }

  @Test
  void probingGrowsByTheFactorButNeverPastTheDemand() {
    ControlLaw law = new ControlLaw(settings(1, 10_000), 10_000);
    window(law, 4, 0, 50);
    ControlLaw.Decision d = law.decide(50 * MS, 30, 30, 9_970);
    assertThat(d.reason()).isEqualTo(LimitChange.Reason.PROBE);
    assertThat(d.to()).isEqualTo(60);
    window(law, 4, 0, 50);
    d = law.decide(51 * MS, 60, 60, 5);
    assertThat(d.to()).as("demand is 65").isEqualTo(65);
    window(law, 4, 0, 50);
    d = law.decide(52 * MS, 65, 20, 0);
    assertThat(d.changed()).as("nothing waits").isFalse();
  }

  @Test
  void cutsWhenRunTimeRisesUnderLoad() {
    ControlLaw law = new ControlLaw(settings(2, 100), 100);
    window(law, 10, 0, 100);
    law.decide(100 * MS, 16, 16, 50); // baseline 100 ms; grows to 32
    window(law, 10, 0, 200); // run time doubled: twice the calls the resource serves
    ControlLaw.Decision d = law.decide(300 * MS, 32, 32, 50);
    assertThat(d.reason()).isEqualTo(LimitChange.Reason.CUT);
    // target 32 × 100 / 200 = 16; smoothing 0.5 goes half way: 24
    assertThat(d.to()).isEqualTo(24);
    assertThat(d.baselineRunNanos()).isEqualTo(100 * MS);
    assertThat(law.probing()).isFalse();
  }

  @Test
  void noCutBeforeAFullWindowOfSamples() {
    ControlLaw law = new ControlLaw(settings(2, 100), 100);
    window(law, 4, 0, 100);
    law.decide(100 * MS, 16, 16, 50);
    window(law, 4, 0, 400); // 8 samples in all, fewer than samplesPerDecision (10)
    assertThat(law.decide(200 * MS, 32, 32, 50).reason()).isNotEqualTo(LimitChange.Reason.CUT);
    window(law, 2, 0, 400); // 10: the window is full
    assertThat(law.decide(300 * MS, 32, 32, 50).reason()).isEqualTo(LimitChange.Reason.CUT);
  }

  @Test
  void aSlowdownTheLaneDidNotCauseIsNotCutDownToTheMinimum() {
    ControlLaw law = new ControlLaw(settings(1, 100), 100);
    window(law, 10, 0, 100);
    int limit = law.decide(MS, 32, 32, 50).to();
    // From now on every call takes 200 ms whatever the limit: the resource slowed for everyone.
    List<LimitChange.Reason> reasons = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      long now = i * 1_000 * MS;
      window(law, 10, now, 200);
      ControlLaw.Decision d = law.decide(now + 200 * MS, limit, limit, 50);
      if (d.reason() != null) {
        reasons.add(d.reason());
      }
      limit = d.to();
    }
    assertThat(reasons).first().isEqualTo(LimitChange.Reason.CUT);
    assertThat(reasons).filteredOn(r -> r == LimitChange.Reason.CUT).hasSize(1);
    assertThat(limit).as("one cut, then it grows again from the new baseline").isGreaterThan(16);
  }

  @Test
  void afterACutOnlyTasksStartedUnderTheNewLimitCount() {
    ControlLaw law = new ControlLaw(settings(2, 100), 100);
    window(law, 10, 0, 100);
    law.decide(100 * MS, 16, 16, 50);
    window(law, 10, 0, 300);
    ControlLaw.Decision cut = law.decide(400 * MS, 32, 32, 50);
    assertThat(cut.reason()).isEqualTo(LimitChange.Reason.CUT);
    // Twenty slow samples of tasks that started before the cut: ignored, no decision due.
    assertThat(window(law, 20, 399 * MS, 300)).isFalse();
    assertThat(law.windowCount()).isZero();
    // Ten that started after it: a decision.
    assertThat(window(law, 10, 401 * MS, 100)).isTrue();
    ControlLaw.Decision d = law.decide(600 * MS, cut.to(), cut.to(), 10);
    assertThat(d.reason()).isEqualTo(LimitChange.Reason.GROW);
    assertThat(d.to()).isEqualTo(cut.to() + 1);
  }

  @Test
  void aRiseBelowTheNoiseFloorIsNoCongestion() {
    for (Duration floor : new Duration[] {Duration.ofMillis(1), Duration.ZERO}) {
      AdaptiveSettings s = AdaptiveSettings.builder().probeSamples(4).minRunTimeRise(floor).build();
      ControlLaw law = new ControlLaw(s, 1_000);
      window(law, 20, 0, 0.002); // 2 µs tasks
      law.decide(MS, 8, 8, 100);
      window(law, 20, 0, 0.2); // 100 × slower, but only 0.2 ms more
      ControlLaw.Decision d = law.decide(2 * MS, 16, 16, 100);
      if (floor.isZero()) {
        assertThat(d.reason()).as("without a floor it is a cut").isEqualTo(LimitChange.Reason.CUT);
      } else {
        assertThat(d.reason()).isNotEqualTo(LimitChange.Reason.CUT);
      }
    }
  }

  @Test
  void theBaselineIsForgottenAfterItsHorizon() {
    AdaptiveSettings s = AdaptiveSettings.builder().probeSamples(1).samplesPerDecision(1)
        .baselineHorizon(Duration.ofSeconds(1)).runTimeTolerance(0.25).build();
    ControlLaw law = new ControlLaw(s, 1_000);
    law.add(0, 10 * MS);
    law.decide(10 * MS, 10, 10, 0);
    // Run time settles at 20 ms for longer than the horizon: it becomes the baseline, no more cuts.
    ControlLaw.Decision last = null;
    int limit = 10;
    for (int i = 1; i <= 40; i++) {
      long now = i * 100 * MS;
      law.add(now, 20 * MS);
      last = law.decide(now, limit, limit, 5);
      limit = last.to();
    }
    assertThat(last.baselineRunNanos()).isGreaterThan(15 * MS);
    assertThat(last.reason()).as("20 ms is the new normal: tasks wait, so it grows").isEqualTo(LimitChange.Reason.GROW);
  }
}
