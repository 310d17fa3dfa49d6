package dev.lanes.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Distribution;
import dev.lanes.LaneHealth;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verdict's rule on figures made by hand: each branch, and the stage it names. */
class BottleneckTest {

  private static final long MS = 1_000_000;

  private static Distribution ms(double meanMs) {
    long v = (long) (meanMs * MS);
    return new Distribution(100, meanMs * MS, v, v, v, v);
  }

  private static StageStats stage(int index, String name, String lane, double waitMs, double runMs,
      double handoffMs, long offered, long rejected) {
    return new StageStats(name, index, lane, false, offered, offered - rejected, 0, rejected,
        waitMs < 0 ? Distribution.EMPTY : ms(waitMs), runMs < 0 ? Distribution.EMPTY : ms(runMs),
        handoffMs < 0 ? Distribution.EMPTY : ms(handoffMs), 0, 100, 4, LaneHealth.OK);
  }

  @Test
  void noStageRanNoBottleneck() {
    Bottleneck b = Bottleneck.of(List.of(stage(0, "a", "l", -1, -1, -1, 0, 0)));
    assertThat(b.reason()).isEqualTo(Bottleneck.Reason.NONE);
    assertThat(b.stage()).isEmpty();
  }

  @Test
  void theStageWithTheMostWaitPlusOwnRunIsNamedAndWhy() {
    Bottleneck runBound = Bottleneck.of(List.of(
        stage(0, "fetch", "io", 1, 500, 0.1, 100, 0),
        stage(1, "parse", "cpu", 3, 5, 0.1, 100, 0),
        stage(2, "store", "db", 0.5, 10, -1, 100, 0)));
    assertThat(runBound.stage()).contains("fetch");
    assertThat(runBound.reason()).isEqualTo(Bottleneck.Reason.RUN_TIME);
    assertThat(runBound.explanation()).contains("stage \"fetch\" (lane \"io\")").contains("not its queue");

    Bottleneck saturated = Bottleneck.of(List.of(
        stage(0, "fetch", "io", 1, 50, 0.1, 100, 0),
        stage(1, "parse", "cpu", 300, 5, 0.1, 100, 0),
        stage(2, "store", "db", 0.5, 10, -1, 100, 0)));
    assertThat(saturated.stage()).contains("parse");
    assertThat(saturated.reason()).isEqualTo(Bottleneck.Reason.QUEUE_WAIT);
    assertThat(saturated.explanation()).contains("saturated").contains("4 threads");
  }

  @Test
  void aStageHeldUpHandingItemsOnIsNotNamedItsDownstreamIs() {
    // "parse" waits long because its threads are blocked handing items to a full "store".
    Bottleneck b = Bottleneck.of(List.of(
        stage(0, "fetch", "io", 1, 2, 1, 100, 0),
        stage(1, "parse", "cpu", 900, 200, 190, 100, 0),
        stage(2, "store", "db", 150, 40, -1, 100, 0)));
    assertThat(b.stage()).contains("store");
    assertThat(b.explanation()).contains("stage \"parse\" spent 190 of its 200 ms run per item handing items on");
  }

  @Test
  void aStageRejectingItemsComesFirst() {
    Bottleneck b = Bottleneck.of(List.of(
        stage(0, "fetch", "io", 1, 900, 0.1, 100, 0),
        stage(1, "store", "db", 1, 1, -1, 100, 5)));
    assertThat(b.stage()).contains("store");
    assertThat(b.reason()).isEqualTo(Bottleneck.Reason.REJECTING);
    assertThat(b.explanation()).contains("refused or dropped 5 of the 100 items");
    // Below 1 % of its items, a refusal does not decide the verdict.
    Bottleneck few = Bottleneck.of(List.of(
        stage(0, "fetch", "io", 1, 900, 0.1, 1000, 0),
        stage(1, "store", "db", 1, 1, -1, 1000, 5)));
    assertThat(few.stage()).contains("fetch");
  }

  @Test
  void aSharedLaneIsSaidSo() {
    StageStats a = new StageStats("a", 0, "pool", true, 10, 10, 0, 0, ms(100), ms(10), ms(0.1), 0, 10, 2, LaneHealth.OK);
    StageStats b = new StageStats("b", 1, "pool", true, 10, 10, 0, 0, ms(1), ms(1), Distribution.EMPTY, 0, 10, 2, LaneHealth.OK);
    assertThat(Bottleneck.of(List.of(a, b)).explanation()).contains("its lane also runs stage \"b\"");
  }

  @Test
  void aVerdictNamesAStageUnlessItsReasonIsNone() {
    assertThatThrownBy(() -> new Bottleneck(Optional.empty(), Bottleneck.Reason.RUN_TIME, "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Bottleneck(Optional.of("a"), Bottleneck.Reason.NONE, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
