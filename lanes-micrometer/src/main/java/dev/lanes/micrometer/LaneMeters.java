package dev.lanes.micrometer;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one lane, in one or more registries.
 *
 * <p>Timers are fed from the lane's {@link TaskRecord}s ({@link Lane#onTask}): one sample per task
 * that ran, as lanes' own timings count them (a task rejected, or cancelled before it started, is
 * counted in {@code lanes.tasks} but has no wait or run sample). {@code lanes.task.cpu} gets a
 * sample only for tasks whose CPU time was read (lanes samples CPU time, by default at most once
 * per millisecond per worker, and never on virtual threads). Counters and gauges read {@link
 * LaneStats} through a {@link StatsCache}.
 *
 * <p><b>Concurrency design.</b> {@code timers} is copy-on-write: the record listener runs on the
 * lane's worker threads and iterates it without locking; {@link #register} and {@link #close} run
 * under the binder's lock. After {@link #close}, the listener is unsubscribed, so no timer of a
 * removed meter is fed again (a record in flight may still touch a removed timer, which is
 * harmless: a removed meter is no longer published).
 */
final class LaneMeters {

  private final Lane lane;
  private final Tags tags;
  private final StatsCache cache;
  private final boolean percentileHistogram;
  private final CopyOnWriteArrayList<Timer[]> timers = new CopyOnWriteArrayList<>();
  private final List<Registered> registered = new ArrayList<>();
  private final java.util.function.Consumer<TaskRecord> recordListener = this::record;
  private boolean listening;

  private record Registered(MeterRegistry registry, List<Meter> meters) {}

  LaneMeters(Lane lane, Tags tags, StatsCache cache, boolean percentileHistogram) {
    this.lane = lane;
    this.tags = tags;
    this.cache = cache;
    this.percentileHistogram = percentileHistogram;
  }

  void register(MeterRegistry registry) {
    List<Meter> meters = new ArrayList<>();
    Timer wait =
        timer(registry, "lanes.task.wait",
            "Time tasks waited in the lane's queue, from accepted to started (for a virtual lane,"
                + " includes waiting for a permit)");
    Timer run = timer(registry, "lanes.task.run", "Time tasks ran, from started to ended");
    Timer cpu =
        timer(registry, "lanes.task.cpu",
            "CPU time of the running thread during a task (sampled tasks only)");
    meters.add(wait);
    meters.add(run);
    meters.add(cpu);

    for (TaskOutcome o : TaskOutcome.values()) {
      meters.add(
          FunctionCounter.builder("lanes.tasks", cache, outcomeCount(o))
              .description("Tasks that ended, by outcome (completed, failed, cancelled, returned,"
                  + " or the reason it was refused or dropped: queue_full, block_timeout,"
                  + " shutdown, discarded_oldest, thread_start_failed, deadlock, shed, gate_refused,"
                  + " expired)")
              .baseUnit(BaseUnits.TASKS)
              .tags(tags)
              .tag("outcome", o.tag())
              .tag("rejected", Boolean.toString(o.isRejection()))
              .register(registry));
    }
    meters.add(gauge(registry, "lanes.queue.size", "Tasks waiting in the lane's queue",
        BaseUnits.TASKS, s -> s.queued()));
    meters.add(
        TimeGauge.builder("lanes.queue.oldest", cache, TimeUnit.NANOSECONDS,
                c -> c.stats().oldestQueuedNanos())
            .description("How long the task at the head of the queue has waited so far, 0 when"
                + " none waits: a waiting task shows here before it ends (the earliest sign of"
                + " saturation)")
            .tags(tags)
            .strongReference(true)
            .register(registry));
    meters.add(gauge(registry, "lanes.running", "Tasks running now", BaseUnits.TASKS,
        s -> s.running()));
    meters.add(gauge(registry, "lanes.workers",
        "The lane's threads that hold a slot now: a platform lane's threads, a virtual lane's"
            + " virtual threads (each holds one of its concurrency permits)", BaseUnits.THREADS,
        s -> s.workers()));
    meters.add(gauge(registry, "lanes.concurrency",
        "How many of the lane's tasks may run at once (its concurrency; changes with"
            + " setConcurrency)", BaseUnits.TASKS, s -> s.concurrency()));
    meters.add(gauge(registry, "lanes.capacity.remaining",
        "Free places in the lane's queue", BaseUnits.TASKS, s -> s.remainingCapacity()));
    meters.add(gauge(registry, "lanes.saturated",
        "1 while the lane is SATURATED or worse (REJECTING, DEADLOCKED), else 0; summed over"
            + " lanes, the number of lanes in trouble",
        "lanes", s -> s.health().compareTo(LaneHealth.SATURATED) >= 0 ? 1 : 0));
    // One series per state, 1 for the current one: a dashboard shows the state by name.
    for (LaneHealth state : LaneHealth.values()) {
      meters.add(gauge(registry, "lanes.health", state,
          "1 for the lane's current health state (tag state: ok, saturated, rejecting,"
              + " deadlocked), 0 for the others",
          "lanes", s -> s.health() == state ? 1 : 0));
    }
    meters.add(
        FunctionCounter.builder("lanes.between.tasks.time", cache,
                c -> c.stats().betweenTasksNanos() / 1e9)
            .description("Time the lane's threads spent between tasks running other code: dependent"
                + " stages that completing a future ran, task listeners, the exception handler"
                + " (no task's run time)")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
    meters.add(
        FunctionCounter.builder("lanes.saturated.time", cache,
                c -> c.stats().saturatedNanos() / 1e9)
            .description("Total time the lane spent SATURATED or worse (server saturation time)")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
    if (lane.stats().pinning().reported()) { // a virtual lane built with reportPinning()
      meters.add(
          FunctionCounter.builder("lanes.pinned", cache, c -> c.stats().pinning().count())
              .description("Times the lane's tasks pinned their carrier thread for at least 20 ms"
                  + " (blocked where a virtual thread cannot unmount: a class initializer, a native"
                  + " frame)")
              .baseUnit("pins")
              .tags(tags)
              .register(registry));
      meters.add(
          FunctionCounter.builder("lanes.pinned.time", cache,
                  c -> c.stats().pinning().totalNanos() / 1e9)
              .description("Total time the lane's tasks held their carrier thread pinned")
              .baseUnit("seconds")
              .tags(tags)
              .register(registry));
    }

    registered.add(new Registered(registry, meters));
    timers.add(new Timer[] {wait, run, cpu});
    if (!listening) {
      lane.onTask(recordListener);
      listening = true;
    }
  }

  private void record(TaskRecord r) {
    if (r.startedNanos() < 0) {
      return; // never ran: counted by outcome, no timing sample (as in lanes' own figures)
    }
    for (Timer[] t : timers) {
      t[0].record(r.queueWaitNanos(), TimeUnit.NANOSECONDS);
      t[1].record(r.runNanos(), TimeUnit.NANOSECONDS);
      if (r.cpuNanos() >= 0) {
        t[2].record(r.cpuNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }

  /** Unsubscribes and removes every meter from every registry. */
  void close() {
    if (listening) {
      lane.removeListener(recordListener);
      listening = false;
    }
    timers.clear();
    for (Registered r : registered) {
      for (Meter m : r.meters) {
        r.registry.remove(m);
      }
    }
    registered.clear();
  }

  private Timer timer(MeterRegistry registry, String name, String description) {
    return Timer.builder(name)
        .description(description)
        .tags(tags)
        .publishPercentileHistogram(percentileHistogram)
        .register(registry);
  }

  private Gauge gauge(MeterRegistry registry, String name, String description, String unit,
      ToDoubleFunction<LaneStats> value) {
    return Gauge.builder(name, cache, c -> value.applyAsDouble(c.stats()))
        .description(description)
        .baseUnit(unit)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  private Gauge gauge(MeterRegistry registry, String name, LaneHealth state, String description,
      String unit, ToDoubleFunction<LaneStats> value) {
    return Gauge.builder(name, cache, c -> value.applyAsDouble(c.stats()))
        .description(description)
        .baseUnit(unit)
        .tags(tags)
        .tag("state", state.name().toLowerCase(java.util.Locale.ROOT))
        .strongReference(true)
        .register(registry);
  }

  private static ToDoubleFunction<StatsCache> outcomeCount(TaskOutcome o) {
    return c -> c.stats().count(o);
  }
}
