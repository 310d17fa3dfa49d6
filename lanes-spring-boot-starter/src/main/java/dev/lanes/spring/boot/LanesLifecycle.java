package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Shuts the lanes down when the application stops, after the web server has stopped taking
 * requests (a lower phase than Spring Boot's web server lifecycles, so it stops after them).
 *
 * <p>Every lane is shut down at once (no new tasks; accepted ones still run), then waited for,
 * all within {@code lanes.shutdown.await-termination}. A lane still busy after that is stopped
 * with {@code shutdownNow}: the tasks that never started are returned by it and logged at WARN with
 * their count, running ones are interrupted — so an accepted task has run, or is reported, never
 * dropped without a word.
 */
final class LanesLifecycle implements SmartLifecycle {
  /** Stops after the web server (WebServerStartStopLifecycle is DEFAULT_PHASE - 2048). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private static final Log log = LogFactory.getLog(LanesLifecycle.class);

  private final Lanes lanes;
  private final Duration awaitTermination;
  private volatile boolean running;

  LanesLifecycle(Lanes lanes, Duration awaitTermination) {
    this.lanes = lanes;
    this.awaitTermination = awaitTermination;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    var all = lanes.all();
    all.forEach(Lane::shutdown);
    long deadline = System.nanoTime() + awaitTermination.toNanos();
    for (Lane lane : all) {
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        if (!lane.awaitTermination(left, TimeUnit.NANOSECONDS)) {
          List<Runnable> neverStarted = lane.shutdownNow();
          log.warn("lane \"" + lane.name() + "\" did not finish within " + awaitTermination
              + " of shutdown; " + neverStarted.size()
              + " task(s) that never started were returned by shutdownNow and will not run; "
              + "running tasks were interrupted");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        lane.shutdownNow();
        return;
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
