package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import dev.lanes.redis.harness.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A shared cap in one JVM: several instances (each its own lane, gated by its own shared cap and
 * connection) on one Redis. Tasks go to the lanes; the shared caps are their gates.
 */
class SharedCapTest {

  static final long WAIT_SECONDS = 30;

  static RedisServerProcess redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  static long holdersInRedis(String cap) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().zcard("lanes:{" + cap + "}:holders");
    } finally {
      client.shutdown();
    }
  }

  /** Ended (every outcome) + queued + running = submitted, once the lane is quiet or not. */
  static void assertBooksBalance(LaneStats s) {
    assertThat(s.endedTotal() + s.queued() + s.running()).as("books of %s", s)
        .isEqualTo(s.submitted());
  }

  /** Counts tasks inside their code at once. */
  static final class Peak {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();

    Callable<Integer> task() {
      return () -> {
        most.accumulateAndGet(now.incrementAndGet(), Math::max);
        try {
          Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // the work: not a synchronisation
        } finally {
          now.decrementAndGet();
        }
        return 1;
      };
    }
  }

  @Test
  void instancesSharingACapNeverRunMoreThanItTogether() throws Exception {
    int cap = 5;
    int instances = 3;
    int tasksEach = 200;
    Peak peak = new Peak();
    List<Lane> lanes = new ArrayList<>();
    List<SharedCap> caps = new ArrayList<>();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        SharedCap shared = TestCaps.builder("stress", redis.uri()).cap(cap).build();
        caps.add(shared);
        lanes.add(Lane.virtual("stress", 4).queueCapacity(tasksEach).gate(shared).build());
      }
      for (int t = 0; t < tasksEach; t++) {
        for (Lane lane : lanes) {
          futures.add(lane.submit(peak.task()));
        }
      }
      int done = 0;
      for (CompletableFuture<Integer> f : futures) {
        done += f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      assertThat(done).isEqualTo(instances * tasksEach);
      assertThat(peak.most.get()).isBetween(1, cap);
      long granted = 0;
      long onKept = 0;
      for (int i = 0; i < instances; i++) {
        SharedCapStats s = caps.get(i).stats();
        granted += s.permitsGranted();
        onKept += s.tasksOnKeptPermits();
        assertThat(s.refused()).isZero();
        assertThat(lanes.get(i).stats().completed()).isEqualTo(tasksEach);
      }
      // Each task started on a grant or on a permit kept from the task before; a grant nobody
      // takes is released unused, so grants + tasks on kept permits ≥ tasks.
      assertThat(onKept).isBetween(0L, (long) instances * tasksEach);
      assertThat(granted + onKept).isGreaterThanOrEqualTo((long) instances * tasksEach);
    } finally {
      lanes.forEach(Lane::close);
      caps.forEach(SharedCap::close);
    }
    assertThat(holdersInRedis("stress")).isZero();
  }

  @Test
  void theGlobalCapHoldsWhenTasksComeThroughLaneSubmitFromTwoLanesOfTheSameName() throws Exception {
    int cap = 3;
    Peak peak = new Peak();
    try (SharedCap first = TestCaps.builder("same", redis.uri()).cap(cap).build();
        SharedCap second = TestCaps.builder("same", redis.uri()).cap(cap).build();
        Lane platform = Lane.blocking("same", 4).queueCapacity(500).gate(first).build();
        Lane virtual = Lane.virtual("same", 6).queueCapacity(500).gate(second).build()) {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        for (Lane lane : List.of(platform, virtual)) {
          futures.add(lane.submit(peak.task()));                              // submit
          futures.add(CompletableFuture.supplyAsync(() -> {                   // an executor
            try {
              return peak.task().call();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }, lane));
          CompletableFuture<Integer> executed = new CompletableFuture<>();
          lane.execute(() -> {                                                // execute
            try {
              executed.complete(peak.task().call());
            } catch (Exception e) {
              executed.completeExceptionally(e);
            }
          });
          futures.add(executed);
        }
      }
      futures.addAll(platform.invokeAll(List.of(peak.task(), peak.task(), peak.task())));
      futures.addAll(virtual.invokeAll(List.of(peak.task(), peak.task(), peak.task())));
      for (Future<Integer> f : futures) {
        assertThat(f.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
      }
      assertThat(peak.most.get()).as("tasks running at once across both lanes").isBetween(1, cap);
      for (Lane lane : List.of(platform, virtual)) {
        LaneStats s = lane.stats();
        assertThat(s.completed()).isEqualTo(183);
        assertBooksBalance(s);
      }
    }
    assertThat(holdersInRedis("same")).isZero();
  }

  @Test
  void waitingTasksHoldNoPermitAndAskForNoMoreThanTheLanesWorkers() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> futures = new ArrayList<>();
    try (SharedCap shared = TestCaps.builder("no-hoarding", redis.uri()).cap(10).build();
        Lane lane = Lane.virtual("no-hoarding", 2).queueCapacity(100).gate(shared).build()) {
      for (int i = 0; i < 50; i++) {
        futures.add(lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS)));
      }
      await().until(() -> shared.stats().heldHere() == 2 && lane.stats().queued() == 48);
      SharedCapStats s = shared.stats();
      assertThat(s.waitingForPermit()).isZero(); // every worker runs: no permit asked for
      assertThat(s.grantedUnclaimed()).isZero();
      assertThat(holdersInRedis("no-hoarding")).isEqualTo(2); // though 8 more are free
      assertThat(lane.stats().workers()).isEqualTo(2); // and the 48 waiting hold no thread
      finish.countDown();
      for (CompletableFuture<Boolean> f : futures) {
        assertThat(f.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @Test
  void cancellingAtRandomNeverBreaksTheCapAndTheBooksBalance() throws Exception {
    int cap = 3;
    Peak peak = new Peak();
    List<Lane> lanes = new ArrayList<>();
    List<SharedCap> caps = new ArrayList<>();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        SharedCap shared = TestCaps.builder("cancels", redis.uri()).cap(cap).build();
        caps.add(shared);
        lanes.add(Lane.virtual("cancels", 2).queueCapacity(400).gate(shared).build());
      }
      for (int t = 0; t < 200; t++) {
        for (Lane lane : lanes) {
          CompletableFuture<Integer> f = lane.submit(peak.task());
          if (ThreadLocalRandom.current().nextInt(4) == 0) {
            f.cancel(true);
          }
          futures.add(f);
        }
      }
      for (CompletableFuture<Integer> f : futures) {
        try {
          f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (CancellationException | ExecutionException e) {
          // cancelled (before or while running); an interrupted sleep fails the task: both end it
        }
      }
      assertThat(peak.most.get()).isBetween(1, cap);
      for (int i = 0; i < 2; i++) {
        SharedCap shared = caps.get(i);
        Lane lane = lanes.get(i);
        await().until(() -> shared.stats().heldHere() == 0 && lane.stats().running() == 0);
        LaneStats s = lane.stats();
        assertThat(s.queued()).isZero();
        assertThat(s.rejected()).isZero();
        assertThat(s.cancelled()).isPositive();
        assertThat(s.submitted()).isEqualTo(200);
        assertBooksBalance(s);
      }
    } finally {
      lanes.forEach(Lane::close);
      caps.forEach(SharedCap::close);
    }
    assertThat(holdersInRedis("cancels")).isZero();
  }

  @Test
  void aPermitIsReleasedHoweverItsTaskEnds() throws Exception {
    try (SharedCap shared = TestCaps.builder("ends", redis.uri()).cap(1).build();
        Lane lane = Lane.virtual("ends", 1).queueCapacity(10).gate(shared).build()) {
      CompletableFuture<Object> fails = lane.submit(() -> {
        throw new IllegalStateException("boom");
      });
      assertThatThrownBy(() -> fails.get(WAIT_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<Object> cancelled = lane.submit(() -> {
        started.countDown();
        Thread.sleep(TimeUnit.SECONDS.toMillis(WAIT_SECONDS)); // interrupted by the cancel
        return null;
      });
      assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      cancelled.cancel(true);
      assertThatThrownBy(cancelled::join).isInstanceOf(CancellationException.class);
      // With a cap of 1, this runs only if both permits came back.
      assertThat(lane.submit(() -> "ran").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
      await().until(() -> holdersInRedis("ends") == 0);
    }
  }

  @Test
  void aTaskCancelledWhileItRunsKeepsItsPermitUntilItsCodeEnds() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    try (SharedCap shared = TestCaps.builder("stubborn", redis.uri()).cap(1).build();
        Lane lane = Lane.virtual("stubborn", 2).queueCapacity(10).gate(shared).build()) {
      CompletableFuture<Boolean> stubborn = lane.submit(() -> {
        entered.countDown();
        while (true) { // ignores interrupts, as a blocking call that cannot be interrupted would
          try {
            return finish.await(WAIT_SECONDS, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            // keep going
          }
        }
      });
      assertThat(entered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<String> next = lane.submit(() -> "next");
      await().until(() -> shared.stats().waitingForPermit() == 1); // the other worker, at the gate
      assertThat(stubborn.cancel(true)).isTrue();
      // The caller sees the cancellation at once, but the code still runs: it keeps its permit.
      assertThat(shared.stats().heldHere()).isEqualTo(1);
      assertThat(holdersInRedis("stubborn")).isEqualTo(1);
      assertThat(next).isNotDone();
      finish.countDown();
      assertThat(next.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("next");
    }
  }

  @Test
  void aCancelledQueuedTaskNeverRuns() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    try (SharedCap shared = TestCaps.builder("cancel-queued", redis.uri()).cap(1).build();
        Lane lane = Lane.virtual("cancel-queued", 1).queueCapacity(10).gate(shared).build()) {
      CompletableFuture<Boolean> first = lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
      CompletableFuture<Integer> queued = lane.submit(ran::incrementAndGet);
      assertThat(queued.cancel(true)).isTrue();
      finish.countDown();
      first.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(lane.submit(() -> "after").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("after");
      assertThat(ran.get()).isZero();
    }
  }

  @Test
  void closeRefusesWhatWaitsAtTheGateAndGivesEveryPermitBack() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    SharedCap shared = TestCaps.builder("closing", redis.uri()).cap(1).build();
    Lane lane = Lane.virtual("closing", 2).queueCapacity(10).gate(shared).build();
    CompletableFuture<Boolean> running = lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
    CompletableFuture<Boolean> queued = lane.submit(() -> true);
    await().until(() -> shared.stats().heldHere() == 1 && shared.stats().waitingForPermit() == 1);
    Thread closer = new Thread(shared::close, "closer");
    closer.start();
    assertThatThrownBy(() -> queued.get(WAIT_SECONDS, TimeUnit.SECONDS)).cause()
        .isInstanceOfSatisfying(LaneRejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(TaskOutcome.GATE_REFUSED))
        .hasMessageContaining("gate refused it");
    finish.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertThat(closer.isAlive()).isFalse();
    assertThat(running.get()).isTrue();
    CompletableFuture<Boolean> late = lane.submit(() -> true);
    assertThatThrownBy(() -> late.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .cause().isInstanceOf(LaneRejectedException.class);
    lane.close();
    assertThat(lane.stats().count(TaskOutcome.GATE_REFUSED)).isEqualTo(2);
    // Two workers may be refused at once for the last queued task: the cap counts refusals.
    assertThat(shared.stats().refused()).isGreaterThanOrEqualTo(2);
    assertBooksBalance(lane.stats());
    assertThat(holdersInRedis("closing")).isZero();
  }

  @Test
  void settingsAreCheckedWithMessagesThatNameTheCapAndTheBound() {
    String uri = redis.uri();
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).build())
        .hasMessage("shared cap \"settings\": cap is required (the most tasks running at once across every instance)");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).cap(0))
        .hasMessage("shared cap \"settings\": cap must be between 1 and 1000000, was 0");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).lease(Duration.ofMillis(10)))
        .hasMessage("shared cap \"settings\": lease must be ≥ 300 ms, was 10 ms");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).cap(1)
        .lease(Duration.ofSeconds(1)).callTimeout(Duration.ofMillis(400)).build())
        .hasMessage("shared cap \"settings\": callTimeout must be shorter than a third of the lease (333 ms), was 400 ms");
    assertThatThrownBy(() -> SharedCap.builder("settings", "localhost:6379"))
        .hasMessageStartingWith("shared cap \"settings\": redisUri must be a Redis URI such as"
            + " redis://127.0.0.1:6379, was \"localhost:6379\"");
    assertThatThrownBy(() -> SharedCap.builder(" ", uri))
        .hasMessageContaining("shared cap name must not be blank");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).quantum(Duration.ofMillis(-1)))
        .hasMessage("shared cap \"settings\": quantum must be between 0 ms and 60000 ms, was -1 ms");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).quantumTasks(0))
        .hasMessage("shared cap \"settings\": quantumTasks must be between 1 and 1000000, was 0");
    assertThatThrownBy(() -> SharedCap.builder("settings", uri).cap(1)
        .lease(Duration.ofSeconds(2)).quantum(Duration.ofSeconds(2)).build())
        .hasMessage("shared cap \"settings\": quantum must be shorter than the lease (2000 ms), was 2000 ms");
    assertThatThrownBy(() -> FaultPolicy.localShare(0))
        .hasMessage("local share must be ≥ 1, was 0");
  }
}
