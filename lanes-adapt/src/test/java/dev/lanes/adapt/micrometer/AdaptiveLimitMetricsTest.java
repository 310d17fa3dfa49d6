package dev.lanes.adapt.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.AdaptiveSettings;
import dev.lanes.adapt.LimitChange;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The adaptive limit's meters on a real lane whose limit grows. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AdaptiveLimitMetricsTest {

  private static final int TASKS = 500;
  private static final long TASK_MILLIS = 1;

  @Test
  void limitBoundsAndChangesByReasonAreMeteredOnceInEveryRegistry() {
    MeterRegistry one = new SimpleMeterRegistry();
    MeterRegistry two = new SimpleMeterRegistry();
    try (Lane lane = Lane.virtual("partner", 2).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder()
            .minLimit(2).maxLimit(32).minRunTimeRise(Duration.ofMillis(500)).build());
        AdaptiveLimitMetrics metrics = new AdaptiveLimitMetrics(limit, Tags.of("app", "test"))) {
      List<LimitChange> seen = new CopyOnWriteArrayList<>();
      limit.onChange(seen::add);
      metrics.bindTo(one);
      metrics.bindTo(two);
      assertThat(gauge(one, "lanes.adaptive.limit")).isEqualTo(2);
      assertThat(gauge(one, "lanes.adaptive.limit.min")).isEqualTo(2);
      assertThat(gauge(one, "lanes.adaptive.limit.max")).isEqualTo(32);
      assertThat(one.get("lanes.adaptive.limit").tag("app", "test").gauge().getId().getBaseUnit())
          .isEqualTo("tasks");

      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < TASKS; i++) {
        fs.add(lane.submit("x", () -> pause(TASK_MILLIS)));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> limit.limit() > 2);
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();

      assertThat(seen).isNotEmpty();
      // A task's record (and so a change) may be delivered just after its future completed.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        for (MeterRegistry r : List.of(one, two)) {
          assertThat(gauge(r, "lanes.adaptive.limit")).isEqualTo(limit.limit());
          for (LimitChange.Reason reason : LimitChange.Reason.values()) {
            long expected = seen.stream().filter(c -> c.reason() == reason).count();
            assertThat(changes(r, reason)).as("%s changes", reason).isEqualTo(expected);
          }
        }
      });
      assertThat(changes(one, LimitChange.Reason.PROBE)).isPositive();

      // Closed: no more counting, the meters stay.
      metrics.close();
      double probesBefore = changes(one, LimitChange.Reason.PROBE);
      int changesBefore = seen.size();
      fs.clear();
      for (int i = 0; i < TASKS; i++) {
        fs.add(lane.submit("x", () -> pause(TASK_MILLIS)));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
      long probesSince = seen.stream().skip(changesBefore)
          .filter(c -> c.reason() == LimitChange.Reason.PROBE).count();
      assertThat(changes(one, LimitChange.Reason.PROBE)).isEqualTo(probesBefore);
      assertThat(changes(one, LimitChange.Reason.PROBE) + probesSince)
          .isEqualTo(seen.stream().filter(c -> c.reason() == LimitChange.Reason.PROBE).count());
    }
  }

  private static double gauge(MeterRegistry registry, String name) {
    return registry.get(name).tag("lane", "partner").gauge().value();
  }

  private static double changes(MeterRegistry registry, LimitChange.Reason reason) {
    return registry.get("lanes.adaptive.changes").tag("lane", "partner")
        .tag("reason", reason.name().toLowerCase(Locale.ROOT)).functionCounter().count();
  }

  private static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
