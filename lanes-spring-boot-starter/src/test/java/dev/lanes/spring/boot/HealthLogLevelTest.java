package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.Lanes;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code health-log-level} and the saturation settings from properties, seen in a real Boot
 * application's log: a lane that saturates logs OK → SATURATED at the level chosen.
 */
@ExtendWith(OutputCaptureExtension.class)
class HealthLogLevelTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @Test
  @Timeout(120)
  void saturationIsLoggedAtTheConfiguredLevel(CapturedOutput output) throws Exception {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
        .properties(
            "spring.main.web-application-type=none",
            "lanes.instances.db.kind=blocking",
            "lanes.instances.db.concurrency=1",
            "lanes.instances.slow.kind=blocking",
            "lanes.instances.slow.concurrency=1",
            // A queued task that waited 1 ms saturates the lane at the next health check.
            "lanes.instances.slow.fixed-wait-threshold=1ms",
            "lanes.instances.slow.saturation-min-wait=0s",
            "lanes.instances.slow.enter-after=0s",
            "lanes.instances.slow.exit-after=0s",
            "lanes.instances.slow.health-log-level=warning")
        .run()) {
      Lane slow = context.getBean(Lanes.class).lane("slow");
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch started = new CountDownLatch(1);
      slow.execute(() -> {
        started.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      assertThat(started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      slow.execute(() -> {}); // waits behind the first
      try {
        Awaitility.await().atMost(PATIENCE).until(() -> slow.health() == LaneHealth.SATURATED);
        Awaitility.await().atMost(PATIENCE).until(() -> output.getOut().contains("\"slow\": OK → SATURATED"));
      } finally {
        release.countDown();
      }
      String line = output.getOut().lines().filter(l -> l.contains("\"slow\": OK → SATURATED")).findFirst().orElseThrow();
      assertThat(line).contains(" WARN ");
    }
  }
}
