package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneRejectedException;
import dev.lanes.Lanes;
import dev.lanes.TaskOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Alerts end to end: real lanes driven into trouble with latches, a real webhook receiver on
 * loopback, and the alerts' own clock moved by hand (so no test sleeps or waits for a window).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaneAlertsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration SATURATED_FOR = Duration.ofSeconds(30);
  private static final Duration SILENCE = Duration.ofMinutes(15);
  private static final Duration WINDOW = Duration.ofSeconds(10);

  /** A 1-thread lane that becomes SATURATED as soon as a task has waited 1 ms. */
  static Lane saturable(String name) {
    return Lane.blocking(name, 1).queueCapacity(10)
        .saturatedWhenWaitExceeds(Duration.ofMillis(1))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO)
        .saturationWindow(Duration.ofMillis(200))
        .build();
  }

  @Test
  void aSaturationEpisodeSendsExactlyOneWebhookWithTheFiguresAndTheStacksAndNoneInsideTheSilence()
      throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = saturable("sat");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch release2 = new CountDownLatch(1);
    try (Hook hook = Hook.start()) {
      WebhookSink webhook = WebhookSink.to(hook.uri()).build();
      try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
          .saturatedFor(SATURATED_FOR).silence(SILENCE).sink(webhook).build()) {
        alerts.watch(lane);
        List<CompletableFuture<?>> tasks = Overload.hold(lane, release, 1);
        await().until(() -> lane.health() == LaneHealth.SATURATED);

        alerts.check(); // the episode starts
        clock.advance(SATURATED_FOR.minusSeconds(1));
        alerts.check();
        assertThat(alerts.alertsSent()).as("not yet saturated for 30 s").isZero();
        clock.advance(Duration.ofSeconds(1));
        alerts.check();
        assertThat(alerts.alertsSent()).isEqualTo(1);
        await().until(() -> webhook.delivered() == 1);

        JsonNode body = JSON.readTree(hook.bodies.get(0));
        assertThat(body.get("lane").asString()).isEqualTo("sat");
        assertThat(body.get("kind").asString()).isEqualTo("SATURATED");
        assertThat(body.get("status").asString()).isEqualTo("firing");
        JsonNode evidence = body.get("evidence");
        assertThat(evidence.get("running").asInt()).isEqualTo(1);
        assertThat(evidence.get("concurrency").asInt()).isEqualTo(1);
        assertThat(evidence.get("queued").asInt()).isEqualTo(1);
        assertThat(evidence.get("queueCapacity").asInt()).isEqualTo(10);
        assertThat(evidence.get("oldestQueuedMs").asDouble()).isGreaterThan(1.0);
        assertThat(evidence.get("counts").get("submitted").asLong()).isEqualTo(2);
        assertThat(evidence.has("queueWait") && evidence.get("queueWait").has("recentP99Ms")).isTrue();
        assertThat(evidence.get("runTime").has("recentMeanMs")).isTrue();
        assertThat(body.get("figures").get("saturatedForMs").asDouble()).isEqualTo(30_000.0);
        assertThat(body.get("figures").get("thresholdMs").asDouble()).isEqualTo(30_000.0);
        // The stacks of the lane's workers: the held worker, in this test's task, on the latch.
        String stacks = body.get("workerStacks").asString();
        assertThat(stacks).contains("\"sat-1\"", "CountDownLatch.await", "Overload.lambda$hold");
        assertThat(body.get("text").asString())
            .contains("lane \"sat\" has been SATURATED for 30.00 s", "in flight 1 of concurrency 1",
                "queued 1 of capacity 10", "oldest waiting: ", "sat-1");

        // The same episode goes on: nothing more.
        clock.advance(Duration.ofMinutes(1));
        alerts.check();
        assertThat(alerts.alertsSent()).isEqualTo(1);

        // It ends; a second episode inside the silence window is held, not sent.
        release.countDown();
        CompletableFuture.allOf(tasks.toArray(new CompletableFuture[0])).get();
        await().until(() -> lane.health() == LaneHealth.OK);
        alerts.check();
        List<CompletableFuture<?>> tasks2 = Overload.hold(lane, release2, 1);
        await().until(() -> lane.health() == LaneHealth.SATURATED);
        alerts.check();
        clock.advance(SATURATED_FOR);
        alerts.check();
        clock.advance(Duration.ofMinutes(5));
        alerts.check();
        assertThat(alerts.alertsSent()).as("inside the silence window").isEqualTo(1);
        assertThat(webhook.delivered() + webhook.failed()).isEqualTo(1);
        assertThat(hook.bodies).hasSize(1);

        // The window has passed and the episode still holds: it is sent now, once.
        clock.advance(SILENCE);
        alerts.check();
        alerts.check();
        assertThat(alerts.alertsSent()).isEqualTo(2);
        await().until(() -> webhook.delivered() == 2);
        JsonNode second = JSON.readTree(hook.bodies.get(1));
        assertThat(second.get("kind").asString()).isEqualTo("SATURATED");
        assertThat(second.get("workerStacks").asString()).contains("\"sat-1\"");
        assertThat(second.get("figures").get("silencedEpisodes").asDouble())
            .as("the held episode is the one sent, not a silenced one").isEqualTo(0.0);
        release2.countDown();
        CompletableFuture.allOf(tasks2.toArray(new CompletableFuture[0])).get();
      }
    } finally {
      release.countDown(); // a failed assertion must not leave the lane's worker held
      release2.countDown();
      lane.close();
    }
    assertThat(lane.stats().completed()).isEqualTo(4);
  }

  @Test
  void aRejectionRateAboveTheThresholdAlertsWithEachReasonsRateAndAgainAfterTheSilence()
      throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = Lane.blocking("full", 1).queueCapacity(1).build();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .rejectionsPerSecond(1, WINDOW).silence(SILENCE).recoveryMessages().sink(sent::add)
        .build()) {
      alerts.watch(lane);
      List<CompletableFuture<?>> held = Overload.hold(lane, release, 1); // worker held, queue full
      assertThat(Overload.refuse(lane, 5)).isEqualTo(5);
      alerts.check();
      assertThat(sent).as("5 in 10 s is 0.5/s").isEmpty();
      assertThat(Overload.refuse(lane, 10)).isEqualTo(10);
      alerts.check();
      assertThat(sent).hasSize(1);
      Alert first = sent.get(0);
      assertThat(first.kind()).isEqualTo(AlertKind.REJECTING);
      assertThat(first.figures()).containsEntry("rejectedPerSecond", 1.5)
          .containsEntry("rejectedPerSecond.queue_full", 1.5)
          .containsEntry("rejectedInWindow", 15.0)
          .containsEntry("thresholdPerSecond", 1.0)
          .containsEntry("silencedEpisodes", 0.0);
      assertThat(first.headline()).isEqualTo("lane \"full\" refused or dropped 15 tasks in the"
          + " last 10.00 s (1.50/s, alert above 1.00/s): queue_full 15");
      assertThat(first.text()).contains("rejected 15 (queue_full 15)");
      assertThat(first.workerStacks()).contains("\"full-1\"");

      // The window slides past the refusals: the episode ends, with a recovery message.
      clock.advance(WINDOW.plusSeconds(1));
      alerts.check();
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1).resolved()).isTrue();
      assertThat(sent.get(1).headline()).contains("recovered");
      assertThat(sent.get(1).workerStacks()).isEmpty();

      // An episode inside the silence window: not sent, counted; it ends without a message.
      Overload.refuse(lane, 20);
      alerts.check();
      clock.advance(WINDOW.plusSeconds(1));
      alerts.check();
      assertThat(sent).hasSize(2);

      // After the window, the next episode is sent, saying one was silenced.
      clock.advance(SILENCE);
      alerts.check();
      clock.advance(WINDOW); // checks a window apart: the rate is over the last window only
      alerts.check();
      Overload.refuse(lane, 20);
      alerts.check();
      assertThat(sent).hasSize(3);
      assertThat(sent.get(2).resolved()).isFalse();
      assertThat(sent.get(2).figures()).containsEntry("silencedEpisodes", 1.0);
      assertThat(alerts.alertsSent()).isEqualTo(3);
      release.countDown();
      CompletableFuture.allOf(held.toArray(new CompletableFuture[0])).get();
    } finally {
      release.countDown();
      lane.close();
    }
    assertThat(lane.stats().count(TaskOutcome.QUEUE_FULL)).isEqualTo(55);
  }

  @Test
  void shedTasksAreCountedUnderTheirOwnReason() throws Exception {
    ManualTicker clock = new ManualTicker();
    Lane lane = Lane.blocking("shedding", 1).queueCapacity(100)
        .shedWhenQueuedLongerThan(Duration.ofMillis(1), Duration.ofMillis(1)).build();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
        .rejectionsPerSecond(0, WINDOW).sink(sent::add).build()) {
      alerts.watch(lane);
      List<CompletableFuture<?>> held = Overload.hold(lane, release, 1);
      // Once the queued task has stood longer than 1 ms for 1 ms, new tasks are shed.
      await().until(() -> {
        try {
          held.add(lane.submit(() -> "x"));
          return false;
        } catch (LaneRejectedException e) {
          return e.reason() == TaskOutcome.SHED;
        }
      });
      alerts.check();
      assertThat(sent).hasSize(1);
      assertThat(sent.get(0).figures()).containsEntry("rejectedPerSecond.shed", 0.1)
          .doesNotContainKey("rejectedPerSecond.queue_full");
      assertThat(sent.get(0).figures()).containsEntry("rejectedInWindow.shed", 1.0);
      assertThat(sent.get(0).headline()).contains("refused or dropped 1 task in", "): shed 1");
      release.countDown();
      CompletableFuture.allOf(held.toArray(new CompletableFuture[0])).get();
    } finally {
      release.countDown();
      lane.close();
    }
  }

  @Test
  void aNestedSubmissionDeadlockIsSentAtOnceWithTheLanesDiagnosisAndTheStacks() throws Exception {
    Lane lane = Lane.blocking("nested", 1).deadlockDetection(Duration.ofMillis(50)).build();
    List<CompletableFuture<String>> children = new CopyOnWriteArrayList<>();
    CompletableFuture<String> parent;
    try (Hook hook = Hook.start()) {
      WebhookSink webhook = WebhookSink.to(hook.uri()).build();
      // Scheduled checks an hour apart: the lane's health event asks for one at once.
      try (LaneAlerts alerts = LaneAlerts.builder().checkInterval(Duration.ofHours(1))
          .sink(webhook).build()) {
        alerts.watch(lane);
        Thread checker = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("lanes-alerts")).findFirst().orElseThrow();
        assertThat(checker.isDaemon()).isTrue();

        parent = lane.submit(() -> {
          CompletableFuture<String> child = CompletableFuture.supplyAsync(() -> "child", lane);
          children.add(child);
          return child.join(); // the lane's only worker waits on a task queued behind it
        });
        await().until(() -> webhook.delivered() == 1);
        JsonNode body = JSON.readTree(hook.bodies.get(0));
        assertThat(body.get("kind").asString()).isEqualTo("DEADLOCKED");
        assertThat(body.get("headline").asString()).contains("lane \"nested\"", "starvation deadlock");
        assertThat(body.get("diagnostic").asString()).contains("starvation deadlock", "nested-1");
        assertThat(body.get("workerStacks").asString())
            .contains("\"nested-1\"", "CompletableFuture");
        assertThat(body.get("figures").get("workers").asDouble()).isEqualTo(1.0);
        assertThat(body.get("evidence").get("queued").asInt()).isEqualTo(1);
        assertThat(body.get("evidence").get("health").asString()).isEqualTo("DEADLOCKED");

        children.forEach(c -> c.cancel(false)); // break the cycle: the parent ends
        parent.handle((v, e) -> null).get();
        alerts.close();
        checker.join();
        assertThat(checker.isAlive()).isFalse();
        assertThat(webhook.delivered()).isEqualTo(1);
      }
    } finally {
      children.forEach(c -> c.cancel(false));
      lane.close();
    }
  }

  @Test
  void aDeadlockFormedAndBrokenBetweenTwoChecksIsStillSent() throws Exception {
    List<Alert> sent = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("broken", 1).failOnDeadlock().build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().sink(sent::add).build()) {
      alerts.watch(lane);
      CompletableFuture<String> parent = lane.submit(() -> lane.submit(() -> "child").get());
      // The lane proves the deadlock and fails the child to break it: the parent ends.
      assertThat(parent.handle((v, e) -> e).get()).isNotNull();
      await().until(() -> lane.health() != LaneHealth.DEADLOCKED);
      alerts.check();
      assertThat(sent).singleElement().satisfies(a -> {
        assertThat(a.kind()).isEqualTo(AlertKind.DEADLOCKED);
        assertThat(a.diagnostic()).contains("starvation deadlock", "broken-1");
        assertThat(a.stats().count(TaskOutcome.DEADLOCK)).isEqualTo(1);
      });
      alerts.check();
      assertThat(sent).hasSize(1);
    }
  }

  /**
   * A lane that reports pinning and pinned since the last check: a PINNING alert naming the
   * site, the label and the time, with each site's stack in the diagnostic; no new pin at the
   * next check ends the episode.
   */
  @Test
  void aLaneThatPinnedItsCarrierAlertsWithTheSiteAndLabel() throws Exception {
    List<Alert> sent = new CopyOnWriteArrayList<>();
    try (Lane lane = dev.lanes.Lane.virtual("pinner", 2).reportPinning().build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().recoveryMessages()
            .sink(sent::add).build()) {
      alerts.watch(lane);
      alerts.check();
      assertThat(sent).isEmpty();
      lane.submit("load-rates",
          () -> dev.lanes.testkit.Pins.sleepInClassInitializer(Duration.ofMillis(60))).get();
      await().atMost(java.time.Duration.ofSeconds(60))
          .until(() -> lane.stats().pinning().count() == 1);
      alerts.check();
      assertThat(sent).singleElement().satisfies(a -> {
        assertThat(a.kind()).isEqualTo(AlertKind.PINNING);
        assertThat(a.headline()).startsWith("lane \"pinner\" pinned its carrier 1 time for ")
            .contains("most in dev.lanes.testkit.PinSleeper.<clinit>",
                "label \"load-rates\"");
        assertThat(a.figures()).containsEntry("pinsSinceCheck", 1.0);
        assertThat(a.figures().get("pinnedMsSinceCheck")).isGreaterThanOrEqualTo(30.0);
        assertThat(a.diagnostic()).contains("PinSleeper.<clinit>", "Thread.sleep");
      });
      alerts.check(); // no new pin: the episode ends
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1).resolved()).isTrue();
      assertThat(sent.get(1).headline()).contains("no new pins of its carrier");
    }
  }

  @Test
  void aSuspectedDeadlockEventAlertsAndItsEpisodeEndsWhenTheLaneIsOk() {
    // A suspicion needs java.util.concurrent closed, which this JVM opens; the event's shape is
    // the one HealthMonitor publishes (DESIGN.md, "Deadlocks"), given to the lane's listener.
    ManualTicker clock = new ManualTicker();
    List<Alert> sent = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("suspect", 1).build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker(clock)
            .recoveryMessages().sink(sent::add).build()) {
      alerts.watch(lane);
      alerts.deliverForTest(lane, new dev.lanes.HealthEvent("suspect", LaneHealth.SATURATED,
          LaneHealth.SATURATED, clock.read(),
          java.util.Map.of("suspectedDeadlock", 1.0, "futureWaiters", 1.0, "asyncQueued", 1.0),
          "suspected starvation deadlock: …"));
      alerts.check();
      assertThat(sent).hasSize(1);
      assertThat(sent.get(0).kind()).isEqualTo(AlertKind.DEADLOCK_SUSPECTED);
      assertThat(sent.get(0).diagnostic()).startsWith("suspected starvation deadlock");
      assertThat(sent.get(0).figures()).containsEntry("futureWaiters", 1.0);
      // Not proven, and no saturation of its own: the body gives the lane's health as it is.
      assertThat(sent.get(0).evidence()).contains("health (the lane's own monitor): OK");
      alerts.check(); // the lane is OK: the episode ends
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1).resolved()).isTrue();
    }
  }

  @Test
  void onTheCallersSchedulerChecksRunThereAndCloseCancelsThemLeavingItRunning() throws Exception {
    java.util.concurrent.ScheduledExecutorService mine =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "mine"));
    List<String> checkedOn = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("theirs", 1).queueCapacity(1).build()) {
      LaneAlerts alerts = LaneAlerts.builder().scheduler(mine).checkInterval(Duration.ofMillis(20))
          .rejectionsPerSecond(0, WINDOW).sink(a -> checkedOn.add(Thread.currentThread().getName()))
          .build();
      alerts.watch(lane);
      lane.shutdown(); // a refused task: the next check alerts
      try {
        lane.execute(() -> {});
      } catch (LaneRejectedException expected) {
        // counted as SHUTDOWN
      }
      await().until(() -> checkedOn.size() == 1);
      assertThat(checkedOn).containsExactly("mine");
      alerts.close();
      assertThat(mine.isShutdown()).isFalse();
      assertThat(mine.submit(() -> "still runs").get()).isEqualTo("still runs");
    } finally {
      mine.shutdown();
      assertThat(mine.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aLanesSetIsWatchedWholeAndLanesAddedOrRemovedLaterFollow() {
    try (Lanes lanes = Lanes.of(Lane.blocking("a", 1));
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().sink(a -> {}).build()) {
      alerts.watch(lanes);
      assertThat(alerts.watching()).containsExactly("a");
      lanes.add(Lane.blocking("b", 1));
      assertThat(alerts.watching()).containsExactly("a", "b");
      Lane a = lanes.remove("a");
      a.close();
      assertThat(alerts.watching()).containsExactly("b");
      assertThat(alerts.watch(lanes.lane("b"))).isFalse();
      alerts.close();
      assertThat(alerts.watching()).isEmpty();
      lanes.add(Lane.blocking("c", 1));
      assertThat(alerts.watching()).isEmpty();
    }
  }
}
