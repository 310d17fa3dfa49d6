package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneRejectedException;
import dev.lanes.Ticker;
import dev.lanes.alerts.Alert;
import dev.lanes.alerts.AlertKind;
import dev.lanes.alerts.LaneAlerts;
import dev.lanes.redis.harness.RedisServerProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two instances of a service, each with a lane named "reports" and its own {@link LaneAlerts}
 * with its own Redis connection, on one real redis-server: as two JVMs, and as two instances in
 * one JVM, each with its own Lettuce client (what they share is Redis alone). One episode on
 * both: one alert; Redis stopped: each still alerts, and says once that it does so without
 * de-duplication.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisAlertDedupeTest {
  private static final Duration WINDOW = Duration.ofSeconds(10);

  RedisServerProcess redis;
  final List<CountDownLatch> releases = new ArrayList<>();
  final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterEach
  void stop() throws Exception {
    releases.forEach(CountDownLatch::countDown);
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    redis.close();
  }

  /** One instance: its lane "reports", its alerts on their own clock, its sink, its Redis client. */
  final class Instance {
    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final List<Alert> sent = new CopyOnWriteArrayList<>();
    /**
     * Refuses once full; never SATURATED by its wait here, and its own monitor says REJECTING only
     * for 200 ms after a refusal (a lane episode ends when no condition holds).
     */
    final Lane lane = Lane.blocking("reports", 1).queueCapacity(1)
        .saturatedWhenWaitExceeds(Duration.ofHours(1)).saturationWindow(Duration.ofMillis(200))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).build();
    final LaneAlerts alerts = LaneAlerts.builder().manualChecks().ticker((Ticker) now::get)
        .rejectionsPerSecond(0, WINDOW).silence(Duration.ZERO).recoveryMessages()
        .sink(sent::add).dedupe(RedisAlertDedupe.to(redis.uri(), Duration.ofSeconds(3))).build();

    Instance() throws InterruptedException {
      toClose.add(lane);
      toClose.add(alerts);
      alerts.watch(lane);
      CountDownLatch release = new CountDownLatch(1);
      releases.add(release);
      CountDownLatch running = new CountDownLatch(1);
      lane.submit(() -> {
        running.countDown();
        release.await();
        return null;
      });
      running.await();
      lane.submit(() -> "queued"); // worker held, queue full: every further task is refused
    }

    void refuse(int n) {
      for (int i = 0; i < n; i++) {
        try {
          lane.execute(() -> {});
          throw new AssertionError("the lane's queue is full: the task should be refused");
        } catch (LaneRejectedException expected) {
          // counted as QUEUE_FULL
        }
      }
    }

    /** The refusals have left the lane's own window: its monitor says OK again. */
    void calm() {
      await().until(() -> lane.health() == LaneHealth.OK);
    }

    void check(Duration later) {
      now.addAndGet(later.toNanos());
      alerts.check();
    }

    long firing() {
      return sent.stream().filter(a -> !a.resolved()).count();
    }

    long resolved() {
      return sent.stream().filter(Alert::resolved).count();
    }
  }

  @Test
  void oneEpisodeOnTwoInstancesSendsOneAlertAndItsRecoveryComesFromTheSameInstance()
      throws Exception {
    Instance a = new Instance();
    Instance b = new Instance();
    a.refuse(5);
    b.refuse(5);
    a.check(Duration.ofSeconds(1));
    b.check(Duration.ofSeconds(1));
    a.check(Duration.ofSeconds(1)); // the episode goes on on both: nothing more
    b.check(Duration.ofSeconds(1));
    assertThat(a.firing() + b.firing()).isEqualTo(1);
    Instance sender = a.firing() == 1 ? a : b;
    Instance other = sender == a ? b : a;

    sender.calm();
    other.calm();
    sender.check(WINDOW.plusSeconds(1)); // the refusals leave the window: the episode ends
    other.check(WINDOW.plusSeconds(1));
    assertThat(sender.resolved()).isEqualTo(1);
    assertThat(other.sent).isEmpty();
  }

  /** Two JVMs, each an {@link AlertInstance}, check the same episode at once: one alert. */
  @Test
  void twoJvmsOnOneRedisSendOneAlertForOneEpisode() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> jvms = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        jvms.add(new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), AlertInstance.class.getName(), redis.uri())
            .redirectError(ProcessBuilder.Redirect.DISCARD).start());
      }
      List<BufferedReader> outs = new ArrayList<>();
      for (Process p : jvms) {
        BufferedReader out = new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        outs.add(out);
        assertThat(out.readLine()).isEqualTo("ready");
      }
      for (Process p : jvms) {
        p.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().flush();
      }
      long sent = 0;
      for (BufferedReader out : outs) {
        String line = out.readLine();
        assertThat(line).startsWith("sent ");
        sent += Long.parseLong(line.substring("sent ".length()));
      }
      assertThat(sent).isEqualTo(1);
      for (Process p : jvms) {
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
      }
    } finally {
      for (Process p : jvms) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aClaimIsTheHoldersUntilItExpiresThenAnotherInstancesAndEachLaneKindHasItsOwn() {
    RedisAlertDedupe a = RedisAlertDedupe.to(redis.uri(), Duration.ofSeconds(3));
    RedisAlertDedupe b = RedisAlertDedupe.to(redis.uri(), Duration.ofSeconds(3));
    toClose.add(a);
    toClose.add(b);
    Duration hold = Duration.ofMillis(300);
    assertThat(a.claim("reports", AlertKind.REJECTING, Duration.ofMinutes(1))).isTrue();
    assertThat(b.claim("reports", AlertKind.REJECTING, hold)).isFalse();
    assertThat(b.claim("reports", AlertKind.SATURATED, hold)).as("another kind").isTrue();
    assertThat(b.claim("db", AlertKind.REJECTING, hold)).as("another lane").isTrue();
    assertThat(a.claim("reports", AlertKind.REJECTING, hold)).as("the holder again").isTrue();
    await().until(() -> b.claim("reports", AlertKind.REJECTING, hold));
    assertThat(a.claim("reports", AlertKind.REJECTING, hold)).isFalse();
  }

  @Test
  void withRedisStoppedEachInstanceStillAlertsAndSaysOnceThatItDoesSoWithoutDedupe()
      throws Exception {
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Logger logger = Logger.getLogger("dev.lanes.alerts");
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord r) {
        records.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    logger.addHandler(handler);
    try {
      Instance a = new Instance();
      Instance b = new Instance();
      // Connected first: one episode, one alert.
      a.refuse(5);
      b.refuse(5);
      a.check(Duration.ofSeconds(1));
      b.check(Duration.ofSeconds(1));
      assertThat(a.firing() + b.firing()).isEqualTo(1);
      a.calm();
      b.calm();
      a.check(WINDOW.plusSeconds(1));
      b.check(WINDOW.plusSeconds(1));
      long aBefore = a.firing();
      long bBefore = b.firing();
      redis.stop();
      for (int episode = 1; episode <= 2; episode++) {
        a.refuse(5);
        b.refuse(5);
        a.check(Duration.ofSeconds(1));
        b.check(Duration.ofSeconds(1));
        assertThat(a.firing()).isEqualTo(aBefore + episode);
        assertThat(b.firing()).isEqualTo(bBefore + episode);
        a.calm();
        b.calm();
        a.check(WINDOW.plusSeconds(1));
        b.check(WINDOW.plusSeconds(1));
      }
      assertThat(a.resolved()).as("each instance's own episodes, ended").isEqualTo(aBefore + 2);
      assertThat(b.resolved()).isEqualTo(bBefore + 2);
      assertThat(records.stream().filter(r -> r.getLevel() == Level.WARNING)
          .map(LogRecord::getMessage).toList())
          .hasSize(2) // once per instance, not once per alert
          .allSatisfy(m -> assertThat(m).startsWith("lanes alerts: de-duplication failed"
              + " (RedisAlertDedupe[127.0.0.1:" + redis.port() + "]: ")
              .endsWith("sending alerts from this instance without it until it answers again"));
    } finally {
      logger.removeHandler(handler);
    }
  }
}
