package dev.lanes.redis;

import static dev.lanes.redis.SharedCapTest.assertBooksBalance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneGate;
import dev.lanes.redis.harness.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #27: a lane keeps its global permit for its next queued task, within a quantum, and gives
 * it back when the quantum ends or its queue empties. Tasks here are tiny, so almost every task
 * after the first of a permit runs on a kept one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeptPermitTest {

  static final long WAIT_SECONDS = 60;
  /** Less than any lease below: a permit back in Redis by then was given back, not lapsed. */
  static final Duration GIVEN_BACK_WITHIN = Duration.ofSeconds(10);
  static final Duration LONG_LEASE = Duration.ofSeconds(60);

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

  /**
   * Sits between a lane and its shared cap and records every pass while its task runs: a permit id
   * (the pass's {@code toString}) found already in use means two running tasks held one permit.
   */
  static final class ExclusiveUse implements LaneGate {
    final LaneGate inner;
    final Set<String> inUse;
    final AtomicInteger doubleUses;

    ExclusiveUse(LaneGate inner, Set<String> inUse, AtomicInteger doubleUses) {
      this.inner = inner;
      this.inUse = inUse;
      this.doubleUses = doubleUses;
    }

    @Override
    public Pass tryEnter(Runnable ready) {
      Pass p = inner.tryEnter(ready);
      if (p == null || p == LaneGate.REFUSE) {
        return p;
      }
      String id = p.toString();
      if (!inUse.add(id)) {
        doubleUses.incrementAndGet();
      }
      return outcome -> {
        inUse.remove(id); // before the permit can go to anyone else
        p.exit(outcome);
      };
    }
  }

  /** A task of a few microseconds that counts how many tasks run at once, across instances. */
  static Runnable tinyTask(AtomicInteger now, AtomicInteger most) {
    return () -> {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        long spin = 0;
        for (int i = 0; i < 200; i++) {
          spin += i; // a little work, so that tasks overlap
        }
        if (spin < 0) {
          throw new AssertionError();
        }
      } finally {
        now.decrementAndGet();
      }
    };
  }

  @Test
  void keptPermitsNeverLetMoreThanTheCapRunAcrossInstances() throws Exception {
    int cap = 6;
    int instances = 4;
    int workersEach = 8; // 32 workers for 6 permits: waiters everywhere, permits kept and rotated
    int tasksEach = 5_000;
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Set<String> inUse = ConcurrentHashMap.newKeySet();
    AtomicInteger doubleUses = new AtomicInteger();
    List<SharedCap> caps = new ArrayList<>();
    List<Lane> lanes = new ArrayList<>();
    List<CompletableFuture<?>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        SharedCap shared = TestCaps.builder("kept-stress", redis.uri()).cap(cap)
            .quantum(Duration.ofMillis(2)).quantumTasks(50).build();
        caps.add(shared);
        lanes.add(Lane.virtual("kept-stress", workersEach).queueCapacity(tasksEach)
            .gate(new ExclusiveUse(shared, inUse, doubleUses)).build());
      }
      Runnable task = tinyTask(now, most);
      for (int t = 0; t < tasksEach; t++) {
        for (Lane lane : lanes) {
          futures.add(lane.submit(task));
        }
      }
      // Wait for every task however it ends: the cap's invariants are checked first.
      CompletableFuture.allOf(futures.stream().map(f -> f.handle((v, e) -> v))
          .toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(most.get()).as("tasks running at once across instances").isBetween(1, cap);
      assertThat(doubleUses.get()).as("permits used by two running tasks at once").isZero();
      long onKept = 0;
      long granted = 0;
      for (int i = 0; i < instances; i++) {
        SharedCapStats s = caps.get(i).stats();
        onKept += s.tasksOnKeptPermits();
        granted += s.permitsGranted();
        assertThat(s.refused()).isZero();
        assertThat(lanes.get(i).stats().completed()).isEqualTo(tasksEach);
        assertBooksBalance(lanes.get(i).stats());
      }
      assertThat(onKept).as("tasks on kept permits: the path under test ran").isPositive();
      assertThat(granted + onKept).isGreaterThanOrEqualTo((long) instances * tasksEach);
    } finally {
      lanes.forEach(Lane::close);
      caps.forEach(SharedCap::close);
    }
    assertThat(holdersInRedis("kept-stress")).isZero();
  }

  @Test
  void aKeptPermitGoesBackToRedisWhenTheQueueEmpties() throws Exception {
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    try (SharedCap shared = TestCaps.builder("kept-idle", redis.uri()).cap(4).lease(LONG_LEASE)
            .quantum(Duration.ofSeconds(30)).quantumTasks(1_000_000).build();
        Lane lane = Lane.virtual("kept-idle", 4).queueCapacity(2_000).gate(shared).build()) {
      for (int round = 1; round <= 2; round++) {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
          futures.add(lane.submit(tinyTask(now, most)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
            .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(shared.stats().tasksOnKeptPermits()).isPositive();
        // The lane is open and idle: its permits go back, long before a lease could lapse.
        await().atMost(GIVEN_BACK_WITHIN).until(() -> holdersInRedis("kept-idle") == 0
            && shared.stats().keptForNextTask() == 0 && shared.stats().heldHere() == 0);
        assertBooksBalance(lane.stats());
        assertThat(lane.stats().completed()).isEqualTo(2_000L * round);
      }
      assertThat(most.get()).isBetween(1, 4);
    }
  }

  @Test
  void aPermitGoesBackAfterItsQuantumOfTasks() throws Exception {
    int tasks = 1_000;
    int quantumTasks = 10;
    CountDownLatch allQueued = new CountDownLatch(1);
    try (SharedCap shared = TestCaps.builder("kept-quantum", redis.uri()).cap(1)
            .lease(LONG_LEASE).quantum(Duration.ofSeconds(30)).quantumTasks(quantumTasks).build();
        Lane lane = Lane.virtual("kept-quantum", 1).queueCapacity(tasks).gate(shared).build()) {
      List<CompletableFuture<?>> futures = new ArrayList<>();
      futures.add(lane.submit(() -> allQueued.await(WAIT_SECONDS, TimeUnit.SECONDS)));
      for (int i = 1; i < tasks; i++) {
        futures.add(lane.submit(() -> { }));
      }
      allQueued.countDown();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(WAIT_SECONDS, TimeUnit.SECONDS);
      SharedCapStats s = shared.stats();
      // Every permit taken from a grant runs at most quantumTasks tasks: at least 100 grants, and
      // at most 9 of every 10 tasks on a kept permit (fewer if the worker was away > 1 ms).
      assertThat(s.tasksOnKeptPermits()).isPositive()
          .isLessThanOrEqualTo((long) tasks * (quantumTasks - 1) / quantumTasks);
      assertThat(s.permitsGranted()).isGreaterThanOrEqualTo(tasks / quantumTasks);
      assertBooksBalance(lane.stats());
    }
    assertThat(holdersInRedis("kept-quantum")).isZero();
  }

  @Test
  void aPermitGoesBackAfterItsQuantumOfTime() throws Exception {
    int tasks = 40;
    long taskMillis = 5; // a sleep lasts at least this long
    Duration quantum = Duration.ofMillis(20); // so a permit serves at most 4 of these tasks
    CountDownLatch allQueued = new CountDownLatch(1);
    try (SharedCap shared = TestCaps.builder("kept-time", redis.uri()).cap(1)
            .lease(LONG_LEASE).quantum(quantum).quantumTasks(1_000_000).build();
        Lane lane = Lane.virtual("kept-time", 1).queueCapacity(tasks).gate(shared).build()) {
      List<CompletableFuture<?>> futures = new ArrayList<>();
      futures.add(lane.submit(() -> allQueued.await(WAIT_SECONDS, TimeUnit.SECONDS)));
      for (int i = 1; i < tasks; i++) {
        futures.add(lane.submit(() -> {
          Thread.sleep(taskMillis);
          return null;
        }));
      }
      allQueued.countDown();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(WAIT_SECONDS, TimeUnit.SECONDS);
      SharedCapStats s = shared.stats();
      long perPermit = quantum.toMillis() / taskMillis; // 4
      assertThat(s.permitsGranted()).isGreaterThanOrEqualTo((tasks - 1) / perPermit);
      assertThat(s.tasksOnKeptPermits()).isLessThanOrEqualTo(tasks - (tasks - 1) / perPermit);
      assertBooksBalance(lane.stats());
    }
    assertThat(holdersInRedis("kept-time")).isZero();
  }

  @Test
  void aZeroQuantumTakesAPermitPerTask() throws Exception {
    int tasks = 200;
    try (SharedCap shared = TestCaps.builder("kept-zero", redis.uri()).cap(2)
            .quantum(Duration.ZERO).build();
        Lane lane = Lane.virtual("kept-zero", 2).queueCapacity(tasks).gate(shared).build()) {
      List<CompletableFuture<?>> futures = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        futures.add(lane.submit(() -> { }));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(shared.stats().tasksOnKeptPermits()).isZero();
      assertThat(shared.stats().permitsGranted()).isGreaterThanOrEqualTo(tasks);
      assertBooksBalance(lane.stats());
    }
    assertThat(holdersInRedis("kept-zero")).isZero();
  }

  @Test
  void twoSaturatedInstancesShareTheCapFairlyByTheQuantum() throws Exception {
    int cap = 4;
    int tasksEach = 6_000;
    int counted = 6_000; // both still have a backlog then, unless one ran 3 of every 4
    AtomicLongArray ran = new AtomicLongArray(2);
    AtomicInteger total = new AtomicInteger();
    long[] atCount = new long[2];
    CountDownLatch snapshot = new CountDownLatch(1);
    List<SharedCap> caps = new ArrayList<>();
    List<Lane> lanes = new ArrayList<>();
    List<CompletableFuture<?>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        SharedCap shared = TestCaps.builder("kept-fair", redis.uri()).cap(cap)
            .quantum(Duration.ofSeconds(4)).quantumTasks(20).build(); // counts, not time
        caps.add(shared);
        // Each lane alone could use the whole cap.
        lanes.add(Lane.virtual("kept-fair", cap).queueCapacity(tasksEach).gate(shared).build());
      }
      for (int t = 0; t < tasksEach; t++) {
        for (int i = 0; i < 2; i++) {
          int instance = i;
          futures.add(lanes.get(i).submit(() -> {
            ran.incrementAndGet(instance);
            if (total.incrementAndGet() == counted) {
              atCount[0] = ran.get(0);
              atCount[1] = ran.get(1);
              snapshot.countDown();
            }
          }));
        }
      }
      assertThat(snapshot.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(WAIT_SECONDS, TimeUnit.SECONDS);
      double share = atCount[0] / (double) (atCount[0] + atCount[1]);
      assertThat(share).as("first instance's share of the first %d tasks (%s)", counted,
          java.util.Arrays.toString(atCount)).isBetween(0.45, 0.55);
      for (int i = 0; i < 2; i++) {
        assertThat(lanes.get(i).stats().completed()).isEqualTo(tasksEach);
        assertBooksBalance(lanes.get(i).stats());
        assertThat(caps.get(i).stats().tasksOnKeptPermits()).isPositive();
      }
    } finally {
      lanes.forEach(Lane::close);
      caps.forEach(SharedCap::close);
    }
    assertThat(holdersInRedis("kept-fair")).isZero();
  }
}
