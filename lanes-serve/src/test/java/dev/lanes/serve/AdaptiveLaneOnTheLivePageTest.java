package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.Ticker;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.AdaptiveSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An adaptive lane's limit is what the live page shows as the lane's concurrency (module lanes-adapt). */
class AdaptiveLaneOnTheLivePageTest {

  @Test
  void theLivePageShowsTheAdaptiveLimitAsConcurrency() {
    try (Lane lane = Lane.virtual("partner", 2).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(32).build());
        EndpointBook book = new EndpointBook(Map.of(), Ticker.system())) {
      // Load in batches of 250 one-millisecond tasks until the limit has moved: on a busy
      // machine one batch may end before the limiter sees a line worth growing for (seen: 500
      // tasks were not enough beside a CPU hog).
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ZERO).until(() -> {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
          fs.add(lane.submit("x", () -> {
            try {
              TimeUnit.MILLISECONDS.sleep(1);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        return limit.limit() > 2;
      });
      assertThat(StatsJson.of(null, "lanes", List.of(lane), book, List.of()))
          .contains("\"name\":\"partner\"").contains("\"concurrency\":" + limit.limit() + ",");
    }
  }
}
