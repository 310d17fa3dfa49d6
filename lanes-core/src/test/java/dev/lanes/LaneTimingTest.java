package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LaneTimingTest {
  private static final long TASK_MS = 50;

  @Test
  void splitsQueueWaitRunAndCpuTime() throws Exception {
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("split", 1).cpuTimeEveryTask().build()) {
      lane.onTask(records::add);
      var spinner = lane.submit("spin", () -> Work.spinCpuMillis(TASK_MS));
      var sleeper = lane.submit("sleep", () -> {
        try {
          TimeUnit.MILLISECONDS.sleep(TASK_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      spinner.get();
      sleeper.get();
    }
    TaskRecord spin = records.stream().filter(r -> r.label().equals("spin")).findFirst().orElseThrow();
    TaskRecord sleep = records.stream().filter(r -> r.label().equals("sleep")).findFirst().orElseThrow();
    // The sleeper queued behind the spinner: its wait is about the spinner's run.
    assertThat(sleep.queueWaitMillis()).isGreaterThanOrEqualTo(TASK_MS * 0.9);
    assertThat(sleep.queueWaitMillis()).isGreaterThanOrEqualTo(spin.runMillis() * 0.9);
    assertThat(sleep.runMillis()).isGreaterThanOrEqualTo(TASK_MS * 0.9);
    // Sleeping costs no CPU; spinning costs about all of its run time.
    assertThat(sleep.cpuMillis()).isBetween(0.0, 0.3 * sleep.runMillis());
    // The spinner burned 50 ms of CPU (however long that took on a loaded machine): the lane's
    // figure must show it, and can never exceed the run time.
    assertThat(spin.cpuMillis()).isGreaterThanOrEqualTo(TASK_MS * 0.95);
    assertThat(spin.cpuMillis()).isLessThanOrEqualTo(spin.runMillis() + 1);
    assertThat(spin.cpuMillis()).isGreaterThan(5 * sleep.cpuMillis());
    assertThat(spin.thread()).isEqualTo("split-1");
    assertThat(spin.outcome()).isEqualTo(TaskOutcome.COMPLETED);
  }

  @Test
  void statsCarryDistributionsUtilisationAndBlockingRatio() throws Exception {
    double sleeperBlockingRatio;
    try (Lane sleeper = Lane.blocking("sleeper", 1).cpuTimeEveryTask().build()) {
      for (int i = 0; i < 5; i++) {
        sleeper.submit(() -> {
          TimeUnit.MILLISECONDS.sleep(2);
          return null;
        }).get();
      }
      sleeperBlockingRatio = sleeper.stats().blockingRatio();
    }
    try (Lane lane = Lane.blocking("stats", 2).cpuTimeEveryTask().build()) {
      for (int i = 0; i < 20; i++) {
        lane.submit(() -> Work.spinMillis(2)).get();
      }
      LaneStats s = lane.stats();
      assertThat(s.sinceStart().runTime().count()).isEqualTo(20);
      assertThat(s.sinceStart().runTime().p50()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
      assertThat(s.sinceStart().runTime().max()).isGreaterThanOrEqualTo(s.sinceStart().runTime().p99());
      assertThat(s.sinceStart().cpuTime().count()).isEqualTo(20);
      // Spinning is mostly CPU, sleeping mostly waiting (compared, since a loaded machine makes a
      // spinner wait for a core too).
      assertThat(s.blockingRatio()).isLessThan(sleeperBlockingRatio);
      assertThat(sleeperBlockingRatio).isGreaterThan(3);
      assertThat(s.utilisation()).isBetween(0.0, 1.0);
      assertThat(s.completed()).isEqualTo(20);
    }
  }

  @Test
  void sampledCpuTimingReadsAtMostOnceAnIntervalPerWorker() throws Exception {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    try (Lane lane = Lane.blocking("sampled", 1).ticker(clock::get)
        .cpuTimeSampled(java.time.Duration.ofMillis(1)).build()) {
      for (int i = 0; i < 40; i++) {
        clock.addAndGet(500_000); // tasks start 0.5 ms apart on the lane's clock
        lane.submit(() -> 1).get();
      }
      assertThat(lane.stats().sinceStart().cpuTime().count()).isEqualTo(20);
      clock.addAndGet(10_000_000);
      lane.submit(() -> 1).get(); // the first task after a long gap is read
      assertThat(lane.stats().sinceStart().cpuTime().count()).isEqualTo(21);
    }
  }

  @Test
  void noRecordIsMadeWithoutSubscribersAndUnsubscribeStopsThem() throws Exception {
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("subs", 1).build()) {
      java.util.function.Consumer<TaskRecord> sub = records::add;
      lane.onTask(sub);
      lane.submit(() -> 1).get();
      // Records are delivered just after the future completes.
      org.awaitility.Awaitility.await().until(() -> records.size() == 1);
      assertThat(lane.removeListener(sub)).isTrue();
      assertThat(lane.removeListener(sub)).isFalse();
      lane.submit(() -> 2).get();
    }
    assertThat(records).hasSize(1);
  }

  @Test
  void recentWindowRotatesWithTheInjectedClock() throws Exception {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    try (Lane lane = Lane.blocking("recent", 1).ticker(clock::get)
        .statsInterval(java.time.Duration.ofSeconds(1)).build()) {
      lane.submit(() -> 1).get();
      clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
      LaneStats first = lane.stats(); // rotates: the first interval held one task
      assertThat(first.recent().runTime().count()).isEqualTo(1);
      lane.submit(() -> 2).get();
      lane.submit(() -> 3).get();
      clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
      LaneStats second = lane.stats();
      assertThat(second.recent().runTime().count()).isEqualTo(2);
      assertThat(second.sinceStart().runTime().count()).isEqualTo(3);
    }
  }

  @Test
  void oldestQueuedIsTheAgeOfTheTaskStillWaitingAtTheHead() throws Exception {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    try (Lane lane = Lane.blocking("oldest", 1).ticker(clock::get).build()) {
      assertThat(lane.stats().oldestQueuedNanos()).isZero();
      java.util.concurrent.CountDownLatch release = Work.occupy(lane);
      java.util.concurrent.CompletableFuture<Integer> first = lane.submit(() -> 1);
      clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
      java.util.concurrent.CompletableFuture<Integer> second = lane.submit(() -> 2);
      clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
      LaneStats waiting = lane.stats();
      // The head waited 500 ms and has not ended: it shows here, not yet in the wait figures.
      assertThat(waiting.oldestQueuedNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
      assertThat(waiting.sinceStart().queueWait().count()).isZero();
      release.countDown();
      first.get();
      second.get();
      assertThat(lane.stats().oldestQueuedNanos()).isZero();
    }
  }
}
