package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An alert's evidence is the window that made it fire, read against the lane's own figures: the
 * tasks that ended in a saturation episode (not the lane's last stats interval, which may hold
 * none of them), refusals over the time they came in, and no line that contradicts another.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AlertEvidenceTest {
  private static final Duration SATURATED_FOR = Duration.ofSeconds(30);

  @Test
  void aSaturationAlertShowsTheTasksThatEndedInItsEpisodeAsTheLaneCountedThem() throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = LaneAlertsTest.saturable("episode");
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch first = new CountDownLatch(1);
    CountDownLatch second = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .saturatedFor(SATURATED_FOR).sink(sent::add).build()) {
      for (int i = 0; i < 5; i++) {
        lane.submit(() -> null).get(); // before the episode: not its evidence
      }
      alerts.watch(lane);
      List<CompletableFuture<?>> tasks = new ArrayList<>(Overload.hold(lane, first, 3));
      await().until(() -> lane.health() == LaneHealth.SATURATED);
      alerts.check(); // the episode starts; the worker is held, so nothing ends until released
      LaneStats atStart = lane.stats();

      first.countDown(); // the episode's tasks: the hold and the three behind it end
      CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get();
      tasks.addAll(Overload.hold(lane, second, 1)); // saturated again, held again: nothing ends now
      await().until(() -> lane.health() == LaneHealth.SATURATED);
      clock.advance(SATURATED_FOR);
      alerts.check();

      assertThat(sent).hasSize(1);
      Alert alert = sent.get(0);
      assertThat(alert.kind()).isEqualTo(AlertKind.SATURATED);
      LaneStats atAlert = alert.stats();
      long ended = atAlert.sinceStart().queueWait().count()
          - atStart.sinceStart().queueWait().count();
      assertThat(ended).as("the hold and the three behind it").isEqualTo(4);
      assertThat(alert.figures()).containsEntry("endedInWindow", (double) ended)
          .containsEntry("judgedWindowMs", (double) SATURATED_FOR.toMillis());
      assertThat(alert.figures().get("queueWaitMeanMsInWindow"))
          .isCloseTo(meanMsBetween(atStart, atAlert, true), within(1e-3));
      assertThat(alert.figures().get("runMeanMsInWindow"))
          .isCloseTo(meanMsBetween(atStart, atAlert, false), within(1e-3));
      assertThat(alert.evidence().get(0))
          .startsWith("queue wait mean ")
          .endsWith(" over the 4 tasks that ended in the 30.00 s this alert judged");
    } finally {
      first.countDown();
      second.countDown();
      lane.close();
    }
  }

  /** The mean queue wait (or run time) of the tasks that ended between two snapshots, in ms. */
  private static double meanMsBetween(LaneStats from, LaneStats to, boolean wait) {
    var a = wait ? from.sinceStart().queueWait() : from.sinceStart().runTime();
    var b = wait ? to.sinceStart().queueWait() : to.sinceStart().runTime();
    return (b.mean() * b.count() - a.mean() * a.count()) / (b.count() - a.count()) / 1e6;
  }

  @Test
  void refusalsWatchedForLessThanTheWindowAreShownOverTheTimeTheyCameIn() throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = Lane.blocking("full", 1).queueCapacity(1).build();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .rejectionsPerSecond(1, Duration.ofSeconds(10)).sink(sent::add).build()) {
      alerts.watch(lane);
      Overload.hold(lane, release, 1); // worker held, queue full
      clock.advance(Duration.ofSeconds(1));
      int refused = 0;
      for (int i = 0; i < 15; i++) {
        try {
          lane.execute(() -> { });
        } catch (LaneRejectedException e) {
          refused++;
        }
      }
      assertThat(refused).isEqualTo(15);
      alerts.check();

      assertThat(sent).hasSize(1);
      Alert alert = sent.get(0);
      assertThat(alert.figures()).containsEntry("rejectedInWindow", 15.0)
          .containsEntry("rejectedPerSecond", 1.5) // the rule: averaged over the 10 s window
          .containsEntry("watchedMs", 1000.0)
          .containsEntry("rejectedPerSecondWatched", 15.0); // the 15 came in the 1 s watched
      assertThat(alert.headline()).isEqualTo("lane \"full\" refused or dropped 15 tasks in the"
          + " 1.00 s watched so far (15.00/s; 1.50/s over the 10.00 s window, alert above"
          + " 1.00/s): queue_full 15");
    } finally {
      release.countDown();
      lane.close();
    }
  }

  @Test
  void tasksQueuedBeyondTheCapacityAreSaidToBeSoAndTheStateLineAgreesWithTheHeadline()
      throws Exception {
    Lane lane = Lane.blocking("wide", 5).queueCapacity(20).build();
    try {
      LaneStats real = lane.stats();
      LaneStats s = new LaneStats(real.lane(), real.kind(), false, false, LaneHealth.OK,
          real.uptimeNanos(), 25, 4, real.ended(), 21, 0, 4, 5, 5, 20, real.sinceStart(),
          real.recent(), 0, 0, 0, 0, real.pinning());
      Alert alert = new Alert("wide", AlertKind.REJECTING, false, Instant.now(), "h", s, Map.of(),
          "", "");
      // A REJECTING alert while the lane's own monitor still says OK (its windows lag the
      // check's): the body states REJECTING and says whose OK it is, in the text and the JSON.
      assertThat(alert.evidence()).contains(
          "in flight 4 of concurrency 5; queued 21 of capacity 20, and 1 that the lane's 1 free"
              + " workers have not taken yet",
          "state: REJECTING (REJECTING at this check); the lane's own monitor, judging over its"
              + " own windows, said OK");
      assertThat(alert.evidence()).noneMatch(line -> line.startsWith("health"));
      var json = tools.jackson.databind.json.JsonMapper.builder().build()
          .readTree(AlertJson.generic(alert).toString());
      assertThat(json.get("evidence").get("state").asString()).isEqualTo("REJECTING");
      assertThat(json.get("evidence").get("health").asString()).isEqualTo("OK");
      assertThat(json.get("conditions").toString()).isEqualTo("[\"REJECTING\"]");
    } finally {
      lane.close();
    }
  }
}
