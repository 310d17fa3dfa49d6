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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis stopped while tasks run and wait, then started again empty (no persistence: a restart
 * that lost every key). No hang, no task lost, the policy applied, recovery when Redis returns.
 * Tasks go to the lane; the shared cap is its gate.
 */
class RedisOutageTest {

  static final long WAIT_SECONDS = 30;
  static final Duration LEASE = Duration.ofSeconds(10);
  /**
   * Long enough that a call to a Redis that answers never times out on a busy machine (200 ms did,
   * at a load average of 13 on 2 cores: the cap read a live Redis as lost and refused tasks), as
   * a hung Redis is seen only through its calls' timeouts, which no condition can replace.
   */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(3);
  static final Duration PROBE = Duration.ofMillis(100);
  /** How long Redis stays away in these tests (E13 keeps it away 10 s). */
  static final Duration OUTAGE = Duration.ofSeconds(2);

  RedisServerProcess redis;
  final List<SharedCapEvent> events = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterEach
  void stopRedis() {
    redis.close();
  }

  SharedCap.Builder builder(String name) {
    return SharedCap.builder(name, redis.uri()).lease(LEASE).callTimeout(CALL_TIMEOUT)
        .probeInterval(PROBE);
  }

  static void assertRefusedByTheGate(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(LaneRejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(TaskOutcome.GATE_REFUSED));
  }

  long holdersInRedis(String cap) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().zcard("lanes:{" + cap + "}:holders");
    } finally {
      client.shutdown();
    }
  }

  /** Keeps Redis away for {@link #OUTAGE} measured on a latch that nobody counts down. */
  static void outage() throws InterruptedException {
    new CountDownLatch(1).await(OUTAGE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void failFastRefusesWaitingTasksLetsRunningOnesEndAndRecovers() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    try (SharedCap shared = builder("ff").cap(2).faultPolicy(FaultPolicy.failFast()).build();
        // One worker more than the cap: it waits at the gate, and refuses the queue when Redis goes.
        Lane lane = Lane.virtual("ff", 3).queueCapacity(10).gate(shared).build()) {
      shared.onEvent(events::add);
      List<CompletableFuture<Boolean>> running = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        running.add(lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS)));
      }
      List<CompletableFuture<Boolean>> queued = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        queued.add(lane.submit(() -> true));
      }
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.stats().heldHere() == 2 && shared.stats().waitingForPermit() == 1);

      redis.stop();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.health() == SharedCapHealth.UNAVAILABLE);
      for (CompletableFuture<Boolean> f : queued) {
        assertRefusedByTheGate(f);
      }
      assertRefusedByTheGate(lane.submit(() -> true)); // accepted, then refused at the gate
      outage();

      long back = System.nanoTime();
      redis.restart();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).pollInterval(Duration.ofMillis(10))
          .until(() -> shared.health() == SharedCapHealth.GLOBAL);
      System.out.printf("fail-fast: global cap again %d ms after redis-server was ready%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back));
      // The two tasks still running hold permits again in the empty Redis.
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> holdersInRedis("ff") == 2);
      assertThat(shared.stats().permitsReinstated()).isEqualTo(2);

      finish.countDown();
      for (CompletableFuture<Boolean> f : running) {
        assertThat(f.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(lane.submit(() -> "after").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("after");
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> holdersInRedis("ff") == 0);
      assertThat(shared.stats().refused()).isGreaterThanOrEqualTo(4); // refusals, not tasks
      LaneStats s = lane.stats();
      assertThat(s.count(TaskOutcome.GATE_REFUSED)).isEqualTo(4);
      assertThat(s.completed()).isEqualTo(3);
      assertThat(s.endedTotal() + s.queued() + s.running()).isEqualTo(s.submitted());
    }
    assertThat(events).extracting(SharedCapEvent::kind).containsSubsequence(
        SharedCapEvent.Kind.REDIS_LOST, SharedCapEvent.Kind.REDIS_BACK);
    assertThat(events).extracting(SharedCapEvent::kind).contains(SharedCapEvent.Kind.PERMITS_REINSTATED);
  }

  @Test
  void localShareRunsEveryTaskWithinTheShareWhileRedisIsAway() throws Exception {
    AtomicInteger runningNow = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    try (SharedCap shared = builder("share").cap(3).faultPolicy(FaultPolicy.localShare(1)).build();
        Lane lane = Lane.virtual("share", 3).queueCapacity(50).gate(shared).build()) {
      shared.onEvent(events::add);
      redis.stop();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.health() == SharedCapHealth.LOCAL_SHARE);
      List<CompletableFuture<Integer>> during = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        during.add(lane.submit(() -> {
          peak.accumulateAndGet(runningNow.incrementAndGet(), Math::max);
          try {
            Thread.sleep(20); // the work
          } finally {
            runningNow.decrementAndGet();
          }
          return 1;
        }));
      }
      for (CompletableFuture<Integer> f : during) {
        assertThat(f.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
      }
      assertThat(peak.get()).isEqualTo(1);
      assertThat(shared.stats().refused()).isZero();

      redis.restart();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.health() == SharedCapHealth.GLOBAL);
      assertThat(lane.submit(() -> "global").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("global");
      assertThat(shared.stats().runningOnLocalShare()).isZero();
    }
    assertThat(events).extracting(SharedCapEvent::kind).containsSubsequence(
        SharedCapEvent.Kind.REDIS_LOST, SharedCapEvent.Kind.REDIS_BACK);
  }

  @Test
  void aHungRedisTimesOutIntoThePolicyAndRecoversWhenItAnswers() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    try (SharedCap shared = builder("hung").cap(1).build();
        Lane lane = Lane.virtual("hung", 2).queueCapacity(10).gate(shared).build()) {
      shared.onEvent(events::add);
      CompletableFuture<Boolean> running = lane.submit(() -> finish.await(WAIT_SECONDS, TimeUnit.SECONDS));
      CompletableFuture<Boolean> waiting = lane.submit(() -> true);
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.stats().heldHere() == 1 && shared.stats().waitingForPermit() == 1);
      redis.pause(); // connections stay open; every call waits until its timeout
      try {
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
            () -> shared.health() == SharedCapHealth.UNAVAILABLE);
        assertRefusedByTheGate(waiting);
      } finally {
        redis.resume();
      }
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.health() == SharedCapHealth.GLOBAL);
      finish.countDown();
      assertThat(running.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(lane.submit(() -> "after").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("after");
      assertThat(shared.stats().redisFailures()).isPositive();
    }
    assertThat(events).extracting(SharedCapEvent::kind).containsSubsequence(
        SharedCapEvent.Kind.REDIS_LOST, SharedCapEvent.Kind.REDIS_BACK);
    assertThat(events.get(0).detail()).contains("Timeout");
  }

  @Test
  void startsWhileRedisIsAwayAndTakesTheGlobalCapWhenItComes() throws Exception {
    redis.stop();
    try (SharedCap shared = builder("late").cap(1).build();
        Lane lane = Lane.virtual("late", 1).queueCapacity(5).gate(shared).build()) {
      assertThat(shared.health()).isEqualTo(SharedCapHealth.UNAVAILABLE);
      assertRefusedByTheGate(lane.submit(() -> true));
      redis.restart();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(
          () -> shared.health() == SharedCapHealth.GLOBAL);
      assertThat(lane.submit(() -> "ran").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
    }
  }
}
