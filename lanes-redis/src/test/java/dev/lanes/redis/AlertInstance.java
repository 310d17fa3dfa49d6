package dev.lanes.redis;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.alerts.LaneAlerts;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * One instance of a service, as its own JVM, for {@link RedisAlertDedupeTest}: a lane "reports"
 * whose queue is full refuses 5 tasks; its LaneAlerts, on the Redis given as the argument, prints
 * {@code ready}, checks once on the line {@code go}, and prints {@code sent <alerts it sent>}.
 */
public final class AlertInstance {
  private AlertInstance() {}

  public static void main(String[] args) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("reports", 1).queueCapacity(1)
            .saturatedWhenWaitExceeds(Duration.ofHours(1)).build();
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().rejectionsPerSecond(0,
                Duration.ofMinutes(1)).sink(a -> { }).dedupe(RedisAlertDedupe.to(args[0],
                Duration.ofSeconds(5))).build()) {
      alerts.watch(lane);
      CountDownLatch running = new CountDownLatch(1);
      lane.submit(() -> {
        running.countDown();
        release.await();
        return null;
      });
      running.await();
      lane.submit(() -> "queued");
      for (int i = 0; i < 5; i++) {
        try {
          lane.execute(() -> { });
        } catch (LaneRejectedException expected) {
          // the refusals the alert is about
        }
      }
      System.out.println("ready");
      String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
          .readLine();
      if ("go".equals(go)) {
        alerts.check();
      }
      System.out.println("sent " + alerts.alertsSent());
      release.countDown();
    } finally {
      release.countDown();
    }
  }
}
