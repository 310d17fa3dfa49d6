package dev.lanes.spring.boot;

import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.Lanes;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health from lanes' own states, worst lane first: {@code OK} and {@code SATURATED} are UP (a
 * saturated lane still works, slower: its state is in the details), {@code REJECTING} is
 * OUT_OF_SERVICE (it refuses work), {@code DEADLOCKED} is DOWN. Details per lane: health, queued,
 * running, concurrency limit, rejected.
 */
public final class LanesHealthIndicator implements HealthIndicator {
  private final Lanes lanes;

  public LanesHealthIndicator(Lanes lanes) {
    this.lanes = lanes;
  }

  @Override
  public Health health() {
    LaneHealth worst = LaneHealth.OK;
    Map<String, Object> details = new LinkedHashMap<>();
    for (LaneStats s : lanes.stats().values()) {
      if (s.health().compareTo(worst) > 0) {
        worst = s.health();
      }
      Map<String, Object> lane = new LinkedHashMap<>();
      lane.put("health", s.health().name());
      lane.put("queued", s.queued());
      lane.put("running", s.running());
      lane.put("concurrency", s.concurrency());
      lane.put("rejected", s.rejected());
      details.put(s.lane(), lane);
    }
    return Health.status(status(worst)).withDetails(details).build();
  }

  static Status status(LaneHealth health) {
    return switch (health) {
      case OK, SATURATED -> Status.UP;
      case REJECTING -> Status.OUT_OF_SERVICE;
      case DEADLOCKED -> Status.DOWN;
    };
  }
}
