package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.Lanes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;

/**
 * {@code lanes.readiness.rejecting-for}: once a lane has been REJECTING that long, the application
 * refuses traffic ({@link ReadinessState#REFUSING_TRAFFIC}, what Kubernetes' readiness probe
 * reads), and accepts it again when no lane is REJECTING — unless another part of the
 * application changed readiness since (a shutdown refusing traffic, say): then it leaves readiness
 * as that part set it, and says so. A lane removed while REJECTING no longer holds readiness back.
 * Liveness is never touched: a lane that refuses work needs less traffic, not a restart.
 *
 * <p>Thread-safety: one daemon thread, {@code lanes-readiness}, reads each lane's health every
 * quarter of {@code rejecting-for} (10 ms to 1 s) and owns every field; {@link #close} stops it.
 */
final class LanesReadiness implements AutoCloseable {
  private static final Log log = LogFactory.getLog(LanesReadiness.class);

  private final Lanes lanes;
  private final long rejectingForNanos;
  private final ApplicationEventPublisher publisher;
  private final @Nullable ApplicationAvailability availability;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().name("lanes-readiness").daemon(true).factory());
  /** Since when each REJECTING lane has been so (System.nanoTime), by name; the thread's own. */
  private final Map<String, Long> rejectingSince = new HashMap<>();
  /** This published REFUSING_TRAFFIC and has not taken it back; the thread's own. */
  private boolean refusing;

  LanesReadiness(Lanes lanes, Duration rejectingFor, ApplicationEventPublisher publisher,
      @Nullable ApplicationAvailability availability) {
    this.lanes = lanes;
    this.rejectingForNanos = rejectingFor.toNanos();
    this.publisher = publisher;
    this.availability = availability;
    long every = Math.clamp(rejectingForNanos / 4, TimeUnit.MILLISECONDS.toNanos(10),
        TimeUnit.SECONDS.toNanos(1));
    thread.scheduleWithFixedDelay(this::check, every, every, TimeUnit.NANOSECONDS);
  }

  private void check() {
    try {
      long now = System.nanoTime();
      String longest = null;
      long longestFor = -1;
      // a lane removed from the set while REJECTING no longer holds readiness back
      rejectingSince.keySet().retainAll(lanes.names());
      for (Lane lane : lanes.all()) {
        if (lane.health() != LaneHealth.REJECTING) {
          rejectingSince.remove(lane.name());
          continue;
        }
        long since = rejectingSince.computeIfAbsent(lane.name(), n -> now);
        if (now - since >= rejectingForNanos && now - since > longestFor) {
          longest = lane.name();
          longestFor = now - since;
        }
      }
      if (longest != null && !refusing) {
        refusing = true;
        log.warn("lanes: lane \"" + longest + "\" has been REJECTING for " + Duration.ofNanos(longestFor)
            + " (lanes.readiness.rejecting-for " + Duration.ofNanos(rejectingForNanos)
            + "): the application refuses traffic until no lane is REJECTING");
        AvailabilityChangeEvent.publish(publisher, this, ReadinessState.REFUSING_TRAFFIC);
      } else if (rejectingSince.isEmpty() && refusing) {
        refusing = false;
        AvailabilityChangeEvent<ReadinessState> last =
            availability == null ? null : availability.getLastChangeEvent(ReadinessState.class);
        if (last != null && last.getSource() != this) {
          log.info("lanes: no lane is REJECTING any more; readiness stays " + last.getState()
              + ", as another part of the application set it after lanes did");
        } else {
          log.info("lanes: no lane is REJECTING any more: the application accepts traffic again");
          AvailabilityChangeEvent.publish(publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
        }
      }
    } catch (RuntimeException e) {
      log.warn("lanes: the readiness check failed; it runs again", e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
