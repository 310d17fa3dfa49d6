package dev.lanes.stages;

import dev.lanes.Distribution;
import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.TaskRecord;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One stage's settings and books: its counts and the timings of this pipeline's tasks on its
 * lane.
 *
 * <p><b>Concurrency design.</b> Counts are {@link LongAdder}s, added to by whichever thread moves
 * an item (a submitter, the stage's lane threads, the next stage's lane threads, a thread that
 * cancels a queued task), read one after another by {@link #snapshot}. Timings are recorded
 * without a lock into HdrHistogram {@link Recorder}s — queue wait and run from the lane's task
 * records (on the thread where each task ended), hand-off by the stage's own tasks — and drained
 * into running totals by {@link #snapshot}, which is {@code synchronized} (the totals and the
 * recycled interval histograms are guarded by this object's monitor; a Recorder lets one reader
 * swap its buffers while writers go on). Values are clamped to 0 … {@link #MAX_NANOS}.
 */
final class StageBook {

  /** The longest time kept in a histogram: one hour. Longer values are counted as one hour. */
  static final long MAX_NANOS = 3_600_000_000_000L;

  final String name;
  final int index;
  final Lane lane;
  final String label;
  final Function<Object, Object> work;
  final boolean laneShared;

  final LongAdder offered = new LongAdder();
  final LongAdder completed = new LongAdder();
  final LongAdder failed = new LongAdder();
  final LongAdder rejected = new LongAdder();

  private final Recorder waitRecorder = new Recorder(MAX_NANOS, 2);
  private final Recorder runRecorder = new Recorder(MAX_NANOS, 2);
  private final Recorder handoffRecorder = new Recorder(MAX_NANOS, 2);

  // Guarded by this.
  private final Histogram waitTotal = new Histogram(MAX_NANOS, 2);
  private final Histogram runTotal = new Histogram(MAX_NANOS, 2);
  private final Histogram handoffTotal = new Histogram(MAX_NANOS, 2);
  private Histogram waitRecycle;
  private Histogram runRecycle;
  private Histogram handoffRecycle;

  StageBook(String pipeline, String name, int index, Lane lane, Function<Object, Object> work,
      boolean laneShared) {
    this.name = name;
    this.index = index;
    this.lane = lane;
    this.label = pipeline + "/" + name;
    this.work = work;
    this.laneShared = laneShared;
  }

  /** A task of this stage ended on its lane: its wait and run, if it ran. */
  void record(TaskRecord r) {
    if (r.startedNanos() < 0) {
      return; // refused or dropped: counted by the pipeline, no timing
    }
    waitRecorder.recordValue(clamp(r.queueWaitNanos()));
    runRecorder.recordValue(clamp(r.runNanos()));
  }

  void recordHandoff(long nanos) {
    handoffRecorder.recordValue(clamp(nanos));
  }

  synchronized StageStats snapshot() {
    waitRecycle = drain(waitRecorder, waitRecycle, waitTotal);
    runRecycle = drain(runRecorder, runRecycle, runTotal);
    handoffRecycle = drain(handoffRecorder, handoffRecycle, handoffTotal);
    // `offered` is counted after the lane took the task, which may already have ended it (on
    // another thread, or on this one under caller-runs): never report fewer offered than ended.
    long c = completed.sum();
    long f = failed.sum();
    long r = rejected.sum();
    long o = offered.sum();
    LaneStats ls = lane.stats();
    return new StageStats(name, index, lane.name(), laneShared, Math.max(o, c + f + r), c, f, r,
        distribution(waitTotal), distribution(runTotal), distribution(handoffTotal), ls.queued(),
        ls.queueCapacity(), ls.concurrency(), ls.health());
  }

  private static Histogram drain(Recorder recorder, Histogram recycle, Histogram total) {
    Histogram interval = recorder.getIntervalHistogram(recycle);
    total.add(interval);
    return interval;
  }

  static Distribution distribution(Histogram h) {
    if (h.getTotalCount() == 0) {
      return Distribution.EMPTY;
    }
    long max = h.getMaxValue();
    // A percentile is a bucket's highest equivalent value; no percentile is above the max.
    return new Distribution(h.getTotalCount(), h.getMean(), Math.min(max, h.getValueAtPercentile(50)),
        Math.min(max, h.getValueAtPercentile(90)), Math.min(max, h.getValueAtPercentile(99)), max);
  }

  static long clamp(long nanos) {
    return Math.max(0, Math.min(MAX_NANOS, nanos));
  }
}
