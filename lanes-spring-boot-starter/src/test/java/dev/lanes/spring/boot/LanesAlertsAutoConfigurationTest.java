package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import tools.jackson.databind.json.JsonMapper;
import com.sun.net.httpserver.HttpServer;
import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.Lanes;
import dev.lanes.alerts.LaneAlerts;
import dev.lanes.redis.harness.RedisServerProcess;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code lanes.alerts.*} wires a LaneAlerts over the declared lanes, posting to a real webhook. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LanesAlertsAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class,
          LanesAlertsAutoConfiguration.class))
      .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=1",
          "lanes.instances.db.queue-capacity=1");

  @Test
  void thePropertiesWireAWebhookAlertInSlacksShape() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService serverThreads = Executors.newFixedThreadPool(2);
    server.createContext("/hook", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.setExecutor(serverThreads);
    server.start();
    try {
      runner.withPropertyValues(
              "lanes.alerts.webhook.url=http://127.0.0.1:" + server.getAddress().getPort() + "/hook",
              "lanes.alerts.webhook.format=slack",
              "lanes.alerts.rejections-per-second=0",
              "lanes.alerts.rejection-window=10s",
              "lanes.alerts.saturated-for=45s",
              "lanes.alerts.silence=20m",
              "lanes.alerts.check-interval=50ms",
              "lanes.alerts.log-level=info")
          .run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LaneAlerts.class);
            LaneAlerts alerts = context.getBean(LaneAlerts.class);
            assertThat(alerts.toString()).contains("watching [db]", "saturatedFor PT45S",
                "rejectionsPerSecond 0.0 over PT10S", "silence PT20M");
            Lane db = context.getBean(Lanes.class).lane("db");
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(1);
            CompletableFuture<?> held = db.submit(() -> {
              running.countDown();
              release.await();
              return null;
            });
            running.await();
            CompletableFuture<?> queued = db.submit(() -> null);
            try {
              db.execute(() -> {});
              throw new AssertionError("a full lane took a third task");
            } catch (LaneRejectedException expected) {
              // the refusal the alert is about
            }
            await().until(() -> bodies.size() == 1);
            var body = JsonMapper.builder().build().readTree(bodies.get(0));
            assertThat(body.get("text").asString()).contains("lane \"db\" refused or dropped",
                "queue_full");
            assertThat(body.get("blocks").isArray()).isTrue();
            release.countDown();
            CompletableFuture.allOf(held, queued).get();
          });
    } finally {
      server.stop(0);
      serverThreads.shutdownNow();
      assertThat(serverThreads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void withoutLanesOrWhenDisabledThereIsNoWatcher() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class,
            LanesAlertsAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LaneAlerts.class));
    runner.withPropertyValues("lanes.alerts.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LaneAlerts.class));
    runner.run(context -> assertThat(context.getBean(LaneAlerts.class).toString())
        .contains("saturatedFor PT30S", "silence PT15M"));
  }

  @Test
  void aBadValueStopsStartupNamingTheProperty() {
    runner.withPropertyValues("lanes.alerts.silence=-1s").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOf(LanesPropertyException.class)
          .hasMessage("Invalid value \"PT-1S\" for property lanes.alerts.silence: lanes alerts:"
              + " silence must be between PT0S and PT24H, was PT-1S");
    });
    runner.withPropertyValues("lanes.alerts.log-level=off").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("lanes.alerts.log-level", "alerts would go nowhere");
    });
  }

  /**
   * Two instances of an app (two contexts, each with its lanes, its LaneAlerts and its own Redis
   * client) on one real redis-server: one refusal episode on both posts one webhook.
   */
  @Test
  void twoInstancesOnOneRedisPostOneAlertForOneEpisode() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService serverThreads = Executors.newFixedThreadPool(2);
    server.createContext("/hook", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.setExecutor(serverThreads);
    server.start();
    List<CountDownLatch> releases = new CopyOnWriteArrayList<>();
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      ApplicationContextRunner instance = runner.withPropertyValues(
          "lanes.alerts.webhook.url=http://127.0.0.1:" + server.getAddress().getPort() + "/hook",
          "lanes.alerts.rejections-per-second=0",
          "lanes.alerts.rejection-window=1m",
          "lanes.alerts.check-interval=50ms",
          "lanes.alerts.dedupe.redis-uri=" + redis.uri(),
          "lanes.alerts.dedupe.call-timeout=3s");
      instance.run(a -> instance.run(b -> {
        assertThat(a).hasNotFailed();
        assertThat(b).hasNotFailed();
        LaneAlerts alertsA = a.getBean(LaneAlerts.class);
        LaneAlerts alertsB = b.getBean(LaneAlerts.class);
        try {
          refuseOne(a.getBean(Lanes.class).lane("db"), releases);
          refuseOne(b.getBean(Lanes.class).lane("db"), releases);
          // Both instances have judged the episode (each holds it open) and one has posted.
          await().until(() -> alertsA.toString().contains("db REJECTING")
              && alertsB.toString().contains("db REJECTING") && !bodies.isEmpty());
          assertThat(alertsA.alertsSent() + alertsB.alertsSent()).isEqualTo(1);
          assertThat(bodies).hasSize(1);
        } finally {
          releases.forEach(CountDownLatch::countDown); // the contexts close their lanes next
        }
      }));
    } finally {
      releases.forEach(CountDownLatch::countDown);
      server.stop(0);
      serverThreads.shutdownNow();
      assertThat(serverThreads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Holds the 1-thread lane's worker, fills its queue of 1 and has a third task refused. */
  private static void refuseOne(Lane db, List<CountDownLatch> releases) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    releases.add(release);
    CountDownLatch running = new CountDownLatch(1);
    db.submit(() -> {
      running.countDown();
      release.await();
      return null;
    });
    running.await();
    db.submit(() -> null);
    try {
      db.execute(() -> {});
      throw new AssertionError("a full lane took a third task");
    } catch (LaneRejectedException expected) {
      // the refusal the alert is about
    }
  }

  @Test
  void aDedupeRedisUriNeedsLanesRedisAndAValidUriOrStartupStopsNamingIt() {
    runner.withClassLoader(new FilteredClassLoader("dev.lanes.redis"))
        .withPropertyValues("lanes.alerts.dedupe.redis-uri=redis://127.0.0.1:6379")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).rootCause()
              .isInstanceOf(LanesPropertyException.class)
              .hasMessage("Invalid value \"redis://127.0.0.1:6379\" for property"
                  + " lanes.alerts.dedupe.redis-uri: needs dev.lanes:lanes-redis on the class path"
                  + " (dev.lanes.redis.RedisAlertDedupe)");
        });
    runner.withPropertyValues("lanes.alerts.dedupe.redis-uri=localhost:6379").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOf(LanesPropertyException.class)
          .hasMessageStartingWith("Invalid value \"localhost:6379 (call-timeout PT1S)\" for property"
              + " lanes.alerts.dedupe.redis-uri: ");
    });
  }
}
