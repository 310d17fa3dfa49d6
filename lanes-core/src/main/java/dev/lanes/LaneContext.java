package dev.lanes;

import java.util.concurrent.ThreadFactory;

/**
 * What a lane's parts share, handed to each of them instead of the lane: its settings and its
 * parts, as final references. The workers, the pool, the lifecycle, health and the books reach
 * one another only through this; the public {@link Lane} — accepting, the overflow policies,
 * figures, listeners, concurrency changes — is {@link LaneExecutor}'s. Of the parts, {@code
 * Worker}, {@code WorkerPool}, {@code Lifecycle} and {@code LaneBooks} never use a member of the
 * lane, and {@code HealthMonitor} only to keep its registry of lanes ({@code LaneContextTest});
 * {@code LaneFuture} (whose lane is its executor and hears of a cancel while queued) and {@code
 * Deadlocks} (cross-lane by nature) do. {@link #lane} is there because a task's envelope carries
 * its lane (as its futures' default executor, and as the identity the deadlock analysis matches
 * waits on).
 *
 * <p><b>Concurrency design.</b> Every field is final and set in the constructor, which runs on
 * the thread building the lane before any worker starts (the threads a platform lane starts are
 * started after it returns), so every part sees every field. The objects behind the fields are
 * mutable and each has its own design comment.
 */
final class LaneContext {
  // ---------------------------------------------------------------- settings
  final String name;
  final LaneKind kind;
  /** A virtual lane: workers come and go with permits (see {@link WorkerPool}). */
  final boolean elastic;
  final Ticker ticker;
  /** -1 off, 0 every task, else the least time between one worker's CPU readings. */
  final long cpuSampleNanos;
  /**
   * A task counts as mostly waiting above this W/C: at least {@link LaneStats#BLOCKING_WC},
   * and twice what waiting for a core alone gives a lane with more threads than cores.
   */
  final double blockingTaskWc;
  final ThreadFactory threadFactory;

  // ---------------------------------------------------------------- parts
  /** The settings a live change may replace: one value in one field (see {@link Settings}). */
  final Settings.Current settings;
  /** Accepted tasks not yet started, as entries (the hand-off). */
  final TaskRing ring;
  /** Timings and outcomes of tasks that ran: single-writer tallies and their reader. */
  final TimingBook timings;
  /** Accepted tasks not yet ended, against the admission limit; callers waiting for room. */
  final Admission admission;
  /** The lane's gate ({@link LaneBuilder#gate}), or null. */
  final LaneGate gate;
  /** The counts of endings no worker's tally keeps, and the ending paths. */
  final LaneBooks books;
  /** The workers as a group, and the lane's concurrency. */
  final WorkerPool pool;
  /** The run state: shutdown, termination. */
  final Lifecycle lifecycle;
  /** Saturation and deadlock detection. */
  final HealthMonitor health;
  /** The lane itself, only as what envelopes carry (see the class comment). */
  final LaneExecutor lane;

  LaneContext(LaneExecutor lane, LaneBuilder b, long cpuSampleNanos, TaskRing ring,
      TimingBook timings, ThreadFactory threadFactory, double blockingTaskWc) {
    this.lane = lane;
    this.name = b.name;
    this.kind = b.kind;
    this.elastic = b.kind == LaneKind.VIRTUAL;
    this.ticker = b.ticker;
    this.cpuSampleNanos = cpuSampleNanos;
    this.blockingTaskWc = blockingTaskWc;
    this.threadFactory = threadFactory;
    this.ring = ring;
    this.timings = timings;
    this.settings = new Settings.Current(new Settings(b.concurrency, b.queueCapacity, b.overflow,
        b.shedTargetNanos, b.shedIntervalNanos, b.health()));
    this.admission = new Admission(timings);
    this.gate = b.gate;
    // The parts keep this context; none uses it before the lane's constructor returns.
    this.books = new LaneBooks(this, b.exceptionHandler);
    this.pool = new WorkerPool(this);
    this.lifecycle = new Lifecycle(this);
    this.health = new HealthMonitor(this, lane);
  }

  /** The run state now ({@link Lifecycle#runState}). */
  int runState() {
    return lifecycle.runState;
  }
}
