package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.redis.harness.RedisServerProcess;
import dev.lanes.redis.micrometer.SharedCapMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SharedCapMetricsTest {

  @Test
  void metersShowTheSharedCapsFigures() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RedisServerProcess redis = RedisServerProcess.start();
        SharedCap shared = TestCaps.builder("metered", redis.uri()).cap(1).build();
        Lane lane = Lane.virtual("metered", 2).queueCapacity(10).gate(shared).build()) {
      new SharedCapMetrics(shared).bindTo(registry);
      CompletableFuture<Boolean> holding = lane.submit(() -> finish.await(30, TimeUnit.SECONDS));
      CompletableFuture<Boolean> waiting = lane.submit(() -> true);
      // "waiting" counts a worker as it asks; "held" and "in use" follow Redis's replies, which
      // come late on a busy machine (seen: in use still 0): wait for the whole state.
      await().atMost(Duration.ofSeconds(30)).until(() ->
          registry.get("lanes.shared.permits.waiting").gauge().value() == 1
              && registry.get("lanes.shared.permits.held").gauge().value() == 1
              && registry.get("lanes.shared.permits.in.use").gauge().value() == 1);
      assertThat(registry.get("lanes.shared.cap").tag("lane", "metered").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.permits.unclaimed").gauge().value()).isZero();
      assertThat(registry.get("lanes.shared.health").tag("state", "global").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.health").tag("state", "unavailable").gauge().value()).isZero();
      finish.countDown();
      assertThat(holding.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
      // A grant a worker found no task for is released and granted again: at least one per task.
      assertThat(registry.get("lanes.shared.permits.granted").functionCounter().count())
          .isGreaterThanOrEqualTo(2);
      assertThat(registry.get("lanes.shared.refused").functionCounter().count()).isZero();
      assertThat(registry.get("lanes.shared.permits.kept").gauge().value())
          .isEqualTo(shared.stats().keptForNextTask());
      // Tiny tasks queued behind one another run on the permit kept from the task before.
      CountDownLatch queued = new CountDownLatch(1);
      List<CompletableFuture<?>> burst = new ArrayList<>();
      burst.add(lane.submit(() -> queued.await(30, TimeUnit.SECONDS)));
      for (int i = 0; i < 10; i++) {
        burst.add(lane.submit(() -> 1));
      }
      queued.countDown();
      CompletableFuture.allOf(burst.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(registry.get("lanes.shared.tasks.on.kept.permits").functionCounter().count())
          .isPositive().isEqualTo((double) shared.stats().tasksOnKeptPermits());
    }
  }
}
