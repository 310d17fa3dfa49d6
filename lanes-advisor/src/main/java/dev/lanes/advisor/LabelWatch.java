package dev.lanes.advisor;

import dev.lanes.Lane;
import dev.lanes.TaskRecord;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Sums run and CPU time per task label of one lane, from its {@link TaskRecord}s, so that {@link
 * SizingAdvisor#advise(dev.lanes.LaneStats, int, LabelWatch)} can tell a lane whose labels split
 * into computing and waiting work. Only tasks that ran and carry a label are counted.
 *
 * <pre>{@code
 * try (LabelWatch labels = LabelWatch.on(lane)) {
 *   ... // run the workload
 *   SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), cores, labels);
 * }
 * }</pre>
 *
 * <p>At most {@link #MAX_LABELS} labels are kept apart; the tasks of any further label are added
 * up under {@link #OTHER_LABEL}, so the watch's memory stays bounded whatever the labels are.
 *
 * <p><b>Concurrency design.</b> The lane calls {@link #accept} on the thread where each task
 * ended, so several threads add at once: the per-label sums are {@link LongAdder}s in a {@link
 * ConcurrentHashMap}. A {@link #figures()} snapshot reads them one after another, so under load
 * one label's five sums can be off by the tasks that ended between the reads. The label count may
 * briefly overshoot {@link #MAX_LABELS} in the counter (never in the map), because a thread that
 * loses the race to add the last label backs off to {@link #OTHER_LABEL}.
 */
public final class LabelWatch implements Consumer<TaskRecord>, AutoCloseable {

  /** Most labels whose figures are kept apart. */
  public static final int MAX_LABELS = 1_000;

  /** The entry that adds up the tasks of labels beyond {@link #MAX_LABELS}. */
  public static final String OTHER_LABEL = "(other labels)";

  private final Lane lane;
  private final ConcurrentHashMap<String, Sums> labels = new ConcurrentHashMap<>();
  private final AtomicInteger labelCount = new AtomicInteger();

  private LabelWatch(Lane lane) {
    this.lane = lane;
  }

  /** Starts watching {@code lane}'s tasks (from now on); {@link #close()} stops it. */
  public static LabelWatch on(Lane lane) {
    Objects.requireNonNull(lane, "lane");
    LabelWatch w = new LabelWatch(lane);
    lane.onTask(w);
    return w;
  }

  /** The lane watched. */
  public Lane lane() {
    return lane;
  }

  /** Adds one ended task; called by the lane. */
  @Override
  public void accept(TaskRecord r) {
    if (r.label().isEmpty() || r.startedNanos() < 0) {
      return;
    }
    sums(r.label()).add(r.runNanos(), r.cpuNanos());
  }

  private Sums sums(String label) {
    Sums s = labels.get(label);
    if (s != null) {
      return s;
    }
    s = labels.computeIfAbsent(label,
        k -> labelCount.get() < MAX_LABELS && labelCount.incrementAndGet() <= MAX_LABELS
            ? new Sums()
            : null);
    return s != null ? s : labels.computeIfAbsent(OTHER_LABEL, k -> new Sums());
  }

  /** A snapshot of the figures per label (labels seen so far). */
  public Map<String, LabelFigures> figures() {
    Map<String, LabelFigures> out = new HashMap<>();
    labels.forEach((k, v) -> out.put(k, v.figures()));
    return Map.copyOf(out);
  }

  /** Stops watching the lane; the figures summed so far stay readable. */
  @Override
  public void close() {
    lane.removeListener(this);
  }

  /** Per-label sums; LongAdders because several threads end tasks of one label. */
  private static final class Sums {
    final LongAdder tasks = new LongAdder();
    final LongAdder run = new LongAdder();
    final LongAdder samples = new LongAdder();
    final LongAdder sampledRun = new LongAdder();
    final LongAdder cpu = new LongAdder();

    void add(long runNanos, long cpuNanos) {
      tasks.increment();
      run.add(runNanos);
      if (cpuNanos >= 0) {
        samples.increment();
        sampledRun.add(runNanos);
        cpu.add(cpuNanos);
      }
    }

    LabelFigures figures() {
      return new LabelFigures(tasks.sum(), run.sum(), samples.sum(), sampledRun.sum(), cpu.sum());
    }
  }
}
