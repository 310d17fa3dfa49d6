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
    p.connect(() -> {});
    return p;
  }

  static RedisPermits.Acquired acquire(RedisPermits p, String id, int cap, Duration lease)
      throws Exception {
    return p.acquire(id, cap, lease, WAITER).toCompletableFuture().get(10, TimeUnit.SECONDS);
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
        assertThat(acquire(p, "a" + i, 3, LONG).granted()).isTrue();
      }
      RedisPermits.Acquired fourth = acquire(p, "a3", 3, LONG);
      assertThat(fourth.granted()).isFalse();
      assertThat(fourth.holders()).isEqualTo(3);
      assertThat(fourth.waiters()).isEqualTo(1);
    }
  }

  @Test
  void theOldestWaiterIsServedFirst(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG).granted()).isTrue();
      assertThat(acquire(p, "older", 1, LONG).granted()).isFalse();
      assertThat(acquire(p, "younger", 1, LONG).rank()).isEqualTo(1);
      assertThat(release(p, "holder")).isEqualTo(1);
      // The younger asks first after the release, and is still refused: the older is first in line.
      assertThat(acquire(p, "younger", 1, LONG).granted()).isFalse();
      assertThat(acquire(p, "older", 1, LONG).granted()).isTrue();
      assertThat(release(p, "older")).isEqualTo(1);
      assertThat(acquire(p, "younger", 1, LONG).granted()).isTrue();
    }
  }

  @Test
  void aPermitLapsesAtTheEndOfItsLeaseOnRedisClock(TestInfo test) throws Exception {
    Duration lease = Duration.ofMillis(300);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "dies", 1, lease).granted()).isTrue();
      // No renewal, no release: the holder "died". Its score is an expiry on Redis's clock.
      String holders = "lanes:{" + test.getDisplayName() + "}:holders";
      List<String> time = sync.time();
      long redisNowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
      double expiry = sync.zscore(holders, "dies");
      assertThat(expiry).isBetween((double) redisNowMs - 1, (double) redisNowMs + lease.toMillis());
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> acquire(p, "next", 1, lease).granted());
      assertThat(sync.zscore(holders, "dies")).isNull();
    }
  }

  @Test
  void renewingKeepsAPermitPastItsFirstLease(TestInfo test) throws Exception {
    Duration lease = Duration.ofMillis(400);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "kept", 1, lease).granted()).isTrue();
      String holders = "lanes:{" + test.getDisplayName() + "}:holders";
      double first = sync.zscore(holders, "kept");
      // Renew until Redis's clock is past the first expiry; the permit must still be there.
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
        assertThat(renew(p, lease, "kept").reinstated()).isEmpty();
        List<String> t = sync.time();
        return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000 > first + 100;
      });
      assertThat(acquire(p, "other", 1, lease).granted()).isFalse();
    }
  }

  @Test
  void renewingPutsBackAPermitRedisLost(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "running", 2, LONG).granted()).isTrue();
      assertThat(acquire(p, "also-running", 2, LONG).granted()).isTrue();
      sync.del("lanes:{" + test.getDisplayName() + "}:holders"); // as a restart without data would
      RedisPermits.Renewed r = renew(p, LONG, "running", "also-running");
      assertThat(r.reinstated()).containsExactlyInAnyOrder("running", "also-running");
      assertThat(r.holders()).isEqualTo(2);
      assertThat(acquire(p, "newcomer", 2, LONG).granted()).isFalse();
    }
  }

  @Test
  void askingAgainAfterALostReplyReturnsTheSameGrant(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "once", 2, LONG).granted()).isTrue();
      RedisPermits.Acquired again = acquire(p, "once", 2, LONG);
      assertThat(again.granted()).isTrue();
      assertThat(again.holders()).isEqualTo(1);
    }
  }

  @Test
  void aWaiterThatStopsAskingLosesItsPlace(TestInfo test) throws Exception {
    Duration shortWaiter = Duration.ofMillis(200);
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG).granted()).isTrue();
      assertThat(p.acquire("gone", 1, LONG, shortWaiter).toCompletableFuture().get().granted())
          .isFalse();
      assertThat(acquire(p, "stays", 1, LONG).rank()).isEqualTo(1);
      release(p, "holder");
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> acquire(p, "stays", 1, LONG).granted());
    }
  }

  @Test
  void releasingWithdrawsAWaiterAndCountsOnlyPermits(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "holder", 1, LONG).granted()).isTrue();
      assertThat(acquire(p, "waiter", 1, LONG).granted()).isFalse();
      assertThat(release(p, "waiter", "unknown")).isZero();
      assertThat(acquire(p, "third", 1, LONG).rank()).isZero();
    }
  }

  @Test
  void aReleaseNotifiesTheOtherInstances(TestInfo test) throws Exception {
    CountDownLatch notified = new CountDownLatch(1);
    try (RedisPermits holder = permits(test);
        RedisPermits other = new RedisPermits(redis.uri(), test.getDisplayName(), TIMEOUT)) {
      other.connect(notified::countDown);
      assertThat(acquire(holder, "h", 1, LONG).granted()).isTrue();
      release(holder, "h");
      assertThat(notified.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void scriptsAreSentAgainAfterRedisForgotThem(TestInfo test) throws Exception {
    try (RedisPermits p = permits(test)) {
      assertThat(acquire(p, "before", 2, LONG).granted()).isTrue();
      sync.scriptFlush();
      assertThat(acquire(p, "after", 2, LONG).granted()).isTrue();
      assertThat(release(p, "before", "after")).isEqualTo(2);
    }
  }
}
