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
        .probeSamples(4).smoothing(0.5).build();
  }

  /** Feeds a window of samples of {@code runMs}, started at {@code now}; true if a decision is due. */
  private static boolean window(ControlLaw law, int n, long startedAt, double runMs) {
    boolean due = false;
    for (int i = 0; i < n; i++) {
      due = law.add(startedAt, startedAt + (long) (runMs * MS), (long) (runMs * MS));
    }
    return due;
  }

  /** Full windows of 100 ms with nothing waiting, past the baseline's warm-up: baseline 100 ms. */
  private static void warm(ControlLaw law, int limit) {
    for (int i = 0; i <= ControlLaw.BASELINE_WARMUP_WINDOWS; i++) {
      window(law, 10, 0, 100);
      assertThat(law.decide(100 * MS, limit, limit, 0).changed()).isFalse();
    }
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
        if (law.add(now - runNanos, now, runNanos)) {
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
    warm(law, 16);
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
  void byDefaultACutGoesAllTheWayToTheEstimatedCapacity() {
    ControlLaw law = new ControlLaw(AdaptiveSettings.builder().samplesPerDecision(10).build(), 100);
    warm(law, 16);
    window(law, 10, 0, 100);
    law.decide(100 * MS, 16, 16, 50);
    window(law, 10, 0, 200);
    assertThat(law.decide(300 * MS, 32, 32, 50).to()).isEqualTo(16);
  }

  @Test
  void noCutBeforeAFullWindowOfSamples() {
    ControlLaw law = new ControlLaw(settings(2, 100), 100);
    window(law, 10, 0, 100);
    law.decide(100 * MS, 16, 16, 50);
    window(law, 10, 0, 300);
    ControlLaw.Decision cut = law.decide(400 * MS, 32, 32, 50);
    assertThat(cut.reason()).isEqualTo(LimitChange.Reason.CUT);
    // The window restarts empty after a cut: 5 very slow samples are not yet a verdict...
    window(law, 5, 500 * MS, 900);
    assertThat(law.decide(1_500 * MS, cut.to(), cut.to(), 50).reason()).isNotEqualTo(LimitChange.Reason.CUT);
    // ...10 are.
    window(law, 5, 500 * MS, 900);
    assertThat(law.decide(1_600 * MS, cut.to(), cut.to(), 50).reason()).isEqualTo(LimitChange.Reason.CUT);
  }

  @Test
  void decisionsAreSpacedButABurstOfSamplesStillCountsInFull() {
    ControlLaw law = new ControlLaw(settings(1, 100_000), 100_000);
    // 30 tasks end within the same half millisecond: one decision at the 4th, then the rest wait
    // for the spacing and count together: 26 fresh samples = 6 steps of ×2.
    boolean due = false;
    for (int i = 0; i < 4; i++) {
      due = law.add(0, 50 * MS, 50 * MS);
    }
    assertThat(due).isTrue();
    int limit = law.decide(50 * MS, 30, 30, 9_970).to();
    assertThat(limit).isEqualTo(60);
    for (int i = 0; i < 26; i++) {
      assertThat(law.add(0, 50 * MS + 400_000, 50 * MS)).as("within 0.5 ms of the last decision").isFalse();
    }
    assertThat(law.add(0, 51 * MS, 50 * MS)).isTrue();
    assertThat(law.decide(51 * MS, limit, limit, 9_940).to()).isEqualTo(60 * 64);
  }

  @Test
  void atOrAboveTheCapacityTheLastCutEstimatedItGrowsOnEveryFourthDecisionOnly() {
    ControlLaw law = new ControlLaw(settings(1, 100), 100);
    warm(law, 16);
    window(law, 10, 0, 100);
    law.decide(100 * MS, 16, 16, 50);
    window(law, 10, 0, 200); // 32 in flight, run time doubled: the capacity is about 16
    int limit = law.decide(300 * MS, 32, 32, 50).to();
    assertThat(limit).isEqualTo(24);
    // Flat run time from now on, tasks waiting: at 24 (≥ the estimate 16) growth is held 3 times in 4.
    List<Integer> limits = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      long now = (300 + i * 200) * MS;
      window(law, 10, now - 150 * MS, 100);
      limit = law.decide(now, limit, limit, 50).to();
      limits.add(limit);
    }
    assertThat(limits).containsExactly(24, 24, 24, 25, 25, 25, 25, 26);
  }

  @Test
  void theFirstShortTasksToEndDoNotSeedTheBaseline() {
    ControlLaw law = new ControlLaw(settings(1, 100), 100);
    // 8 calls of 50–150 ms start together; the short ones end first.
    window(law, 4, 0, 55);
    int limit = law.decide(60 * MS, 8, 8, 40).to();
    assertThat(limit).isEqualTo(16);
    // From then on the typical mix: about 100 ms. Nothing is congested, so no cut.
    for (int i = 1; i <= 10; i++) {
      window(law, 4, i * 100 * MS, i % 2 == 0 ? 90 : 110);
      ControlLaw.Decision d = law.decide((i * 100 + 150) * MS, limit, limit, 0);
      assertThat(d.reason()).isNotEqualTo(LimitChange.Reason.CUT);
      limit = d.to();
    }
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
    assertThat(d.recentRunNanos()).as("judged on the clean samples only").isEqualTo(100 * MS);
    assertThat(d.reason()).as("flat, but above the estimated capacity: growth held").isNull();
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
    law.add(0, 10 * MS, 10 * MS);
    law.decide(10 * MS, 10, 10, 0);
    // Run time settles at 20 ms for longer than the horizon: it becomes the baseline, no more cuts.
    ControlLaw.Decision last = null;
    List<LimitChange.Reason> lastReasons = new ArrayList<>();
    int limit = 10;
    for (int i = 1; i <= 40; i++) {
      long now = i * 100 * MS;
      law.add(now, now + 20 * MS, 20 * MS);
      last = law.decide(now + 20 * MS, limit, limit, 5);
      limit = last.to();
      if (i > 30) {
        lastReasons.add(last.reason());
      }
    }
    assertThat(last.baselineRunNanos()).isGreaterThan(15 * MS);
    assertThat(lastReasons).as("20 ms is the new normal: tasks wait, so it grows")
        .contains(LimitChange.Reason.GROW).doesNotContain(LimitChange.Reason.CUT);
  }
}
