package dev.lanes.bench;

import dev.lanes.Lane;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A platform thread that reads a lane's {@code stats()} every {@link
 * ExecutorFactory#STATS_READ_MILLIS} ms while the benchmark runs: a scraper polling far more often
 * than a metrics system would, so its cost on the workers shows.
 *
 * <p>Design: one daemon thread; {@code running} is a volatile flag; the stop action clears it,
 * unparks the thread and joins it, so no thread outlives the executor.
 */
final class StatsReader implements Runnable {
  private final Lane lane;
  private volatile boolean running = true;
  private long reads;

  private StatsReader(Lane lane) {
    this.lane = lane;
  }

  /** Starts a reader and returns the action that stops and joins it. */
  static Runnable start(Lane lane) {
    StatsReader reader = new StatsReader(lane);
    Thread t = Thread.ofPlatform().name("bench-stats-reader").daemon(true).start(reader);
    return () -> {
      reader.running = false;
      LockSupport.unpark(t);
      try {
        t.join(TimeUnit.MINUTES.toMillis(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  @Override
  public void run() {
    while (running) {
      if (lane.stats().submitted() >= 0) {
        reads++;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ExecutorFactory.STATS_READ_MILLIS));
    }
  }

  @Override
  public String toString() {
    return "stats reader of " + lane.name() + " (" + reads + " reads)";
  }
}
