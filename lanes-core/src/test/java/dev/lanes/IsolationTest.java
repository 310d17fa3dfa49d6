package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bulkhead, shown: four 2-second sleepers delay a burst of fast tasks on a shared pool by
 * about 2 s of queue wait; with a lane per kind, the fast lane's queue wait stays small. Asserted
 * on the lanes' own queue-wait figures, with generous margins.
 */
class IsolationTest {
  private static final long SLOW_MS = 2_000;
  private static final int FAST = 100;

  @Test
  void aSlowNeighbourDelaysFastWorkOnASharedPoolButNotInItsOwnLane() throws Exception {
    // One shared pool of four threads.
    double sharedFastWaitP99;
    try (Lane shared = Lane.blocking("shared", 4).build()) {
      List<TaskRecord> records = new CopyOnWriteArrayList<>();
      shared.onTask(records::add);
      runWorkload(shared, shared);
      shared.close();
      sharedFastWaitP99 = p99(records, "fast");
    }
    // A lane per kind.
    double lanesFastWaitP99;
    Lanes lanes = Lanes.of(Lane.blocking("slow", 4), Lane.blocking("fast", 4));
    try (lanes) {
      runWorkload(lanes.lane("slow"), lanes.lane("fast"));
      lanesFastWaitP99 = lanes.lane("fast").stats().sinceStart().queueWait().p99Millis();
    }
    assertThat(sharedFastWaitP99).as("shared pool: fast tasks wait behind the sleepers")
        .isGreaterThan(SLOW_MS * 0.6);
    assertThat(lanesFastWaitP99).as("own lane: fast tasks barely wait").isLessThan(100);
  }

  private static void runWorkload(Lane slowLane, Lane fastLane) throws Exception {
    CountDownLatch sleepersStarted = new CountDownLatch(4);
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      all.add(slowLane.submit("slow", () -> {
        sleepersStarted.countDown();
        try {
          TimeUnit.MILLISECONDS.sleep(SLOW_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    Work.await(sleepersStarted);
    for (int i = 0; i < FAST; i++) {
      all.add(fastLane.submit("fast", () -> Work.spinMillis(0)));
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get();
  }

  private static double p99(List<TaskRecord> records, String label) {
    double[] waits = records.stream().filter(r -> r.label().equals(label))
        .mapToDouble(TaskRecord::queueWaitMillis).sorted().toArray();
    assertThat(waits).hasSize(FAST);
    return waits[(int) Math.ceil(0.99 * waits.length) - 1];
  }
}
