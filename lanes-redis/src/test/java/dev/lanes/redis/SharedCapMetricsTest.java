package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.redis.harness.RedisServerProcess;
import dev.lanes.redis.micrometer.SharedCapMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
        Lane lane = Lane.virtual("metered", 2).queueCapacity(10).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      new SharedCapMetrics(shared).bindTo(registry);
      CompletableFuture<Boolean> holding = shared.submit(() -> finish.await(30, TimeUnit.SECONDS));
      CompletableFuture<Boolean> waiting = shared.submit(() -> true);
      await().until(() -> registry.get("lanes.shared.permits.waiting").gauge().value() == 1);
      assertThat(registry.get("lanes.shared.cap").tag("lane", "metered").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.permits.held").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.permits.in.use").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.queue.size").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.health").tag("state", "global").gauge().value()).isEqualTo(1);
      assertThat(registry.get("lanes.shared.health").tag("state", "unavailable").gauge().value()).isZero();
      finish.countDown();
      assertThat(holding.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(registry.get("lanes.shared.permits.granted").functionCounter().count()).isEqualTo(2);
      assertThat(registry.get("lanes.shared.permit.wait").functionTimer().count()).isEqualTo(2);
      assertThat(registry.get("lanes.shared.rejected").tag("reason", "queue_full")
          .functionCounter().count()).isZero();
    }
  }
}
