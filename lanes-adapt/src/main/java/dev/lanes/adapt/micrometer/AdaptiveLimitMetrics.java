package dev.lanes.adapt.micrometer;

import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.LimitChange;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Micrometer meters of one {@link AdaptiveLimit}, tagged {@code lane=<name>} (micrometer-core is
 * an optional dependency of lanes-adapt: add it to use this class). The limit itself is also the
 * lane's {@code lanes.concurrency} (lanes-micrometer); these meters add its bounds and why it
 * moved.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code lanes.adaptive.limit}</td><td>gauge</td><td>the limit now ({@link AdaptiveLimit#limit()})</td></tr>
 *   <tr><td>{@code lanes.adaptive.limit.min}</td><td>gauge</td><td>the lowest the limit may go (the settings' {@code minLimit})</td></tr>
 *   <tr><td>{@code lanes.adaptive.limit.max}</td><td>gauge</td><td>the highest the limit may go (the settings' {@code maxLimit})</td></tr>
 *   <tr><td>{@code lanes.adaptive.changes}</td><td>function counter, tag {@code reason}</td><td>changes of the limit since this binder was made, by {@link LimitChange.Reason} ({@code probe}, {@code grow}, {@code cut})</td></tr>
 * </table>
 *
 * <p>Bind one binder to as many registries as you like: it counts each change once. {@link
 * #close()} stops counting (the meters stay registered, showing their last values).
 *
 * <p><b>Concurrency design.</b> The change listener runs on the lane's thread that decided the
 * change, one change at a time ({@link AdaptiveLimit#onChange}); it increments a {@link
 * LongAdder} per reason, which the registry's threads read without a lock. The gauges read the
 * limit's volatile {@code limit()} and its immutable settings.
 */
public final class AdaptiveLimitMetrics implements MeterBinder, AutoCloseable {

  private final AdaptiveLimit limit;
  private final Tags tags;
  private final Map<LimitChange.Reason, LongAdder> changes = new EnumMap<>(LimitChange.Reason.class);
  private final Consumer<LimitChange> counter = this::count;

  /** Meters for {@code limit}, with {@code extraTags} beside {@code lane}; counting starts now. */
  public AdaptiveLimitMetrics(AdaptiveLimit limit, Iterable<Tag> extraTags) {
    this.limit = Objects.requireNonNull(limit, "limit");
    this.tags = Tags.of(Objects.requireNonNull(extraTags, "extraTags")).and("lane", limit.lane().name());
    for (LimitChange.Reason r : LimitChange.Reason.values()) {
      changes.put(r, new LongAdder());
    }
    limit.onChange(counter);
  }

  /** Meters for {@code limit}, tagged with its lane's name only; counting starts now. */
  public AdaptiveLimitMetrics(AdaptiveLimit limit) {
    this(limit, Tags.empty());
  }

  private void count(LimitChange change) {
    changes.get(change.reason()).increment();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("lanes.adaptive.limit", limit, AdaptiveLimit::limit)
        .description("The adaptive limit now: how many of the lane's tasks may run at once")
        .baseUnit("tasks").tags(tags).register(registry);
    Gauge.builder("lanes.adaptive.limit.min", limit, l -> l.settings().minLimit())
        .description("The lowest the adaptive limit may go (minLimit)")
        .baseUnit("tasks").tags(tags).register(registry);
    Gauge.builder("lanes.adaptive.limit.max", limit, l -> l.settings().maxLimit())
        .description("The highest the adaptive limit may go (maxLimit)")
        .baseUnit("tasks").tags(tags).register(registry);
    for (LimitChange.Reason r : LimitChange.Reason.values()) {
      FunctionCounter.builder("lanes.adaptive.changes", changes.get(r), LongAdder::doubleValue)
          .description("Changes of the adaptive limit, by reason: probe and grow raised it, cut"
              + " lowered it")
          .baseUnit("changes").tags(tags).tag("reason", r.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
  }

  /** Stops counting changes; the meters stay registered. Idempotent. */
  @Override
  public void close() {
    limit.removeListener(counter);
  }
}
