package dev.lanes.micrometer;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.Ticker;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lane's latest {@link LaneStats}, re-read when older than {@code maxAgeNanos}, so that the
 * dozen gauges and counters of one scrape share one {@code stats()} call (which locks and drains
 * the lane's timing stripes).
 *
 * <p><b>Concurrency design.</b> {@code snapshot} is a volatile immutable holder; readers take it
 * without locking when fresh. A stale read refreshes under {@code refreshLock}, re-checking first,
 * so concurrent scrapes make one {@code stats()} call, not one each.
 */
final class StatsCache {

  private record Snapshot(LaneStats stats, long readAtNanos) {}

  private final Lane lane;
  private final long maxAgeNanos;
  private final Ticker ticker;
  private final ReentrantLock refreshLock = new ReentrantLock();
  private volatile Snapshot snapshot;

  StatsCache(Lane lane, long maxAgeNanos, Ticker ticker) {
    this.lane = lane;
    this.maxAgeNanos = maxAgeNanos;
    this.ticker = ticker;
  }

  LaneStats stats() {
    Snapshot s = snapshot;
    if (s != null && ticker.read() - s.readAtNanos < maxAgeNanos) {
      return s.stats;
    }
    refreshLock.lock();
    try {
      s = snapshot;
      long now = ticker.read();
      if (s == null || now - s.readAtNanos >= maxAgeNanos) {
        s = new Snapshot(lane.stats(), now);
        snapshot = s;
      }
      return s.stats;
    } finally {
      refreshLock.unlock();
    }
  }
}
