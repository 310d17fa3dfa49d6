package dev.lanes.opentelemetry;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.Meter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Publishes lanes' figures as OpenTelemetry metrics, through the OpenTelemetry API, under lanes'
 * own names or the proposed {@code jvm.executor.*} conventions ({@link MetricNames}).
 *
 * <pre>{@code
 * LanesTelemetry telemetry = LanesTelemetry.builder(openTelemetry, lanes)
 *     .names(MetricNames.JVM_EXECUTOR)
 *     .build();                       // publishing from now on
 * ...
 * telemetry.close();                  // stops every callback and listener it registered
 * }</pre>
 *
 * <p>Counts and gauges are asynchronous instruments: one batch callback per lane reads one {@code
 * Lane.stats()} snapshot per collection, so every figure of one export comes from the same
 * snapshot. Queue wait, run and CPU time are histograms fed from the lane's task records ({@link
 * Lane#onTask}), one sample per task that ran, as lanes' own timings count them.
 *
 * <p>Follows the set: a lane added to a {@link Lanes} later is published from then on; a lane
 * removed from it is no longer observed. A lane that terminated on its own is observed no more.
 *
 * <p><b>Concurrency design.</b> {@code lock} guards {@code bound} (lane name → that lane's
 * instruments) and {@code closed}; {@link Lanes#onAdded} / {@link Lanes#onRemoved} and {@link
 * #close} bind and unbind under it. A lane is keyed by name and compared by identity: a new lane
 * that takes a removed lane's name replaces the old one's registration, and a late removal of the
 * old lane leaves the new one alone. A lane that terminated while bound stays bound, silent (its
 * callback observes nothing once {@code isTerminated()}), until it is removed from the set or this
 * is closed. Callbacks run on the metric reader's thread and read the lane only, never this lock;
 * task records are recorded on the lane's worker threads.
 */
public final class LanesTelemetry implements AutoCloseable {

  /** The instrumentation scope every instrument is registered under. */
  public static final String SCOPE = "dev.lanes.opentelemetry";

  private final Lanes lanes;
  private final Instruments instruments;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, LaneInstruments> bound = new LinkedHashMap<>();
  private final Consumer<Lane> added = this::onAdded;
  private final Consumer<Lane> removed = this::onRemoved;
  private boolean closed;

  private LanesTelemetry(Builder b) {
    this.lanes = b.lanes;
    Meter meter = b.openTelemetry.meterBuilder(SCOPE).build();
    this.instruments = new Instruments(meter, b.names);
    lock.lock();
    try {
      if (lanes != null) {
        // Subscribe before reading the set, so that no lane added meanwhile is missed; a lane seen
        // both ways is bound once (bind is idempotent).
        lanes.onAdded(added);
        lanes.onRemoved(removed);
      }
      for (Lane lane : lanes != null ? lanes.all() : List.of(b.lane)) {
        bind(lane);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Publishes every lane of {@code lanes}, now and later, under lanes' own names. */
  public static LanesTelemetry create(OpenTelemetry openTelemetry, Lanes lanes) {
    return builder(openTelemetry, lanes).build();
  }

  /** Publishes one lane under lanes' own names. */
  public static LanesTelemetry create(OpenTelemetry openTelemetry, Lane lane) {
    return builder(openTelemetry, lane).build();
  }

  /**
   * Settings for publishing every lane of {@code lanes}, now and later.
   *
   * @throws NullPointerException if an argument is null, naming it
   */
  public static Builder builder(OpenTelemetry openTelemetry, Lanes lanes) {
    return new Builder(requireOpenTelemetry(openTelemetry),
        Objects.requireNonNull(lanes, "lanes-opentelemetry: lanes is null; expected the Lanes set"
            + " to publish (dev.lanes.Lanes), or a single Lane"), null);
  }

  /**
   * Settings for publishing one lane.
   *
   * @throws NullPointerException if an argument is null, naming it
   */
  public static Builder builder(OpenTelemetry openTelemetry, Lane lane) {
    return new Builder(requireOpenTelemetry(openTelemetry), null,
        Objects.requireNonNull(lane, "lanes-opentelemetry: lane is null; expected the Lane to"
            + " publish (dev.lanes.Lane), or a Lanes set"));
  }

  private static OpenTelemetry requireOpenTelemetry(OpenTelemetry openTelemetry) {
    return Objects.requireNonNull(openTelemetry, "lanes-opentelemetry: openTelemetry is null;"
        + " expected an io.opentelemetry.api.OpenTelemetry (e.g. GlobalOpenTelemetry.get() or"
        + " your OpenTelemetrySdk)");
  }

  /** Names of the lanes observed now (for tests and diagnostics). */
  public List<String> boundLanes() {
    lock.lock();
    try {
      return List.copyOf(bound.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** Stops every callback and task listener this registered and stops following the set. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (lanes != null) {
        lanes.removeListener(added);
        lanes.removeListener(removed);
      }
      bound.values().forEach(LaneInstruments::close);
      bound.clear();
    } finally {
      lock.unlock();
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
    LaneInstruments existing = bound.get(lane.name());
    if (existing != null) {
      if (existing.lane() == lane) {
        return;
      }
      unbind(existing.lane()); // a new lane took an old lane's name
    }
    if (lane.isTerminated()) {
      return;
    }
    bound.put(lane.name(), instruments.observe(lane));
  }

  /** Under {@code lock}. Only unbinds if {@code lane} is the lane bound under its name. */
  private void unbind(Lane lane) {
    LaneInstruments b = bound.get(lane.name());
    if (b != null && b.lane() == lane) {
      bound.remove(lane.name());
      b.close();
    }
  }

  /** Settings of a {@link LanesTelemetry}. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private final Lanes lanes;
    private final Lane lane;
    private MetricNames names = MetricNames.LANES;

    private Builder(OpenTelemetry openTelemetry, Lanes lanes, Lane lane) {
      this.openTelemetry = openTelemetry;
      this.lanes = lanes;
      this.lane = lane;
    }

    /** The names to publish under (default {@link MetricNames#LANES}). */
    public Builder names(MetricNames names) {
      this.names = Objects.requireNonNull(names, "lanes-opentelemetry: names is null; expected"
          + " MetricNames.LANES or MetricNames.JVM_EXECUTOR");
      return this;
    }

    /** Starts publishing. */
    public LanesTelemetry build() {
      return new LanesTelemetry(this);
    }
  }
}
