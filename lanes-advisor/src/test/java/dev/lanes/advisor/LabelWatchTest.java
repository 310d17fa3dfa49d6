package dev.lanes.advisor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LabelWatchTest {

  private static TaskRecord ran(String label, long run, long cpu) {
    return new TaskRecord(1, "l", label, "t", 0, 10, 10 + run, 10, run, cpu,
        TaskOutcome.COMPLETED);
  }

  @Test
  void sumsRunAndCpuPerLabelOfTasksThatRan() {
    try (Lane lane = Lane.blocking("l", 1).build()) {
      LabelWatch w = LabelWatch.on(lane);
      w.accept(ran("a", 100, 10));
      w.accept(ran("a", 300, -1));
      w.accept(ran("", 100, 10)); // unlabelled: not counted
      w.accept(new TaskRecord(2, "l", "a", "", 0, -1, 5, 5, 0, -1, TaskOutcome.QUEUE_FULL));
      LabelFigures a = w.figures().get("a");
      assertThat(w.figures()).containsOnlyKeys("a");
      assertThat(a).isEqualTo(new LabelFigures(2, 400, 1, 100, 10));
      assertThat(a.blockingRatio()).isEqualTo(9.0);
    }
  }

  @Test
  void keepsAtMostMaxLabelsApartAndAddsUpTheRest() {
    try (Lane lane = Lane.blocking("l", 1).build()) {
      LabelWatch w = LabelWatch.on(lane);
      for (int i = 0; i < LabelWatch.MAX_LABELS + 50; i++) {
        w.accept(ran("label-" + i, 1, 1));
      }
      assertThat(w.figures()).hasSize(LabelWatch.MAX_LABELS + 1);
      assertThat(w.figures().get(LabelWatch.OTHER_LABEL).tasks()).isEqualTo(50);
    }
  }

  @Test
  void watchesTheLanesTasksUntilClosed() throws Exception {
    try (Lane lane = Lane.blocking("l", 1).build()) {
      LabelWatch w = LabelWatch.on(lane);
      lane.submit("x", () -> {}).get(30, TimeUnit.SECONDS);
      // The record is delivered after the future completed: wait for it with a second task.
      CountDownLatch seen = new CountDownLatch(1);
      lane.onTask(r -> {
        if (r.label().equals("marker")) {
          seen.countDown();
        }
      });
      lane.submit("marker", () -> {}).get(30, TimeUnit.SECONDS);
      assertThat(seen.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(w.figures().get("x").tasks()).isEqualTo(1);

      w.close();
      assertThat(lane.removeListener(w)).isFalse();
      CompletableFuture<Void> after = lane.submit("x", () -> {});
      after.get(30, TimeUnit.SECONDS);
      assertThat(w.figures().get("x").tasks()).isEqualTo(1);
    }
  }
}
