package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void runsTasksOnEveryKind() throws Exception {
    for (LaneBuilder b : new LaneBuilder[] {Lane.cpu("c"), Lane.blocking("b", 3), Lane.virtual("v", 4)}) {
      try (Lane lane = b.build()) {
        CountDownLatch done = new CountDownLatch(1000);
        for (int i = 0; i < 1000; i++) {
          lane.execute(done::countDown);
        }
        done.await();
        CompletableFuture<Integer> f = lane.submit(() -> 42);
        assertThat(f.get()).isEqualTo(42);
        lane.shutdown();
        assertThat(lane.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        LaneStats s = lane.stats();
        assertThat(s.counts().completed()).isEqualTo(1001);
        assertThat(s.sinceStart().runTime().count()).isEqualTo(1001);
      }
    }
  }
}
