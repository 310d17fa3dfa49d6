package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.micrometer.LanesMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The adaptive limit on real lanes. Tasks sleep as their work (a call); nothing waits on a sleep. */
class AdaptiveLimitTest {

  static void call(Semaphore downstream, long millis) {
    try {
      downstream.acquire();
      try {
        TimeUnit.MILLISECONDS.sleep(millis);
      } finally {
        downstream.release();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void all(List<CompletableFuture<?>> fs) {
    CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
  }

  @Test
  void growsToItsMaximumWhileRunTimeStaysFlatAndTasksWait() {
    try (Lane lane = Lane.virtual("free", 2).build();
        // A noise floor far above the jitter of a 2 ms sleep on a busy machine: no cut can happen here.
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(64)
            .minRunTimeRise(Duration.ofMillis(500)).build())) {
      List<LimitChange> changes = new CopyOnWriteArrayList<>();
      limit.onChange(changes::add);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        fs.add(lane.submit("io", () -> pause(2)));
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> limit.limit() == 64);
      all(fs);
      assertThat(lane.stats().concurrency()).isEqualTo(64);
      assertThat(changes).isNotEmpty().allSatisfy(c -> {
        assertThat(c.reason()).isEqualTo(LimitChange.Reason.PROBE);
        assertThat(c.queued()).isPositive();
        assertThat(c.to()).isBetween(1, 64);
      });
      assertThat(changes.get(0).from()).isEqualTo(2);
    }
  }

  @Test
  void cutsWhenTheResourceBehindTheLaneIsCongested() {
    Semaphore downstream = new Semaphore(4, true); // serves 4 calls at once
    try (Lane lane = Lane.blocking("db", 32).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(32).build())) {
      List<LimitChange> changes = new CopyOnWriteArrayList<>();
      limit.onChange(changes::add);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        fs.add(lane.submit("query", () -> call(downstream, 3)));
      }
      await().atMost(Duration.ofSeconds(60))
          .until(() -> changes.stream().anyMatch(c -> c.reason() == LimitChange.Reason.CUT));
      all(fs);
      LimitChange cut = changes.stream().filter(c -> c.reason() == LimitChange.Reason.CUT).findFirst().orElseThrow();
      assertThat(cut.to()).isLessThan(cut.from());
      assertThat((double) cut.recentRunNanos())
          .isGreaterThan(cut.baselineRunNanos() * (1 + limit.settings().runTimeTolerance()));
      assertThat(limit.limit()).isLessThan(32).isEqualTo(lane.concurrency());
      assertThat(limit.probing()).isFalse();
    }
  }

  @Test
  void doesNotGrowWhenTheLaneIsNotBusy() {
    try (Lane lane = Lane.virtual("idle", 4).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().probeSamples(1).build())) {
      List<LimitChange> changes = new CopyOnWriteArrayList<>();
      limit.onChange(changes::add);
      for (int i = 0; i < 100; i++) {
        // two at a time on a limit of 4: nothing ever waits in line
        CompletableFuture<?> a = lane.submit("x", () -> pause(1));
        CompletableFuture<?> b = lane.submit("x", () -> pause(1));
        a.join();
        b.join();
      }
      // Two at a time on a limit of 4 wait for nothing, so the limit never grows; a run slowed by
      // the machine may cut it (to 1, say), and then one of two does wait: a growth is allowed
      // only then, and never past the tasks there are to run (the class's promise).
      assertThat(changes).allSatisfy(c -> {
        if (c.reason() == LimitChange.Reason.GROW) {
          assertThat(c.queued()).as("tasks waiting when it grew: %s", c).isPositive();
          assertThat(c.to()).as("grown past the tasks to run: %s", c).isLessThanOrEqualTo(c.running() + c.queued());
        }
      });
      assertThat(limit.limit()).isLessThanOrEqualTo(4);
    }
  }

  @Test
  void closeStopsAdaptingAndLeavesTheLaneAtItsLimit() {
    try (Lane lane = Lane.virtual("api", 2).build()) {
      AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(16).build());
      List<LimitChange> changes = new CopyOnWriteArrayList<>();
      limit.onChange(changes::add);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        fs.add(lane.submit("x", () -> pause(1)));
      }
      all(fs);
      limit.close();
      int after = lane.concurrency();
      int events = changes.size();
      fs.clear();
      for (int i = 0; i < 500; i++) {
        fs.add(lane.submit("x", () -> pause(1)));
      }
      all(fs);
      assertThat(changes).hasSize(events);
      assertThat(lane.concurrency()).isEqualTo(after).isEqualTo(limit.limit());
      assertThat(limit.isClosed()).isTrue();
    }
  }

  @Test
  void theLimitIsWhatMicrometerShowsAsConcurrency() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Lane lane = Lane.virtual("partner", 2).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder().maxLimit(32).build());
        LanesMetrics metrics = LanesMetrics.builder(lane).statsMaxAge(Duration.ZERO).build()) {
      metrics.bindTo(registry);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      // The controller raises the limit from what it measures while tasks queue: keep some queued
      // until it has (one round of 500 tasks of 1 ms once ended before it did, and it waited on)
      await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(() -> {
        if (lane.stats().queued() < 100 && fs.size() < 20_000) {
          for (int i = 0; i < 200; i++) {
            fs.add(lane.submit("x", () -> pause(1)));
          }
        }
        return limit.limit() > 2;
      });
      all(fs);
      int now = limit.limit();
      assertThat(registry.get("lanes.concurrency").tag("lane", "partner").gauge().value()).isEqualTo(now);
    }
  }

  @Test
  void theControllerCannotGoPastALaneKindsBound() {
    AdaptiveSettings s = AdaptiveSettings.builder().maxLimit(LaneBuilder.MAX_PLATFORM_CONCURRENCY).build();
    try (Lane lane = Lane.blocking("db", 2).build(); AdaptiveLimit limit = AdaptiveLimit.attach(lane, s)) {
      assertThat(limit.settings().maxLimit()).isEqualTo(32_767);
    }
  }
}
