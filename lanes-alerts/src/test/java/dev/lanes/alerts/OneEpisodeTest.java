package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One overload episode of one lane, as a user's {@code reports} lane had it: saturated, then its
 * queue full and tasks refused, then back to OK. The sink receives one alert for the episode, one
 * labelled follow-up when it worsened, and one recovery message; no line of an alert contradicts
 * its headline.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneEpisodeTest {
  private static final Duration SATURATED_FOR = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofSeconds(10);

  /** A 1-thread lane of queue capacity 3, SATURATED as soon as a task has waited 1 ms. */
  private static Lane reports() {
    return Lane.blocking("reports", 1).queueCapacity(3)
        .saturatedWhenWaitExceeds(Duration.ofMillis(1))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO)
        .saturationWindow(Duration.ofMillis(200))
        .build();
  }

  @Test
  void anOverloadEpisodeSendsOneAlertOneLabelledFollowUpWhenItWorsensAndOneRecovery()
      throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = reports();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .saturatedFor(SATURATED_FOR).rejectionsPerSecond(1, WINDOW).recoveryMessages()
        .sink(sent::add).build()) {
      alerts.watch(lane);
      List<CompletableFuture<?>> tasks = Overload.hold(lane, release, 1);
      await().until(() -> lane.health() == LaneHealth.SATURATED);
      alerts.check(); // saturated: the episode starts
      clock.advance(SATURATED_FOR);
      alerts.check(); // saturated for 30 s: the alert
      assertThat(sent).hasSize(1);
      assertThat(sent.get(0).kind()).isEqualTo(AlertKind.SATURATED);

      tasks.add(lane.submit(() -> "fills"));
      tasks.add(lane.submit(() -> "the queue"));
      assertThat(Overload.refuse(lane, 40)).isEqualTo(40); // queue full: refused, 40 in 31 s watched
      clock.advance(Duration.ofSeconds(1));
      alerts.check(); // worse: now refusing too
      clock.advance(Duration.ofSeconds(1));
      alerts.check();
      assertThat(Overload.refuse(lane, 30)).isEqualTo(30);
      clock.advance(Duration.ofSeconds(1));
      alerts.check(); // still refusing, still saturated: nothing new

      release.countDown();
      CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get();
      await().until(() -> lane.health() == LaneHealth.OK);
      clock.advance(WINDOW.plusSeconds(1));
      alerts.check(); // back to OK
      clock.advance(Duration.ofMinutes(1));
      alerts.check();

      assertThat(sent).extracting(a -> a.kind() + (a.resolved() ? " resolved" : " firing"))
          .containsExactly("SATURATED firing", "REJECTING firing", "REJECTING resolved");
      Alert worse = sent.get(1);
      assertThat(worse.headline()).startsWith("lane \"reports\" worse: refused or dropped 40 tasks")
          .endsWith("(also: SATURATED)");
      assertThat(worse.conditions()).containsExactly(AlertKind.SATURATED, AlertKind.REJECTING);
      // The body's state is the headline's: never a REJECTING alert whose body says OK.
      assertThat(sent.get(0).evidence()).anyMatch(l -> l.startsWith("state: SATURATED")
          || l.equals("health (the lane's own monitor): SATURATED"));
      assertThat(worse.evidence()).anyMatch(l -> l.startsWith("state: REJECTING")
          || l.equals("health (the lane's own monitor): REJECTING"));
      Alert recovery = sent.get(2);
      assertThat(recovery.headline()).startsWith("lane \"reports\" recovered: no longer saturated,"
          + " refusing at or below 1.00/s (the episode lasted ");
      assertThat(alerts.alertsSent()).isEqualTo(3);
    } finally {
      release.countDown();
      lane.close();
    }
  }

  /**
   * A lane whose own monitor says REJECTING is "SATURATED or worse" for the saturation rule, but
   * its REJECTING alert does not name a saturation that is only that: no task waited too long.
   */
  @Test
  void aRefusingLaneThatIsNotSaturatedIsNotSaidToBe() throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = Lane.blocking("full", 1).queueCapacity(1)
        .saturatedWhenWaitExceeds(Duration.ofHours(1))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO)
        .saturationWindow(Duration.ofMillis(200)).build();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .rejectionsPerSecond(0, WINDOW).recoveryMessages().sink(sent::add).build()) {
      alerts.watch(lane);
      Overload.hold(lane, release, 1);
      // Refusals until the lane's own monitor has seen one in its window.
      await().until(() -> {
        Overload.refuse(lane, 1);
        return lane.health() == LaneHealth.REJECTING;
      });
      clock.advance(Duration.ofSeconds(1));
      alerts.check();
      assertThat(sent).singleElement().satisfies(a -> {
        assertThat(a.kind()).isEqualTo(AlertKind.REJECTING);
        assertThat(a.stats().health()).isEqualTo(LaneHealth.REJECTING);
        assertThat(a.conditions()).containsExactly(AlertKind.REJECTING);
        assertThat(a.headline()).doesNotContain("also");
        assertThat(a.evidence()).contains("health (the lane's own monitor): REJECTING");
      });
      await().until(() -> lane.health() == LaneHealth.OK);
      clock.advance(WINDOW.plusSeconds(1));
      alerts.check();
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1).headline()).startsWith("lane \"full\" recovered: refusing at or"
          + " below 0.00/s (the episode lasted ");
    } finally {
      release.countDown();
      lane.close();
    }
  }
}
