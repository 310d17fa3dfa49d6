package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneRejectedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link LaneAlerts} does with each answer of its {@link AlertDedupe} (lanes-redis's
 * RedisAlertDedupeTest runs the same on a real Redis): refused, it sends neither the alert nor the
 * recovery; failing, it sends anyway and says so once until the dedupe answers again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AlertDedupeTest {
  private static final Duration WINDOW = Duration.ofSeconds(10);

  /** A claim whose answer the test sets: "yes", "no" or "fail". */
  private static final class Answers implements AlertDedupe {
    final AtomicReference<String> answer = new AtomicReference<>("yes");
    final List<String> asked = new CopyOnWriteArrayList<>();

    @Override
    public boolean claim(String lane, AlertKind kind, Duration hold) {
      asked.add(lane + " " + kind + " " + hold);
      return switch (answer.get()) {
        case "fail" -> throw new IllegalStateException("unreachable");
        case "no" -> false;
        default -> true;
      };
    }

    @Override
    public String toString() {
      return "Answers";
    }
  }

  /** A full lane that refuses 5 tasks; its own monitor says OK 200 ms after. */
  private static void episode(Lane lane, LaneAlerts alerts, ManualTicker clock) {
    for (int i = 0; i < 5; i++) {
      try {
        lane.execute(() -> {});
      } catch (LaneRejectedException expected) {
        // counted
      }
    }
    clock.advance(Duration.ofSeconds(1));
    alerts.check();
    await().until(() -> lane.health() == LaneHealth.OK);
    clock.advance(WINDOW.plusSeconds(1));
    alerts.check();
  }

  @Test
  void refusedItSendsNothingFailingItSendsAndSaysSoOnceThenThatItAnswersAgain() throws Exception {
    ManualTicker clock = new ManualTicker();
    Answers dedupe = new Answers();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    Lane lane = Lane.blocking("reports", 1).queueCapacity(1)
        .saturatedWhenWaitExceeds(Duration.ofHours(1)).saturationWindow(Duration.ofMillis(200))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).build();
    try (LogCapture log = new LogCapture();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
            .rejectionsPerSecond(0, WINDOW).silence(Duration.ZERO).recoveryMessages()
            .dedupe(dedupe).sink(sent::add).build()) {
      alerts.watch(lane);
      Overload.hold(lane, release, 1);

      dedupe.answer.set("no");
      episode(lane, alerts, clock);
      assertThat(sent).as("another instance sent it, and sends its recovery").isEmpty();
      assertThat(dedupe.asked).containsExactly("reports REJECTING " + LaneAlerts.Builder.MIN_CLAIM_HOLD);

      dedupe.answer.set("fail");
      episode(lane, alerts, clock);
      episode(lane, alerts, clock);
      assertThat(sent).extracting(Alert::resolved).containsExactly(false, true, false, true);
      dedupe.answer.set("yes");
      episode(lane, alerts, clock);
      assertThat(sent).hasSize(6);
      assertThat(log.records).extracting(r -> r.getLevel() + " " + r.getMessage()).containsExactly(
          Level.WARNING + " lanes alerts: de-duplication failed (Answers:"
              + " java.lang.IllegalStateException: unreachable); sending alerts from this instance"
              + " without it until it answers again",
          Level.INFO + " lanes alerts: de-duplication answers again (Answers); alerts go out once"
              + " per episode across instances");
    } finally {
      release.countDown();
      lane.close();
    }
  }

  @Test
  void theClaimIsHeldForTheSilenceWindowWhenLongerThanTheMinimum() {
    Answers dedupe = new Answers();
    try (Lane lane = Lane.blocking("shut", 1).build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().rejectionsPerSecond(0, WINDOW)
            .silence(Duration.ofMinutes(15)).dedupe(dedupe).sink(a -> {}).build()) {
      alerts.watch(lane);
      lane.shutdown();
      try {
        lane.execute(() -> {});
      } catch (LaneRejectedException expected) {
        // counted as SHUTDOWN
      }
      alerts.check();
      assertThat(dedupe.asked).containsExactly("shut REJECTING PT15M");
    }
  }
}
