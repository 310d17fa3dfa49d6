package dev.lanes.opentelemetry;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.api.metrics.ObservableMeasurement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The instruments of one {@link LanesTelemetry}, made once and shared by its lanes: each lane adds
 * a batch callback over the asynchronous ones ({@link #observe}), which reads one {@code
 * Lane.stats()} per collection, and a task listener that feeds the histograms.
 *
 * <p>Which figures go under which name is decided here, by {@link MetricNames}; the README's table
 * lists them.
 */
final class Instruments {

  private static final double NANOS_PER_SECOND = 1e9;

  /**
   * Bucket bounds for the time histograms, in seconds: from 100 µs (a queue wait is often shorter
   * than a millisecond) to 10 s, as the HTTP server duration convention ends.
   */
  static final List<Double> TIME_BUCKETS = List.of(
      0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0,
      2.5, 5.0, 7.5, 10.0);

  /** One figure read from a lane's snapshot. */
  private interface Figure {
    void observe(LaneStats stats, LaneAttributes attributes);
  }

  private final Meter meter;
  private final DoubleHistogram wait;
  private final DoubleHistogram run;
  private final DoubleHistogram cpu;
  private final List<ObservableMeasurement> measurements = new ArrayList<>();
  private final List<Figure> figures = new ArrayList<>();

  Instruments(Meter meter, MetricNames names) {
    this.meter = meter;
    wait = histogram("lanes.task.wait", "Time tasks waited in the lane's queue, from accepted to"
        + " started (for a virtual lane, includes waiting for a permit)");
    run = histogram("lanes.task.run", "Time tasks ran, from started to ended");
    cpu = histogram("lanes.task.cpu",
        "CPU time of the running thread during a task (sampled tasks only)");

    ObservableLongMeasurement tasks = counter("lanes.tasks", "{task}", "Tasks that ended, by"
        + " outcome (completed, failed, cancelled, returned, or the reason it was refused or"
        + " dropped)");
    figures.add((s, a) -> {
      for (TaskOutcome o : TaskOutcome.values()) {
        tasks.record(s.count(o), a.byOutcome().get(o));
      }
    });
    ObservableDoubleMeasurement oldest = meter.gaugeBuilder("lanes.queue.oldest").setUnit("s")
        .setDescription("How long the task at the head of the queue has waited so far, 0 when"
            + " none waits")
        .buildObserver();
    measurements.add(oldest);
    figures.add((s, a) -> oldest.record(s.oldestQueuedNanos() / NANOS_PER_SECOND, a.lane()));
    ObservableLongMeasurement saturated = upDown("lanes.saturated", "{lane}", "1 while the lane"
        + " is SATURATED or worse (REJECTING, DEADLOCKED), else 0");
    figures.add((s, a) -> saturated.record(
        s.health().compareTo(LaneHealth.SATURATED) >= 0 ? 1 : 0, a.lane()));
    ObservableLongMeasurement health = upDown("lanes.health", "{lane}",
        "1 for the lane's current health state (attribute state), 0 for the others");
    figures.add((s, a) -> {
      for (LaneHealth h : LaneHealth.values()) {
        health.record(s.health() == h ? 1 : 0, a.byHealth().get(h));
      }
    });
    ObservableDoubleMeasurement saturatedTime = secondsCounter("lanes.saturated.time",
        "Total time the lane spent SATURATED or worse");
    figures.add((s, a) -> saturatedTime.record(s.saturatedNanos() / NANOS_PER_SECOND, a.lane()));
    ObservableDoubleMeasurement betweenTasks = secondsCounter("lanes.between.tasks.time",
        "Time the lane's threads spent between tasks running other code (dependent stages,"
            + " listeners, the exception handler)");
    figures.add((s, a) -> betweenTasks.record(s.betweenTasksNanos() / NANOS_PER_SECOND,
        a.lane()));

    switch (names) {
      case LANES -> ownNames();
      case JVM_EXECUTOR -> conventionNames();
    }
  }

  /** The figures the convention also has, under lanes' own names. */
  private void ownNames() {
    ObservableLongMeasurement queued = upDown("lanes.queue.size", "{task}",
        "Tasks waiting in the lane's queue");
    figures.add((s, a) -> queued.record(s.queued(), a.lane()));
    ObservableLongMeasurement running = upDown("lanes.running", "{task}", "Tasks running now");
    figures.add((s, a) -> running.record(s.running(), a.lane()));
    ObservableLongMeasurement workers = upDown("lanes.workers", "{thread}",
        "The lane's threads that hold a slot now");
    figures.add((s, a) -> workers.record(s.workers(), a.lane()));
    ObservableLongMeasurement concurrency = upDown("lanes.concurrency", "{task}",
        "How many of the lane's tasks may run at once");
    figures.add((s, a) -> concurrency.record(s.concurrency(), a.lane()));
    ObservableLongMeasurement remaining = upDown("lanes.capacity.remaining", "{task}",
        "Free places in the lane's queue");
    figures.add((s, a) -> remaining.record(s.remainingCapacity(), a.lane()));
  }

  /**
   * The same figures under the names proposed in open-telemetry/semantic-conventions#3970
   * (model/jvm/metrics-experimental.yaml). {@code jvm.executor.thread.core} is not published: a
   * lane has no core size apart from its concurrency.
   */
  private void conventionNames() {
    ObservableLongMeasurement threads = upDown("jvm.executor.thread.count", "{thread}",
        "The number of executor threads that are currently in the state described by the"
            + " jvm.executor.thread.state attribute");
    figures.add((s, a) -> {
      // A task run by its caller (caller-runs) is on no thread of the lane: not counted here.
      int active = Math.min(s.running(), s.workers());
      threads.record(active, a.executorActive());
      threads.record(s.workers() - active, a.executorIdle());
    });
    ObservableLongMeasurement max = upDown("jvm.executor.thread.max", "{thread}",
        "The maximum number of threads allowed for the executor");
    figures.add((s, a) -> max.record(s.concurrency(), a.executor()));
    ObservableLongMeasurement queued = upDown("jvm.executor.queue.size", "{task}",
        "The number of tasks currently queued for execution");
    figures.add((s, a) -> queued.record(s.queued(), a.executor()));
    // A lane's queue is always bounded, so its capacity is always published.
    ObservableLongMeasurement capacity = upDown("jvm.executor.queue.capacity", "{task}",
        "The maximum number of tasks the executor queue can hold");
    figures.add((s, a) -> capacity.record(s.queueCapacity(), a.executor()));
    ObservableLongMeasurement completed = counter("jvm.executor.task.completed", "{task}",
        "The number of tasks completed by the executor (returned or threw)");
    figures.add((s, a) -> completed.record(s.completed() + s.failed(), a.executor()));
    ObservableLongMeasurement rejected = counter("jvm.executor.task.rejected", "{task}",
        "The number of tasks rejected by the executor (refused or dropped, whatever the reason)");
    figures.add((s, a) -> rejected.record(s.rejected(), a.executor()));
  }

  /** Registers {@code lane}'s callback and task listener; closing the result removes both. */
  LaneInstruments observe(Lane lane) {
    LaneAttributes attributes = LaneAttributes.of(lane);
    Runnable collect = () -> {
      if (lane.isTerminated()) {
        return; // closed on its own: nothing more to report
      }
      LaneStats stats = lane.stats();
      for (Figure f : figures) {
        f.observe(stats, attributes);
      }
    };
    ObservableMeasurement first = measurements.get(0);
    ObservableMeasurement[] rest =
        measurements.subList(1, measurements.size()).toArray(ObservableMeasurement[]::new);
    BatchCallback callback = meter.batchCallback(collect, first, rest);
    Consumer<TaskRecord> listener = r -> record(r, attributes);
    lane.onTask(listener);
    return new LaneInstruments(lane, callback, listener);
  }

  private void record(TaskRecord r, LaneAttributes a) {
    if (r.startedNanos() < 0) {
      return; // never ran: counted by outcome, no timing sample (as in lanes' own figures)
    }
    wait.record(r.queueWaitNanos() / NANOS_PER_SECOND, a.lane());
    run.record(r.runNanos() / NANOS_PER_SECOND, a.lane());
    if (r.cpuNanos() >= 0) {
      cpu.record(r.cpuNanos() / NANOS_PER_SECOND, a.lane());
    }
  }

  private DoubleHistogram histogram(String name, String description) {
    return meter.histogramBuilder(name).setUnit("s").setDescription(description)
        .setExplicitBucketBoundariesAdvice(TIME_BUCKETS).build();
  }

  private ObservableLongMeasurement counter(String name, String unit, String description) {
    ObservableLongMeasurement m =
        meter.counterBuilder(name).setUnit(unit).setDescription(description).buildObserver();
    measurements.add(m);
    return m;
  }

  private ObservableDoubleMeasurement secondsCounter(String name, String description) {
    ObservableDoubleMeasurement m = meter.counterBuilder(name).ofDoubles().setUnit("s")
        .setDescription(description).buildObserver();
    measurements.add(m);
    return m;
  }

  private ObservableLongMeasurement upDown(String name, String unit, String description) {
    ObservableLongMeasurement m =
        meter.upDownCounterBuilder(name).setUnit(unit).setDescription(description).buildObserver();
    measurements.add(m);
    return m;
  }
}
