package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.redis.harness.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The three Lua scripts, one behaviour per test, against a real redis-server. */
class RedisPermitsTest {

  static final Duration LONG = Duration.ofSeconds(60);
  static final Duration WAITER = Duration.ofSeconds(60);
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  static RedisServerProcess redis;
  static RedisClient client;
  static StatefulRedisConnection<String, String> connection;
  static RedisCommands<String, String> sync;

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
    System.out.println("redis-server " + redis.version() + " on " + redis.uri());
    client = RedisClient.create(redis.uri());
    connection = client.connect();
    sync = connection.sync();
  }

  @AfterAll
  static void stopRedis() {
    connection.close();
    client.shutdown();
    redis.close();
  }

  static RedisPermits permits(TestInfo test) {
    RedisPermits p = new RedisPermits(redis.uri(), test.getDisplayName(), TIMEOUT);
    p.connect(id -> {});
    return p;
  }

  static boolean acquire(RedisPermits p, String id, int cap, Duration lease) throws Exception {
    return p.acquire(id, cap, lease, WAITER).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static long redisMillis() {
    List<String> t = sync.time();
    return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
  }

  static long release(RedisPermits p, String... ids) throws Exception {
    return p.release(List.of(ids)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static RedisPermits.Renewed renew(RedisPermits p, Duration lease, String... ids) throws Exception {
    return p.renew(List.of(ids), lease).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void grantsUpToTheCapAndNoMore(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      for (int i = 0; i < 3; i++) {
        assertThat(acquire(p, "a" + i, 3, LONG)).isTrue();
      }
      RedisPermits.Acquired fourth = p.acquire(List.of("a3"), 3, LONG, WAITER)
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(fourth.granted()).containsExactly(false);
      assertThat(fourth.holders()).isEqualTo(3);
      assertThat(fourth.waiters()).isEqualTo(1);
    }
  }

  @Test
  void theOldestWaiterIsServedFirst(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG)).isTrue();
      assertThat(acquire(p, "older", 1, LONG)).isFalse();
      assertThat(acquire(p, "younger", 1, LONG)).isFalse();
      assertThat(release(p, "holder")).isEqualTo(1);
      // The release handed the permit to the older waiter; the younger asking first changes nothing.
      assertThat(acquire(p, "younger", 1, LONG)).isFalse();
      assertThat(acquire(p, "older", 1, LONG)).isTrue();
      assertThat(release(p, "older")).isEqualTo(1);
      assertThat(acquire(p, "younger", 1, LONG)).isTrue();
    }
  }

  @Test
  void aPermitLapsesAtTheEndOfItsLeaseOnRedisClock(TestInfo test) throws Exception {
    Duration lease = Duration.ofMillis(300);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "dies", 1, lease)).isTrue();
      // No renewal, no release: the holder "died". Its score is an expiry on Redis's clock.
      String holders = "lanes:{" + test.getDisplayName() + "}:holders";
      long redisNowMs = redisMillis();
      double expiry = sync.zscore(holders, "dies");
      assertThat(expiry).isBetween((double) redisNowMs - 1, (double) redisNowMs + lease.toMillis());
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> acquire(p, "next", 1, lease));
      assertThat(sync.zscore(holders, "dies")).isNull();
    }
  }

  @Test
  void renewingKeepsAPermitPastItsFirstLease(TestInfo test) throws Exception {
    // Renewed every 50 ms: a lease this long outlasts the test's own lateness on a busy machine.
    Duration lease = Duration.ofSeconds(2);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "kept", 1, lease)).isTrue();
      String holders = "lanes:{" + test.getDisplayName() + "}:holders";
      double first = sync.zscore(holders, "kept");
      // Renew until Redis's clock is past the first expiry; the permit must still be there.
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
        assertThat(renew(p, lease, "kept").reinstated()).isEmpty();
        return redisMillis() > first + 100;
      });
      assertThat(acquire(p, "other", 1, lease)).isFalse();
    }
  }

  @Test
  void renewingPutsBackAPermitRedisLost(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "running", 2, LONG)).isTrue();
      assertThat(acquire(p, "also-running", 2, LONG)).isTrue();
      sync.del("lanes:{" + test.getDisplayName() + "}:holders"); // as a restart without data would
      RedisPermits.Renewed r = renew(p, LONG, "running", "also-running");
      assertThat(r.reinstated()).containsExactlyInAnyOrder("running", "also-running");
      assertThat(r.holders()).isEqualTo(2);
      assertThat(acquire(p, "newcomer", 2, LONG)).isFalse();
    }
  }

  @Test
  void askingAgainAfterALostReplyReturnsTheSameGrant(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "once", 2, LONG)).isTrue();
      assertThat(acquire(p, "once", 2, LONG)).isTrue();
      assertThat(sync.zcard("lanes:{" + test.getDisplayName() + "}:holders")).isEqualTo(1);
    }
  }

  @Test
  void aWaiterThatStopsAskingLosesItsPlace(TestInfo test) throws Exception {
    Duration shortWaiter = Duration.ofMillis(200);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG)).isTrue();
      assertThat(p.acquire("gone", 1, LONG, shortWaiter).toCompletableFuture().get()).isFalse();
      assertThat(acquire(p, "stays", 1, LONG)).isFalse();
      double goneExpiry = sync.zscore("lanes:{" + test.getDisplayName() + "}:waiter-expiry", "gone");
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> redisMillis() > goneExpiry);
      release(p, "holder");
      assertThat(acquire(p, "stays", 1, LONG)).isTrue();
    }
  }

  @Test
  void releasingAWaiterWithdrawsItAndCountsOnlyPermits(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG)).isTrue();
      assertThat(acquire(p, "waiter", 1, LONG)).isFalse();
      assertThat(acquire(p, "third", 1, LONG)).isFalse();
      assertThat(release(p, "waiter", "unknown")).isZero();
      assertThat(release(p, "holder")).isEqualTo(1);
      assertThat(acquire(p, "third", 1, LONG)).isTrue();
    }
  }

  @Test
  void aGrantIsPublishedToTheWaitersInstance(TestInfo test) throws Exception {
    java.util.concurrent.BlockingQueue<String> notices = new java.util.concurrent.LinkedBlockingQueue<>();
    try (RedisPermits holder = permits(test);
        RedisPermits other = new RedisPermits(redis.uri(), test.getDisplayName(), TIMEOUT)) {
      other.connect(notices::add);
      assertThat(acquire(holder, "h", 1, LONG)).isTrue();
      assertThat(notices.poll(10, TimeUnit.SECONDS)).isEqualTo("h");
      assertThat(acquire(other, "w", 1, LONG)).isFalse();
      release(holder, "h");
      assertThat(notices.poll(10, TimeUnit.SECONDS)).isEqualTo("w");
      assertThat(acquire(other, "w", 1, LONG)).isTrue();
    }
  }

  @Test
  void aLapsedLeaseIsHandedToTheOldestWaiterByTheNextCall(TestInfo test) throws Exception {
    Duration lease = Duration.ofMillis(300);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "dies", 1, lease)).isTrue();
      assertThat(acquire(p, "waits", 1, LONG)).isFalse();
      double expiry = sync.zscore("lanes:{" + test.getDisplayName() + "}:holders", "dies");
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> redisMillis() > expiry);
      // Any call will do: a renewal of nothing, as an idle instance's heartbeat.
      assertThat(renew(p, LONG).holders()).isEqualTo(1);
      assertThat(sync.zscore("lanes:{" + test.getDisplayName() + "}:holders", "waits")).isNotNull();
    }
  }

  @Test
  void aRenewalWithASettleTimeHoldsEveryGrantForThatLong(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "running", 2, LONG)).isTrue();
      // Long enough that the next call comes within it, however late the test's calls run.
      p.renew(List.of("running"), LONG, Duration.ofSeconds(2)).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertThat(acquire(p, "held-back", 2, LONG)).isFalse(); // a permit is free, but not yet
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> acquire(p, "held-back", 2, LONG));
    }
  }

  @Test
  void scriptsAreSentAgainAfterRedisForgotThem(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "before", 2, LONG)).isTrue();
      sync.scriptFlush();
      assertThat(acquire(p, "after", 2, LONG)).isTrue();
      assertThat(release(p, "before", "after")).isEqualTo(2);
    }
  }
}
