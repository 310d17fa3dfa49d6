package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.Lanes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code lanes.readiness.rejecting-for}, on a real application with Kubernetes' probes: a lane
 * REJECTING that long makes the readiness probe answer 503 while the liveness probe stays 200, and
 * readiness comes back once the lane no longer refuses (or is removed), unless another part of the
 * application refused traffic meanwhile; off by default.
 */
@ExtendWith(OutputCaptureExtension.class)
class LanesReadinessTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static ConfigurableApplicationContext start(String... extra) {
    String[] base = {"server.port=0", "management.endpoint.health.probes.enabled=true",
        "management.endpoints.web.exposure.include=health",
        "lanes.instances.work.kind=blocking", "lanes.instances.work.concurrency=1",
        "lanes.instances.work.queue-capacity=1", "lanes.instances.db.kind=blocking",
        "lanes.instances.db.concurrency=1"};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return new SpringApplicationBuilder(TestApplication.class).properties(all).run();
  }

  private static int status(HttpClient http, ConfigurableApplicationContext c, String path)
      throws Exception {
    int port = ((WebServerApplicationContext) c).getWebServer().getPort();
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** Holds the lane's only worker until {@code release}. */
  private static void hold(Lane lane, CountDownLatch release) throws InterruptedException {
    CountDownLatch running = new CountDownLatch(1);
    lane.execute(() -> {
      running.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    running.await();
  }

  /** Keeps submitting to a full lane on its own thread until stopped, so it stays REJECTING. */
  private static Thread refuser(Lane lane, AtomicBoolean stop) {
    return Thread.ofPlatform().name("refuser").start(() -> {
      while (!stop.get()) {
        try {
          lane.execute(() -> { });
        } catch (RejectedExecutionException expected) { // full, or closed
          Thread.onSpinWait();
        }
      }
    });
  }

  @Test
  @Timeout(120)
  void aLaneRejectingLongerThanTheSettingMakesTheApplicationUnreadyNeverUnlive()
      throws Exception {
    try (ConfigurableApplicationContext c = start("lanes.readiness.rejecting-for=300ms");
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      assertThat(status(http, c, "/actuator/health/readiness")).isEqualTo(200);
      Lane work = c.getBean(Lanes.class).lane("work");
      CountDownLatch release = new CountDownLatch(1);
      hold(work, release);
      AtomicBoolean stop = new AtomicBoolean();
      Thread refuser = refuser(work, stop);
      try {
        await().atMost(PATIENCE).until(() -> work.health() == LaneHealth.REJECTING);
        await().atMost(PATIENCE).until(() -> status(http, c, "/actuator/health/readiness") == 503);
        assertThat(status(http, c, "/actuator/health/liveness")).isEqualTo(200);
      } finally {
        stop.set(true);
        refuser.join();
        release.countDown();
      }
      await().atMost(PATIENCE).until(() -> work.health() != LaneHealth.REJECTING);
      await().atMost(PATIENCE).until(() -> status(http, c, "/actuator/health/readiness") == 200);
      assertThat(status(http, c, "/actuator/health/liveness")).isEqualTo(200);
    }
  }

  /** Brings the lane to REJECTING under the setting and waits for the readiness probe's 503. */
  private static void untilUnready(HttpClient http, ConfigurableApplicationContext c, Lane work)
      throws Exception {
    await().atMost(PATIENCE).until(() -> work.health() == LaneHealth.REJECTING);
    await().atMost(PATIENCE).until(() -> status(http, c, "/actuator/health/readiness") == 503);
  }

  @Test
  @Timeout(120)
  void readinessRefusedByAnotherPartStaysRefusedWhenTheLaneRecovers(CapturedOutput output)
      throws Exception {
    try (ConfigurableApplicationContext c = start("lanes.readiness.rejecting-for=300ms");
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      Lane work = c.getBean(Lanes.class).lane("work");
      CountDownLatch release = new CountDownLatch(1);
      hold(work, release);
      AtomicBoolean stop = new AtomicBoolean();
      Thread refuser = refuser(work, stop);
      try {
        untilUnready(http, c, work);
        // What a shutdown does first: another part of the application refuses traffic.
        AvailabilityChangeEvent.publish(c, "shutting down", ReadinessState.REFUSING_TRAFFIC);
      } finally {
        stop.set(true);
        refuser.join();
        release.countDown();
      }
      await().atMost(PATIENCE).until(() -> output.getOut().contains(
          "no lane is REJECTING any more; readiness stays REFUSING_TRAFFIC"));
      assertThat(status(http, c, "/actuator/health/readiness")).isEqualTo(503);
    }
  }

  @Test
  @Timeout(120)
  void aLaneRemovedWhileRejectingNoLongerHoldsReadinessBack() throws Exception {
    try (ConfigurableApplicationContext c = start("lanes.readiness.rejecting-for=300ms");
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      Lanes lanes = c.getBean(Lanes.class);
      Lane work = lanes.lane("work");
      CountDownLatch release = new CountDownLatch(1);
      hold(work, release);
      AtomicBoolean stop = new AtomicBoolean();
      Thread refuser = refuser(work, stop);
      Thread remover = null;
      try {
        untilUnready(http, c, work);
        // remove() closes the lane, which waits for the held task: on a thread of its own.
        remover = Thread.ofPlatform().name("remover").start(() -> lanes.remove("work"));
        await().atMost(PATIENCE).until(() -> !lanes.names().contains("work"));
        await().atMost(PATIENCE).until(() -> status(http, c, "/actuator/health/readiness") == 200);
      } finally {
        stop.set(true);
        refuser.join();
        release.countDown();
        if (remover != null) {
          remover.join();
        }
      }
    }
  }

  @Test
  @Timeout(120)
  void withoutTheSettingARejectingLaneLeavesReadinessAlone() throws Exception {
    try (ConfigurableApplicationContext c = start();
        HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build()) {
      assertThat(c.getBeanNamesForType(LanesReadiness.class)).isEmpty();
      Lane work = c.getBean(Lanes.class).lane("work");
      CountDownLatch release = new CountDownLatch(1);
      hold(work, release);
      AtomicBoolean stop = new AtomicBoolean();
      Thread refuser = refuser(work, stop);
      try {
        await().atMost(PATIENCE).until(() -> work.health() == LaneHealth.REJECTING);
        assertThat(status(http, c, "/actuator/health/readiness")).isEqualTo(200);
      } finally {
        stop.set(true);
        refuser.join();
        release.countDown();
      }
    }
  }
}
