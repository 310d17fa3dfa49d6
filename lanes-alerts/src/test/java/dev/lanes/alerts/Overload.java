package dev.lanes.alerts;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/** Puts a lane of one worker under load for the alert tests: held, queued behind, refusing. */
final class Overload {
  private Overload() {}

  /** Holds the lane's only worker until {@code release}, with {@code behind} tasks queued. */
  static List<CompletableFuture<?>> hold(Lane lane, CountDownLatch release, int behind)
      throws InterruptedException {
    CountDownLatch running = new CountDownLatch(1);
    List<CompletableFuture<?>> tasks = new ArrayList<>();
    tasks.add(lane.submit("hold", () -> {
      running.countDown();
      release.await();
      return null;
    }));
    running.await();
    for (int i = 0; i < behind; i++) {
      tasks.add(lane.submit("behind", () -> "ran"));
    }
    return tasks;
  }

  /** Offers {@code tries} tasks; returns how many the lane refused. */
  static int refuse(Lane lane, int tries) {
    int refused = 0;
    for (int i = 0; i < tries; i++) {
      try {
        lane.execute(() -> {});
      } catch (LaneRejectedException e) {
        refused++;
      }
    }
    return refused;
  }
}
