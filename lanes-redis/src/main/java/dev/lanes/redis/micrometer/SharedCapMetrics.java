package dev.lanes.redis.micrometer;

import dev.lanes.redis.SharedCap;
import dev.lanes.redis.SharedCapHealth;
import dev.lanes.redis.SharedCapStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters of one {@link SharedCap}, tagged {@code lane=<name>} (micrometer-core is an
 * optional dependency of lanes-redis: add it to use this class). Each reading takes a fresh
 * {@link SharedCap#stats()}; the global figures are the ones Redis last answered.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code lanes.shared.cap}</td><td>gauge</td><td>the global cap</td></tr>
 *   <tr><td>{@code lanes.shared.permits.in.use}</td><td>gauge</td><td>permits held by every instance</td></tr>
 *   <tr><td>{@code lanes.shared.permits.held}</td><td>gauge</td><td>permits held by this instance's running tasks (its share)</td></tr>
 *   <tr><td>{@code lanes.shared.permits.waiting}</td><td>gauge</td><td>permits this instance is asking for</td></tr>
 *   <tr><td>{@code lanes.shared.permits.unclaimed}</td><td>gauge</td><td>permits granted here that no worker took yet</td></tr>
 *   <tr><td>{@code lanes.shared.permits.kept}</td><td>gauge</td><td>permits held here between two tasks, kept for the next queued one</td></tr>
 *   <tr><td>{@code lanes.shared.local.share.running}</td><td>gauge</td><td>tasks running on the fault policy's local share</td></tr>
 *   <tr><td>{@code lanes.shared.health}</td><td>gauge, tag {@code state}</td><td>1 for the current state, 0 for the others</td></tr>
 *   <tr><td>{@code lanes.shared.permits.granted}</td><td>counter</td><td>permits granted to this instance</td></tr>
 *   <tr><td>{@code lanes.shared.refused}</td><td>counter</td><td>refusals for good; each ends the lane's oldest queued task if one is left (the lane counts those tasks as {@code gate_refused})</td></tr>
 *   <tr><td>{@code lanes.shared.permits.reinstated}</td><td>counter</td><td>permits of running tasks put back</td></tr>
 *   <tr><td>{@code lanes.shared.tasks.on.kept.permits}</td><td>counter</td><td>tasks started on a permit kept from the task before (no call to Redis)</td></tr>
 *   <tr><td>{@code lanes.shared.redis.failures}</td><td>counter</td><td>calls to Redis that failed or timed out</td></tr>
 * </table>
 */
public final class SharedCapMetrics implements MeterBinder {

  private final SharedCap cap;
  private final Tags tags;

  public SharedCapMetrics(SharedCap cap, Iterable<io.micrometer.core.instrument.Tag> extraTags) {
    this.cap = Objects.requireNonNull(cap, "cap");
    this.tags = Tags.of(extraTags).and("lane", cap.name());
  }

  public SharedCapMetrics(SharedCap cap) {
    this(cap, Tags.empty());
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "lanes.shared.cap", "the most tasks running at once across every instance",
        s -> s.globalCap());
    gauge(registry, "lanes.shared.permits.in.use", "permits held by every instance (as Redis last said)",
        s -> s.globalInUse());
    gauge(registry, "lanes.shared.permits.held", "permits held by this instance's running tasks",
        s -> s.heldHere());
    gauge(registry, "lanes.shared.permits.waiting", "permits this instance is asking for",
        s -> s.waitingForPermit());
    gauge(registry, "lanes.shared.permits.unclaimed",
        "permits granted to this instance that no worker has taken yet", s -> s.grantedUnclaimed());
    gauge(registry, "lanes.shared.permits.kept",
        "permits this instance holds between two tasks, kept for its next queued task",
        s -> s.keptForNextTask());
    gauge(registry, "lanes.shared.local.share.running",
        "tasks running on the fault policy's local share, without a permit",
        s -> s.runningOnLocalShare());
    for (SharedCapHealth state : SharedCapHealth.values()) {
      Gauge.builder("lanes.shared.health", cap, c -> c.health() == state ? 1 : 0)
          .tags(tags).tag("state", state.name().toLowerCase(java.util.Locale.ROOT))
          .description("1 for the shared cap's current state").register(registry);
    }
    counter(registry, "lanes.shared.permits.granted", "permits granted to this instance",
        s -> s.permitsGranted());
    counter(registry, "lanes.shared.permits.reinstated",
        "permits of running tasks found missing from Redis and put back", s -> s.permitsReinstated());
    counter(registry, "lanes.shared.tasks.on.kept.permits",
        "tasks started with a permit kept from the task before (no call to Redis)",
        s -> s.tasksOnKeptPermits());
    counter(registry, "lanes.shared.redis.failures", "calls to Redis that failed or timed out",
        s -> s.redisFailures());
    counter(registry, "lanes.shared.refused",
        "refusals for good (Redis away under fail-fast, or closed); the lane's gate_refused counts the tasks they ended",
        s -> s.refused());
  }

  private void gauge(MeterRegistry registry, String name, String description,
      ToDoubleFunction<SharedCapStats> value) {
    Gauge.builder(name, cap, c -> value.applyAsDouble(c.stats())).tags(tags)
        .description(description).register(registry);
  }

  private void counter(MeterRegistry registry, String name, String description,
      ToDoubleFunction<SharedCapStats> value) {
    FunctionCounter.builder(name, cap, c -> value.applyAsDouble(c.stats())).tags(tags)
        .description(description).register(registry);
  }
}
