package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.lanes.LaneHealth;
import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.TaskOutcome;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LanesMetricsTest {

  private static final Set<String> EVERY_NAME =
      Set.of(
          "lanes.task.wait",
          "lanes.task.run",
          "lanes.task.cpu",
          "lanes.tasks",
          "lanes.queue.size",
          "lanes.queue.oldest",
          "lanes.running",
          "lanes.workers",
          "lanes.concurrency",
          "lanes.capacity.remaining",
          "lanes.saturated",
          "lanes.saturated.time",
          "lanes.health",
          "lanes.between.tasks.time");

  /** lanes.tasks has one meter per outcome and lanes.health one per state; the others one each. */
  private static final int METERS_PER_LANE =
      EVERY_NAME.size() - 2 + TaskOutcome.values().length + LaneHealth.values().length;

  private static final int TASKS = 200;
  private static final int FAILING = 7;

  @Test
  void everyLaneGetsEveryMeterWithTagsDescriptionAndUnit() {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Lanes lanes =
            Lanes.of(Lane.cpu("compute").concurrency(2), Lane.virtual("api", 4));
        LanesMetrics metrics = fresh(LanesMetrics.builder(lanes)).tags(Tags.of("app", "test")).build()) {
      metrics.bindTo(registry);
      for (String lane : List.of("compute", "api")) {
        Set<String> names = new TreeSet<>();
        for (Meter m : registry.getMeters()) {
          if (lane.equals(m.getId().getTag("lane"))) {
            names.add(m.getId().getName());
            assertThat(m.getId().getTag("kind")).isEqualTo(lane.equals("api") ? "virtual" : "cpu");
            assertThat(m.getId().getTag("app")).isEqualTo("test");
            assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank();
            if (!(m instanceof Timer) && !(m instanceof io.micrometer.core.instrument.TimeGauge)) {
              // Timers take the registry's base time unit; everything else names its own.
              assertThat(m.getId().getBaseUnit()).as(m.getId().getName()).isNotBlank();
            }
          }
        }
        assertThat(names).isEqualTo(new TreeSet<>(EVERY_NAME));
      }
      // One lanes.tasks counter per outcome, tagged with TaskOutcome's tag and whether it is a
      // rejection.
      assertThat(registry.find("lanes.tasks").tag("lane", "api").functionCounters())
          .extracting(c -> c.getId().getTag("outcome"))
          .containsExactlyInAnyOrder(java.util.Arrays.stream(TaskOutcome.values())
              .map(TaskOutcome::tag).toArray(String[]::new));
      assertThat(registry.find("lanes.tasks").tag("lane", "api").tag("rejected", "true")
              .functionCounters())
          .extracting(c -> c.getId().getTag("outcome"))
          .containsExactlyInAnyOrder("queue_full", "block_timeout", "shutdown", "discarded_oldest",
              "thread_start_failed", "deadlock", "shed", "gate_refused", "expired");
    }
  }

  @Test
  void timersAndCountersMatchTheLanesOwnFigures() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Lane lane = Lane.blocking("db", 3).cpuTimeEveryTask().build();
        LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      for (int i = 0; i < TASKS; i++) {
        boolean fail = i < FAILING;
        futures.add(
            lane.submit("work", () -> {
              if (fail) {
                throw new IllegalStateException("planned failure");
              }
            }));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .handle((v, e) -> null)
          .get(30, TimeUnit.SECONDS);

      // Records are published just after each future completes: wait until all arrived.
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(timer(registry, "lanes.task.run", "db").count()).isEqualTo(TASKS));
      assertThat(timer(registry, "lanes.task.wait", "db").count()).isEqualTo(TASKS);
      assertThat(timer(registry, "lanes.task.cpu", "db").count()).isEqualTo(TASKS);
      assertThat(counter(registry, "db", "completed")).isEqualTo(TASKS - FAILING);
      assertThat(counter(registry, "db", "failed")).isEqualTo(FAILING);
      assertThat(counter(registry, "db", "cancelled")).isZero();
      assertThat(rejected(registry, "db")).isZero();

      // The timer's total equals the lane's own sum of run times (both exact, in nanoseconds).
      double lanesRunSeconds = lane.stats().sinceStart().busyNanos() / 1e9;
      assertThat(timer(registry, "lanes.task.run", "db").totalTime(TimeUnit.SECONDS))
          .isCloseTo(lanesRunSeconds, org.assertj.core.data.Offset.offset(1e-6));
    }
  }

  @Test
  void virtualLaneHasNoCpuSamples() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Lane lane = Lane.virtual("calls", 8).build();
        LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      for (int i = 0; i < 50; i++) {
        lane.submit(() -> 1).get(30, TimeUnit.SECONDS);
      }
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(timer(registry, "lanes.task.run", "calls").count()).isEqualTo(50));
      assertThat(timer(registry, "lanes.task.cpu", "calls").count()).isZero();
    }
  }

  @Test
  void gaugesShowQueueRunningThreadsAndRemainingCapacity() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("one", 1).queueCapacity(4).build();
        LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      lane.execute(() -> {
        started.countDown();
        awaitLatch(release);
      });
      started.await();
      for (int i = 0; i < 4; i++) {
        lane.execute(() -> {});
      }
      // The fifth waiting task does not fit: rejected.
      assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);

      assertThat(gauge(registry, "lanes.queue.size", "one")).isEqualTo(4);
      // Four tasks wait: the oldest one's age is above zero (in seconds, from the lane's own figure).
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(registry.get("lanes.queue.oldest").tag("lane", "one").timeGauge().value(TimeUnit.NANOSECONDS))
              .isPositive());
      assertThat(gauge(registry, "lanes.running", "one")).isEqualTo(1);
      assertThat(gauge(registry, "lanes.workers", "one")).isEqualTo(1);
      assertThat(gauge(registry, "lanes.concurrency", "one")).isEqualTo(1);
      assertThat(gauge(registry, "lanes.capacity.remaining", "one")).isZero();
      assertThat(gauge(registry, "lanes.saturated", "one")).isIn(0.0, 1.0);
      assertThat(counter(registry, "one", "queue_full")).isEqualTo(1);
      assertThat(rejected(registry, "one")).isEqualTo(1);
      assertThat(registry.get("lanes.saturated.time").tag("lane", "one").functionCounter().count())
          .isGreaterThanOrEqualTo(0);

      release.countDown();
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(gauge(registry, "lanes.queue.size", "one")).isZero());
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(counter(registry, "one", "completed")).isEqualTo(5));
      assertThat(gauge(registry, "lanes.capacity.remaining", "one")).isEqualTo(4);
      assertThat(registry.get("lanes.queue.oldest").tag("lane", "one").timeGauge().value(TimeUnit.SECONDS)).isZero();
    }
  }

  @Test
  void saturatedGaugeAndTimeFollowTheLanesHealth() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("tight", 1).queueCapacity(1)
            .saturationHysteresis(Duration.ZERO, Duration.ZERO).build();
        LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      assertThat(gauge(registry, "lanes.saturated", "tight")).isZero();
      assertThat(healthGauges(registry, "tight")).containsExactly(
          entry("ok", 1.0), entry("saturated", 0.0), entry("rejecting", 0.0), entry("deadlocked", 0.0));
      lane.execute(() -> {
        started.countDown();
        awaitLatch(release);
      });
      started.await();
      lane.execute(() -> {});
      assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
      // A rejection makes the lane REJECTING (worse than SATURATED) at the health monitor's next tick.
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(gauge(registry, "lanes.saturated", "tight")).isEqualTo(1.0));
      assertThat(lane.health()).isGreaterThanOrEqualTo(LaneHealth.SATURATED);
      // lanes.health names the state: 1 for the lane's state now, 0 for the three others.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        Map<String, Double> states = healthGauges(registry, "tight");
        assertThat(states.values()).containsExactlyInAnyOrder(1.0, 0.0, 0.0, 0.0);
        assertThat(states).containsEntry(lane.health().name().toLowerCase(java.util.Locale.ROOT), 1.0)
            .containsEntry("ok", 0.0);
      });
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(registry.get("lanes.saturated.time").tag("lane", "tight").functionCounter().count())
              .isPositive());
      release.countDown();
    }
  }

  @Test
  void cancelledWhileQueuedIsCountedButNotTimed() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("one", 1).build();
        LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      lane.execute(() -> {
        started.countDown();
        awaitLatch(release);
      });
      started.await();
      CompletableFuture<?> queued = lane.submit(() -> {});
      assertThat(queued.cancel(false)).isTrue();
      release.countDown();
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(counter(registry, "one", "cancelled")).isEqualTo(1));
      await().atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(timer(registry, "lanes.task.run", "one").count()).isEqualTo(1));
      assertThat(timer(registry, "lanes.task.wait", "one").count()).isEqualTo(1);
    }
  }

  @Test
  void followsLanesAddedAndRemoved() {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Lanes lanes = Lanes.of(Lane.blocking("first", 1));
        LanesMetrics metrics = fresh(LanesMetrics.builder(lanes)).build()) {
      metrics.bindTo(registry);
      assertThat(laneTags(registry)).containsExactly("first");

      lanes.add(Lane.blocking("second", 1));
      assertThat(laneTags(registry)).containsExactlyInAnyOrder("first", "second");
      assertThat(metrics.boundLanes()).containsExactlyInAnyOrder("first", "second");

      lanes.remove("first");
      assertThat(laneTags(registry)).containsExactly("second");
      assertThat(metrics.boundLanes()).containsExactly("second");

      // A new lane may take a removed lane's name; it gets fresh meters that read the new lane.
      Lane again = lanes.add(Lane.blocking("first", 2));
      assertThat(laneTags(registry)).containsExactlyInAnyOrder("first", "second");
      assertThat(gauge(registry, "lanes.concurrency", "first")).isEqualTo(2);
      again.setConcurrency(3);
      assertThat(gauge(registry, "lanes.concurrency", "first")).isEqualTo(again.concurrency());
    }
  }

  @Test
  void aClosedLaneLosesItsMeters() {
    MeterRegistry registry = new SimpleMeterRegistry();
    Lane lane = Lane.blocking("short-lived", 1).build();
    try (LanesMetrics metrics = fresh(LanesMetrics.builder(lane)).build()) {
      metrics.bindTo(registry);
      assertThat(laneTags(registry)).containsExactly("short-lived");
      lane.close();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(registry.getMeters()).isEmpty());
      assertThat(metrics.boundLanes()).isEmpty();
    }
  }

  @Test
  void closingTheBinderRemovesEveryMeterFromEveryRegistry() {
    MeterRegistry one = new SimpleMeterRegistry();
    MeterRegistry two = new SimpleMeterRegistry();
    try (Lanes lanes = Lanes.of(Lane.blocking("a", 1), Lane.cpu("b").concurrency(1))) {
      LanesMetrics metrics = fresh(LanesMetrics.builder(lanes)).build();
      metrics.bindTo(one);
      metrics.bindTo(two);
      metrics.bindTo(two); // twice is once
      assertThat(one.getMeters()).hasSize(METERS_PER_LANE * 2);
      assertThat(two.getMeters()).hasSize(METERS_PER_LANE * 2);
      metrics.close();
      assertThat(one.getMeters()).isEmpty();
      assertThat(two.getMeters()).isEmpty();
      // A lane added after close is not followed.
      lanes.add(Lane.blocking("c", 1));
      assertThat(one.getMeters()).isEmpty();
      assertThatThrownBy(() -> metrics.bindTo(one)).hasMessageContaining("closed");
    }
  }

  @Test
  void badSettingsAreRefusedWithAReason() {
    try (Lane lane = Lane.blocking("x", 1).build()) {
      assertThatThrownBy(() -> LanesMetrics.builder(lane).tags(Tags.of("lane", "y")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"lane\"");
      assertThatThrownBy(() -> LanesMetrics.builder(lane).statsMaxAge(Duration.ofSeconds(-1)))
          .hasMessageContaining("statsMaxAge");
    }
  }

  @Test
  void oneStatsReadServesAScrapeWithinMaxAge() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    long[] now = {0};
    try (Lane lane = Lane.blocking("cached", 1).build();
        LanesMetrics metrics =
            LanesMetrics.builder(lane).statsMaxAge(Duration.ofSeconds(1)).ticker(() -> now[0]).build()) {
      metrics.bindTo(registry);
      assertThat(counter(registry, "cached", "completed")).isZero();
      lane.submit(() -> {}).get(30, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> lane.stats().completed() == 1);
      assertThat(counter(registry, "cached", "completed")).as("still the cached snapshot").isZero();
      now[0] += Duration.ofSeconds(1).toNanos();
      assertThat(counter(registry, "cached", "completed")).isEqualTo(1);
    }
  }

  // ------------------------------------------------------------------ helpers

  /** A lane built with reportPinning() gets lanes.pinned and lanes.pinned.time; others do not. */
  @Test
  void aLaneThatReportsPinningCountsItsPins() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Lanes lanes = Lanes.of(Lane.virtual("pinny", 2).reportPinning(), Lane.virtual("plain", 2));
        LanesMetrics metrics = fresh(LanesMetrics.builder(lanes)).build()) {
      metrics.bindTo(registry);
      assertThat(registry.find("lanes.pinned").tag("lane", "plain").functionCounter()).isNull();
      lanes.lane("pinny").submit("init",
          () -> dev.lanes.testkit.Pins.sleepInClassInitializer(Duration.ofMillis(60))).get();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
          registry.get("lanes.pinned").tag("lane", "pinny").functionCounter().count() == 1);
      double seconds = registry.get("lanes.pinned.time").tag("lane", "pinny").functionCounter()
          .count();
      assertThat(seconds).isEqualTo(lanes.lane("pinny").stats().pinning().totalNanos() / 1e9)
          .isGreaterThanOrEqualTo(0.03);
    }
  }

  private static LanesMetrics.Builder fresh(LanesMetrics.Builder b) {
    return b.statsMaxAge(Duration.ZERO);
  }

  private static Set<String> laneTags(MeterRegistry registry) {
    Set<String> out = new TreeSet<>();
    registry.getMeters().forEach(m -> out.add(m.getId().getTag("lane")));
    return out;
  }

  private static Timer timer(MeterRegistry registry, String name, String lane) {
    return registry.get(name).tag("lane", lane).timer();
  }

  /** lanes.health of a lane, state → value, in LaneHealth's order. */
  private static Map<String, Double> healthGauges(MeterRegistry registry, String lane) {
    Map<String, Double> states = new java.util.LinkedHashMap<>();
    for (LaneHealth h : LaneHealth.values()) {
      String state = h.name().toLowerCase(java.util.Locale.ROOT);
      states.put(state, registry.get("lanes.health").tag("lane", lane).tag("state", state).gauge().value());
    }
    return states;
  }

  private static double gauge(MeterRegistry registry, String name, String lane) {
    return registry.get(name).tag("lane", lane).gauge().value();
  }

  private static double counter(MeterRegistry registry, String lane, String outcome) {
    FunctionCounter c = registry.get("lanes.tasks").tag("lane", lane).tag("outcome", outcome).functionCounter();
    return c.count();
  }

  /** Sum of the lanes.tasks counters tagged rejected=true. */
  private static double rejected(MeterRegistry registry, String lane) {
    return registry.find("lanes.tasks").tag("lane", lane).tag("rejected", "true")
        .functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("test latch not released in 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void timeSpentInDependentStagesBetweenTasksIsPublished() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    long stageMillis = 30;
    try (Lanes lanes = Lanes.of(Lane.blocking("stages", 1));
        LanesMetrics metrics = fresh(LanesMetrics.builder(lanes)).build()) {
      metrics.bindTo(registry);
      Lane lane = lanes.lane("stages");
      CountDownLatch release = new CountDownLatch(1);
      lane.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      // queued behind the first task, so completing it runs the stage on the worker
      CompletableFuture<Void> stage = lane.submit(() -> "x").thenAccept(v -> {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(stageMillis);
        while (System.nanoTime() < end) {
          Thread.onSpinWait(); // a dependent stage that takes a while
        }
      });
      release.countDown();
      stage.get(30, TimeUnit.SECONDS);
      lane.submit(() -> "y").get(30, TimeUnit.SECONDS);
      assertThat(registry.get("lanes.between.tasks.time").tag("lane", "stages").functionCounter().count())
          .isGreaterThanOrEqualTo((stageMillis - 1) / 1000.0);
    }
  }
}
