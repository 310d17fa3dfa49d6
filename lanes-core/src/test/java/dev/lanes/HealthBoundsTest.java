package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #40: every health setting has an upper bound, refused alike by the builder and by {@code
 * change()}; health never throws (a huge duration that got past the checks still judges, and a
 * tick that fails on one lane is contained and logged once); the saturation samples stay bounded
 * whatever the window.
 */
@Timeout(60)
class HealthBoundsTest {
  private static final Duration MILLENNIUM = Duration.ofDays(365_000);
  private static final Duration OVER = Duration.ofHours(1).plusNanos(1);

  @RegisterExtension final Books books = new Books();

  @Test
  void everyHealthSettingIsBoundedAndTheBuilderAndChangeRefuseWithOneMessage() {
    Lane lane = books.track(Lane.blocking("huge", 1).build());
    LaneSettings before = lane.settings();
    for (Duration d : List.of(MILLENNIUM, OVER)) {
      assertSameMessage(() -> Lane.blocking("huge", 1).saturationWindow(d),
          () -> lane.change().saturationWindow(d),
          "lane \"huge\": saturationWindow must be at most PT1H, was " + d);
      assertSameMessage(() -> Lane.blocking("huge", 1).saturatedWhenWaitExceeds(d),
          () -> lane.change().saturatedWhenWaitExceeds(d),
          "lane \"huge\": saturation wait must be at most PT1H, was " + d);
      assertSameMessage(() -> Lane.blocking("huge", 1).saturationMinWait(d),
          () -> lane.change().saturationMinWait(d),
          "lane \"huge\": saturationMinWait must be at most PT1H, was " + d);
      assertSameMessage(() -> Lane.blocking("huge", 1).saturationHysteresis(d, Duration.ZERO),
          () -> lane.change().saturationHysteresis(d, Duration.ZERO),
          "lane \"huge\": saturationHysteresis enterAfter must be at most PT1H, was " + d);
      assertSameMessage(() -> Lane.blocking("huge", 1).saturationHysteresis(Duration.ZERO, d),
          () -> lane.change().saturationHysteresis(Duration.ZERO, d),
          "lane \"huge\": saturationHysteresis exitAfter must be at most PT1H, was " + d);
      assertThat(catchThrowableOfType(IllegalArgumentException.class,
              () -> Lane.blocking("huge", 1).deadlockDetection(d)))
          .hasMessage("lane \"huge\": deadlockDetection must be at most PT1H, was " + d);
    }
    assertSameMessage(() -> Lane.blocking("huge", 1).saturatedWhenWaitExceedsRun(1e7),
        () -> lane.change().saturatedWhenWaitExceedsRun(1e7),
        "lane \"huge\": saturation wait-to-run ratio must be at most 1000000, was 1.0E7");
    assertThat(lane.settings()).as("nothing refused applied").isEqualTo(before);

    // the bounds themselves are accepted, either way
    Duration hour = Duration.ofHours(1);
    assertThatCode(() -> Lane.blocking("huge", 1).saturationWindow(hour).saturationMinWait(hour)
        .saturationHysteresis(hour, hour).deadlockDetection(hour).saturatedWhenWaitExceeds(hour))
        .doesNotThrowAnyException();
    lane.change().saturationWindow(hour).saturationMinWait(hour).saturationHysteresis(hour, hour)
        .saturatedWhenWaitExceeds(hour).apply();
    assertThat(lane.settings().saturationWindow()).isEqualTo(hour);
    lane.change().saturatedWhenWaitExceedsRun(1e6).apply();
    assertThat(lane.settings().waitToRunRatio()).isEqualTo(1e6);
  }

  private static void assertSameMessage(Runnable builder, Runnable change, String expected) {
    Throwable a = catchThrowableOfType(IllegalArgumentException.class, builder::run);
    Throwable b = catchThrowableOfType(IllegalArgumentException.class, change::run);
    assertThat(a).as("the builder refuses: " + expected).isNotNull();
    assertThat(b).as("the change refuses: " + expected).isNotNull();
    assertThat(a).hasMessage(expected);
    assertThat(b).hasMessage(expected);
  }

  /** Settings beyond every bound, as if they had got past the checks. */
  private static HealthSettings millennial(HealthSettings s) {
    return new HealthSettings(MILLENNIUM, s.waitToRunRatio(), MILLENNIUM, MILLENNIUM,
        Duration.ZERO, Duration.ZERO, s.deadlockAction(), MILLENNIUM,
        s.maxCompensationThreads(), s.logLevel());
  }

  @Test
  void aThousandYearWindowPastTheChecksStillTurnsARefusingLaneRejecting() {
    AtomicLong clock = new AtomicLong();
    LaneExecutor lane = books.track((LaneExecutor) Lane.blocking("millennial", 1).queueCapacity(1)
        .ticker(clock::get).build());
    Settings now = lane.ctx.settings.get();
    lane.ctx.settings.replace(now, new Settings(now.concurrency, now.queueCapacity, now.overflow,
        now.shedTargetNanos, now.shedIntervalNanos, millennial(now.health)));
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    lane.onHealth(events::add);
    CountDownLatch release = Work.occupy(lane);
    lane.execute(() -> {}); // queued
    assertThat(catchThrowableOfType(LaneRejectedException.class, () -> lane.execute(() -> {})))
        .isNotNull();
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
    assertThatCode(lane::checkHealth).doesNotThrowAnyException();
    assertThat(lane.health()).isEqualTo(LaneHealth.REJECTING);
    assertThat(events).singleElement().extracting(HealthEvent::to).isEqualTo(LaneHealth.REJECTING);
    assertThat(lane.stats().saturatedNanos()).isGreaterThanOrEqualTo(0);
    release.countDown();
  }

  @Test
  void aTickThatFailsOnOneLaneIsLoggedOnceAndTheLaneStillFollowsItsRefusals() {
    // The broken lane's clock fails on the health thread only (its tasks run and are refused as
    // usual); its twin is sane. Both refuse; both must turn REJECTING.
    AtomicBoolean failing = new AtomicBoolean();
    AtomicInteger failedReads = new AtomicInteger();
    Ticker broken = () -> {
      if (failing.get() && Thread.currentThread().getName().equals("lanes-health")) {
        failedReads.incrementAndGet();
        throw new IllegalStateException("the test's clock is broken");
      }
      return System.nanoTime();
    };
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger("dev.lanes");
    Handler h = Work.captureLog(logged);
    try {
      Lane bad = books.track(Lane.blocking("broken-clock", 1).queueCapacity(1).ticker(broken)
          .saturationHysteresis(Duration.ZERO, Duration.ZERO).build());
      Lane twin = books.track(Lane.blocking("sane-clock", 1).queueCapacity(1)
          .saturationHysteresis(Duration.ZERO, Duration.ZERO).build());
      List<HealthEvent> badEvents = new CopyOnWriteArrayList<>();
      bad.onHealth(badEvents::add);
      failing.set(true);
      CountDownLatch releaseBad = Work.occupy(bad);
      CountDownLatch releaseTwin = Work.occupy(twin);
      for (Lane l : List.of(bad, twin)) {
        l.execute(() -> {}); // queued
        assertThat(catchThrowableOfType(LaneRejectedException.class, () -> l.execute(() -> {})))
            .isNotNull();
      }
      await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> twin.health() == LaneHealth.REJECTING);
      await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> bad.health() == LaneHealth.REJECTING);
      assertThat(badEvents).extracting(HealthEvent::to).containsExactly(LaneHealth.REJECTING);
      int seen = failedReads.get();
      await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> failedReads.get() >= seen + 10); // ten more failed ticks
      List<LogRecord> failures = logged.stream()
          .filter(r -> r.getMessage().contains("\"broken-clock\"")
              && r.getMessage().contains("health check failed"))
          .toList();
      assertThat(failures).singleElement().satisfies(r -> {
        assertThat(r.getLevel()).isEqualTo(Level.WARNING);
        assertThat(r.getMessage()).contains("the test's clock is broken");
      });
      assertThat(logged).noneMatch(r -> r.getLevel() == Level.SEVERE);
      failing.set(false);
      releaseBad.countDown();
      releaseTwin.countDown();
    } finally {
      failing.set(false);
      jul.removeHandler(h);
    }
  }

  @Test
  void anHourWindowKeepsAtMostAThousandSamplesAndStillForgetsOldRefusals() {
    AtomicLong clock = new AtomicLong();
    LaneExecutor lane = books.track((LaneExecutor) Lane.blocking("long-window", 1)
        .queueCapacity(1).ticker(clock::get).saturationWindow(Duration.ofHours(1))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).build());
    CountDownLatch release = Work.occupy(lane);
    lane.execute(() -> {});
    assertThat(catchThrowableOfType(LaneRejectedException.class, () -> lane.execute(() -> {})))
        .isNotNull();
    long tick = TimeUnit.MILLISECONDS.toNanos(HealthMonitor.TICK_MILLIS);
    int maxHeld = 0;
    Consumer<Long> tickAt = now -> lane.health.tick(now);
    for (int i = 1; i <= 36_000; i++) { // an hour of ticks, 10 a second
      clock.addAndGet(tick);
      tickAt.accept(clock.get());
      maxHeld = Math.max(maxHeld, lane.health.samplesHeld());
      if (i == 10) {
        assertThat(lane.health()).isEqualTo(LaneHealth.REJECTING);
      }
    }
    assertThat(maxHeld).isLessThanOrEqualTo(HealthMonitor.SAMPLES_PER_WINDOW + 2);
    assertThat(lane.health()).as("the refusal is still in the hour").isEqualTo(LaneHealth.REJECTING);
    for (int i = 0; i < 100; i++) { // 10 s more: the refusal at 0 leaves the window
      clock.addAndGet(tick);
      tickAt.accept(clock.get());
    }
    assertThat(lane.health()).as("the refusal left the window").isNotEqualTo(LaneHealth.REJECTING);
    release.countDown();
  }
}
