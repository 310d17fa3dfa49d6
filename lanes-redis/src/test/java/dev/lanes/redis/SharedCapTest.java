package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.redis.harness.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A shared cap in one JVM: several instances (each its own lane and connection) on one Redis. */
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

  @Test
  void instancesSharingACapNeverRunMoreThanItTogether() throws Exception {
    int cap = 5;
    int instances = 3;
    int tasksEach = 200;
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    List<Lane> lanes = new ArrayList<>();
    List<SharedCap> caps = new ArrayList<>();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        Lane lane = Lane.virtual("stress", 4).queueCapacity(tasksEach).build();
        lanes.add(lane);
        caps.add(SharedCap.builder(lane, redis.uri()).cap(cap).build());
      }
      for (int t = 0; t < tasksEach; t++) {
        for (SharedCap shared : caps) {
          futures.add(shared.submit(() -> {
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
              Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // the work: not a synchronisation
            } finally {
              running.decrementAndGet();
            }
            return 1;
          }));
        }
      }
      int done = 0;
      for (CompletableFuture<Integer> f : futures) {
        done += f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      assertThat(done).isEqualTo(instances * tasksEach);
      assertThat(peak.get()).isBetween(1, cap);
      long granted = 0;
      for (SharedCap shared : caps) {
        SharedCapStats s = shared.stats();
        granted += s.permitsGranted();
        assertThat(s.rejectedTotal()).isZero();
        assertThat(s.started()).isEqualTo(tasksEach);
        assertThat(s.queueWait().count()).isEqualTo(tasksEach);
      }
      // A grant with no task left is released unused, so grants ≥ tasks.
      assertThat(granted).isGreaterThanOrEqualTo((long) instances * tasksEach);
    } finally {
      caps.forEach(SharedCap::close);
      lanes.forEach(Lane::close);
    }
    assertThat(holdersInRedis("stress")).isZero();
  }

  @Test
  void waitingTasksHoldNoThreadNoPermitAndAskForNoMoreThanTheLaneHasSlots() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> futures = new ArrayList<>();
    try (Lane lane = Lane.virtual("no-hoarding", 2).queueCapacity(100).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(10).build()) {
      for (int i = 0; i < 50; i++) {
        futures.add(shared.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS)));
      }
      await().until(() -> shared.stats().heldHere() == 2);
      SharedCapStats s = shared.stats();
      assertThat(s.queued()).isEqualTo(48);
      assertThat(s.waitingForPermit()).isZero(); // the lane is full: no permit asked for
      assertThat(holdersInRedis("no-hoarding")).isEqualTo(2); // though 8 more are free
      assertThat(lane.stats().queued()).isZero(); // nothing waits in the lane holding a permit
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
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    List<Lane> lanes = new ArrayList<>();
    List<SharedCap> caps = new ArrayList<>();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        Lane lane = Lane.virtual("cancels", 2).queueCapacity(400).build();
        lanes.add(lane);
        caps.add(SharedCap.builder(lane, redis.uri()).cap(cap).build());
      }
      for (int t = 0; t < 200; t++) {
        for (SharedCap shared : caps) {
          CompletableFuture<Integer> f = shared.submit(() -> {
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
              Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // the work
            } finally {
              running.decrementAndGet();
            }
            return 1;
          });
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
      assertThat(peak.get()).isBetween(1, cap);
      for (SharedCap shared : caps) {
        await().until(() -> shared.stats().heldHere() == 0);
        SharedCapStats s = shared.stats();
        assertThat(s.queued()).isZero();
        assertThat(s.rejectedTotal()).isZero();
        assertThat(s.submitted()).isEqualTo(s.started() + s.cancelledWhileQueued());
        assertThat(s.cancelledWhileQueued()).isPositive();
      }
    } finally {
      caps.forEach(SharedCap::close);
      lanes.forEach(Lane::close);
    }
    assertThat(holdersInRedis("cancels")).isZero();
  }

  @Test
  void aTaskTheLaneRefusesAfterItsGrantFailsWithTheLanesReasonAndGivesThePermitBack()
      throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    try (Lane lane = Lane.virtual("refusing", 1).queueCapacity(1).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      // Someone else fills the lane directly, behind the shared cap's back.
      CompletableFuture<Boolean> direct = lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
      CompletableFuture<Boolean> queuedDirect = lane.submit(() -> true);
      CompletableFuture<Boolean> refused = shared.submit(() -> true);
      assertThatThrownBy(() -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS))
          .cause().isInstanceOf(java.util.concurrent.RejectedExecutionException.class)
          .hasMessageContaining("lane \"refusing\"");
      assertThat(shared.stats().rejected())
          .containsEntry(SharedCapRejectedException.Reason.LANE_REJECTED, 1L);
      await().until(() -> holdersInRedis("refusing") == 0);
      finish.countDown();
      assertThat(direct.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(queuedDirect.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aFullQueueRefusesWithAReasonThatNamesTheCap() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    try (Lane lane = Lane.virtual("full", 1).queueCapacity(2).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      CompletableFuture<Boolean> first = shared.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
      await().until(() -> shared.stats().heldHere() == 1);
      shared.submit(() -> true);
      shared.submit(() -> true);
      assertThatThrownBy(() -> shared.submit(() -> true))
          .isInstanceOfSatisfying(SharedCapRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(SharedCapRejectedException.Reason.QUEUE_FULL))
          .hasMessageContaining("shared cap \"full\"")
          .hasMessageContaining("queue capacity 2");
      assertThat(shared.stats().rejected()).containsEntry(SharedCapRejectedException.Reason.QUEUE_FULL, 1L);
      finish.countDown();
      assertThat(first.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aPermitIsReleasedHoweverItsTaskEnds() throws Exception {
    try (Lane lane = Lane.virtual("ends", 1).queueCapacity(10).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      CompletableFuture<Object> fails = shared.submit(() -> {
        throw new IllegalStateException("boom");
      });
      assertThatThrownBy(() -> fails.get(WAIT_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<Object> cancelled = shared.submit(() -> {
        started.countDown();
        Thread.sleep(TimeUnit.SECONDS.toMillis(WAIT_SECONDS)); // interrupted by the cancel
        return null;
      });
      assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      cancelled.cancel(true);
      assertThatThrownBy(cancelled::join).isInstanceOf(CancellationException.class);
      // With a cap of 1, this runs only if both permits came back.
      assertThat(shared.submit(() -> "ran").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
      await().until(() -> holdersInRedis("ends") == 0);
    }
  }

  @Test
  void aTaskCancelledWhileItRunsKeepsItsPermitUntilItsCodeEnds() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    try (Lane lane = Lane.virtual("stubborn", 2).queueCapacity(10).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      CompletableFuture<Boolean> stubborn = shared.submit(() -> {
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
      CompletableFuture<String> next = shared.submit(() -> "next");
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
    try (Lane lane = Lane.virtual("cancel-queued", 1).queueCapacity(10).build();
        SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build()) {
      CompletableFuture<Boolean> first = shared.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
      CompletableFuture<Integer> queued = shared.submit(ran::incrementAndGet);
      assertThat(queued.cancel(true)).isTrue();
      finish.countDown();
      first.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(shared.submit(() -> "after").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("after");
      assertThat(ran.get()).isZero();
    }
  }

  @Test
  void closeRefusesQueuedTasksAndGivesEveryPermitBack() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    Lane lane = Lane.virtual("closing", 1).queueCapacity(10).build();
    SharedCap shared = SharedCap.builder(lane, redis.uri()).cap(1).build();
    CompletableFuture<Boolean> running = shared.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
    CompletableFuture<Boolean> queued = shared.submit(() -> true);
    await().until(() -> shared.stats().heldHere() == 1);
    Thread closer = new Thread(shared::close, "closer");
    closer.start();
    assertThatThrownBy(() -> queued.get(WAIT_SECONDS, TimeUnit.SECONDS)).hasCauseInstanceOf(
        SharedCapRejectedException.class).hasMessageContaining("closed");
    finish.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertThat(closer.isAlive()).isFalse();
    assertThat(running.get()).isTrue();
    assertThatThrownBy(() -> shared.submit(() -> true)).isInstanceOf(SharedCapRejectedException.class);
    lane.close();
    assertThat(holdersInRedis("closing")).isZero();
  }

  @Test
  void settingsAreCheckedWithMessagesThatNameTheCapAndTheBound() {
    try (Lane lane = Lane.virtual("settings", 1).build()) {
      assertThatThrownBy(() -> SharedCap.builder(lane, redis.uri()).build())
          .hasMessage("shared cap \"settings\": cap is required (the most tasks running at once across every instance)");
      assertThatThrownBy(() -> SharedCap.builder(lane, redis.uri()).cap(0))
          .hasMessage("shared cap \"settings\": cap must be between 1 and 1000000, was 0");
      assertThatThrownBy(() -> SharedCap.builder(lane, redis.uri()).lease(Duration.ofMillis(10)))
          .hasMessage("shared cap \"settings\": lease must be ≥ 300 ms, was 10 ms");
      assertThatThrownBy(() -> SharedCap.builder(lane, redis.uri()).cap(1)
          .lease(Duration.ofSeconds(1)).callTimeout(Duration.ofMillis(400)).build())
          .hasMessage("shared cap \"settings\": callTimeout must be shorter than a third of the lease (333 ms), was 400 ms");
      assertThatThrownBy(() -> SharedCap.builder(lane, "localhost:6379"))
          .hasMessageStartingWith("shared cap \"settings\": redisUri must be a Redis URI such as"
              + " redis://127.0.0.1:6379, was \"localhost:6379\"");
      assertThatThrownBy(() -> FaultPolicy.localShare(0))
          .hasMessage("local share must be ≥ 1, was 0");
    }
  }
}
