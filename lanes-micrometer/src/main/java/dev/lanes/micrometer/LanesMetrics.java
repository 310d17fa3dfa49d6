package dev.lanes.micrometer;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.Ticker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Publishes lanes' figures to Micrometer: per lane (tags {@code lane} and {@code kind}) the timers
 * {@code lanes.task.wait}, {@code lanes.task.run}, {@code lanes.task.cpu}, the counter {@code
 * lanes.tasks} by {@code outcome}, the gauges {@code lanes.queue.size}, {@code lanes.running},
 * {@code lanes.queue.oldest}, {@code lanes.workers}, {@code lanes.concurrency}, {@code
 * lanes.capacity.remaining}, {@code lanes.saturated}, {@code lanes.health} (by {@code state}) and the function counters {@code
 * lanes.saturated.time} and {@code lanes.between.tasks.time}. See {@link LaneMeters} for what each one means.
 *
 * <pre>{@code
 * LanesMetrics metrics = LanesMetrics.of(lanes);   // or LanesMetrics.of(lane)
 * metrics.bindTo(registry);
 * ...
 * metrics.close();                                  // removes every meter it registered
 * }</pre>
 *
 * <p>Follows the set: a lane added to a {@link Lanes} later gets its meters; a lane removed from
 * it, or closed (terminated) on its own, loses them.
 *
 * <p><b>Concurrency design.</b> {@code lock} guards {@code registries}, {@code bound} (lane name →
 * the lane's meters in every registry) and {@code closed}; binding and unbinding happen under it,
 * so a change from {@link Lanes#onAdded} / {@link Lanes#onRemoved} and a watcher's removal
 * cannot interleave. A lane is
 * keyed by name and compared by identity: a new lane that takes a removed lane's name replaces the
 * old lane's meters, and a late removal of the old lane does not touch the new one's. Each bound
 * lane has one watcher, a virtual thread parked in {@code awaitTermination}, which unbinds the
 * lane once it terminated; {@link #close()} interrupts and joins the watchers. Meter functions
 * run on the registry's threads and read a {@link StatsCache}, never this binder's lock.
 */
public final class LanesMetrics implements MeterBinder, AutoCloseable {

  /** Default age after which a scrape reads fresh {@code Lane.stats()}. */
  public static final Duration DEFAULT_STATS_MAX_AGE = Duration.ofSeconds(1);

  private static final long WATCHER_JOIN_MILLIS = 5_000;

  private final Lanes lanes;
  private final Lane single;
  private final Tags extraTags;
  private final long statsMaxAgeNanos;
  private final boolean percentileHistogram;
  private final Ticker ticker;

  private final ReentrantLock lock = new ReentrantLock();
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final Map<String, Bound> bound = new LinkedHashMap<>();
  private final Consumer<Lane> added = this::onAdded;
  private final Consumer<Lane> removed = this::onRemoved;
  private boolean following;
  private boolean closed;

  private LanesMetrics(Builder b) {
    this.lanes = b.lanes;
    this.single = b.lane;
    this.extraTags = b.tags;
    this.statsMaxAgeNanos = b.statsMaxAge.toNanos();
    this.percentileHistogram = b.percentileHistogram;
    this.ticker = b.ticker;
  }

  /** A binder for every lane of {@code lanes}, now and later, with default settings. */
  public static LanesMetrics of(Lanes lanes) {
    return builder(lanes).build();
  }

  /** A binder for one lane, with default settings. */
  public static LanesMetrics of(Lane lane) {
    return builder(lane).build();
  }

  public static Builder builder(Lanes lanes) {
    return new Builder(Objects.requireNonNull(lanes, "lanes"), null);
  }

  public static Builder builder(Lane lane) {
    return new Builder(null, Objects.requireNonNull(lane, "lane"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("lanes-micrometer: binder is closed; make a new one");
      }
      if (registries.stream().anyMatch(r -> r == registry)) {
        return;
      }
      registries.add(registry);
      if (lanes != null && !following) {
        // Subscribe before reading the set, so that no lane added meanwhile is missed; a lane seen
        // both ways is bound once (bind is idempotent).
        lanes.onAdded(added);
        lanes.onRemoved(removed);
        following = true;
      }
      for (Lane lane : lanes != null ? lanes.all() : List.of(single)) {
        Bound b = bound.get(lane.name());
        if (b != null && b.lane == lane) {
          b.addRegistry(registry);
        } else {
          bind(lane);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Names of the lanes whose meters are registered now (for tests and diagnostics). */
  public List<String> boundLanes() {
    lock.lock();
    try {
      return List.copyOf(bound.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** Removes every meter this binder registered and stops following the lanes. Idempotent. */
  @Override
  public void close() {
    List<Thread> watchers = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (following) {
        lanes.removeListener(added);
        lanes.removeListener(removed);
        following = false;
      }
      for (Bound b : bound.values()) {
        b.unregister();
        watchers.add(b.watcher);
      }
      bound.clear();
      registries.clear();
    } finally {
      lock.unlock();
    }
    boolean interrupted = false;
    for (Thread w : watchers) {
      w.interrupt();
      try {
        if (!w.join(Duration.ofMillis(WATCHER_JOIN_MILLIS))) {
          throw new IllegalStateException("lanes-micrometer: watcher " + w.getName() + " did not stop");
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void onAdded(Lane lane) {
    lock.lock();
    try {
      if (!closed) {
        bind(lane);
      }
    } finally {
      lock.unlock();
    }
  }

  private void onRemoved(Lane lane) {
    lock.lock();
    try {
      if (!closed) {
        unbind(lane);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Under {@code lock}. */
  private void bind(Lane lane) {
    Bound existing = bound.get(lane.name());
    if (existing != null) {
      if (existing.lane == lane) {
        return;
      }
      // A new lane took an old lane's name: the old lane's meters go first.
      unbind(existing.lane);
    }
    if (lane.isTerminated()) {
      return;
    }
    Tags tags =
        extraTags.and(Tag.of("lane", lane.name()), Tag.of("kind", lane.kind().tag()));
    LaneMeters meters =
        new LaneMeters(lane, tags, new StatsCache(lane, statsMaxAgeNanos, ticker), percentileHistogram);
    Bound b = new Bound(lane, meters);
    for (MeterRegistry r : registries) {
      b.addRegistry(r);
    }
    bound.put(lane.name(), b);
    b.watcher = Thread.ofVirtual().name("lanes-metrics-watch-" + lane.name()).start(() -> watch(lane));
  }

  /** Under {@code lock}. Only unbinds if {@code lane} is the lane bound under its name. */
  private void unbind(Lane lane) {
    Bound b = bound.get(lane.name());
    if (b == null || b.lane != lane) {
      return;
    }
    bound.remove(lane.name());
    b.unregister();
    if (b.watcher != Thread.currentThread()) {
      b.watcher.interrupt();
    }
  }

  private void watch(Lane lane) {
    try {
      while (!lane.awaitTermination(1, TimeUnit.DAYS)) {
        // keep waiting
      }
    } catch (InterruptedException e) {
      return; // unbound or closed: nothing left to do
    }
    lock.lock();
    try {
      unbind(lane);
    } finally {
      lock.unlock();
    }
  }

  /** One lane's meters in every bound registry, and its watcher. Guarded by the binder's lock. */
  private static final class Bound {
    final Lane lane;
    final LaneMeters meters;
    Thread watcher;

    Bound(Lane lane, LaneMeters meters) {
      this.lane = lane;
      this.meters = meters;
    }

    void addRegistry(MeterRegistry registry) {
      meters.register(registry);
    }

    void unregister() {
      meters.close();
    }
  }

  /** Settings of a {@link LanesMetrics}. */
  public static final class Builder {
    private final Lanes lanes;
    private final Lane lane;
    private Tags tags = Tags.empty();
    private Duration statsMaxAge = DEFAULT_STATS_MAX_AGE;
    private boolean percentileHistogram;
    private Ticker ticker = Ticker.system();

    private Builder(Lanes lanes, Lane lane) {
      this.lanes = lanes;
      this.lane = lane;
    }

    /** Tags added to every meter, beside {@code lane} and {@code kind}. */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
      for (Tag t : this.tags) {
        if (List.of("lane", "kind", "outcome", "rejected").contains(t.getKey())) {
          throw new IllegalArgumentException(
              "lanes-micrometer: tag \"" + t.getKey() + "\" is set by the binder; choose another key");
        }
      }
      return this;
    }

    /**
     * How old a {@code Lane.stats()} snapshot may be before a meter reads a fresh one (default 1
     * s, from 0 to 1 min). One snapshot serves all the gauges of a scrape.
     */
    public Builder statsMaxAge(Duration maxAge) {
      Objects.requireNonNull(maxAge, "statsMaxAge");
      if (maxAge.isNegative() || maxAge.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException(
            "lanes-micrometer: statsMaxAge must be between PT0S and PT1M, was " + maxAge);
      }
      this.statsMaxAge = maxAge;
      return this;
    }

    /**
     * Whether the three timers publish a percentile histogram (Prometheus {@code _bucket} series),
     * for {@code histogram_quantile} across instances. Default off: count, sum and max only.
     */
    public Builder percentileHistogram(boolean enabled) {
      this.percentileHistogram = enabled;
      return this;
    }

    /** The clock for the stats cache (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public LanesMetrics build() {
      return new LanesMetrics(this);
    }
  }
}
