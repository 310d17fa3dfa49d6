package dev.lanes;

import java.util.concurrent.ThreadFactory;

/**
 * What a lane's parts share: its fixed settings, the settings a live change may replace, the run
 * state, and the parts every other part stands on (the ring, the timings, the gate). The parts
 * with verbs of their own (admission, the books, the workers, the pool, the lifecycle, health)
 * are given to each part that uses them, in its constructor, and never through here; what a part
 * must tell the lane above it goes through {@link #upcalls}, so no part names the lane or a part
 * above it.
 *
 * <p><b>Concurrency design.</b> Every field is final and set in the constructor, which runs on
 * the thread building the lane before any worker starts (the threads a platform lane starts are
 * started after the lane's constructor set every part), so every part sees every field. The
 * objects behind the fields are mutable and each has its own design comment.
 */
final class LaneContext {

  /**
   * What the parts tell or ask the lane above them; the lane implements it over its parts.
   * Each call may come from any thread and must not block.
   */
  interface Upcalls {
    /** Something that may be the lane's last act ended: terminate it if it is shut down and done. */
    void tryTerminate();

    /** A task was appended: a resting lane wakes its health watch. */
    void noteWork();

    /** A worker is about to block with no timeout on {@code awaited}: check for a deadlock now. */
    void workerBlocks(LaneFuture<?> awaited);

    /** Workers inside a task now (the gauge; a racy read). */
    int workersRunning();
  }

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
  /** The settings a live change may replace: one value in one field (see {@link Settings}). */
  final Settings.Current settings;
  /** RUNNING → SHUTDOWN → STOP → TERMINATED, moved only by {@link Lifecycle}. */
  final RunState run = new RunState();
  /** Accepted tasks not yet started, as entries (the hand-off). */
  final TaskRing ring;
  /** Timings and outcomes of tasks that ran: single-writer tallies and their reader. */
  final TimingBook timings;
  /** The lane's gate, or null. */
  final LaneGate gate;
  /** The lane as its tasks' futures know it: their default executor, told of a cancel. */
  final LaneFuture.Home home;
  final Upcalls upcalls;

  LaneContext(String name, LaneKind kind, Ticker ticker, ThreadFactory threadFactory,
      LaneGate gate, Settings settings, long cpuSampleNanos, double blockingTaskWc, TaskRing ring,
      TimingBook timings, LaneFuture.Home home, Upcalls upcalls) {
    this.name = name;
    this.kind = kind;
    this.elastic = kind == LaneKind.VIRTUAL;
    this.ticker = ticker;
    this.cpuSampleNanos = cpuSampleNanos;
    this.blockingTaskWc = blockingTaskWc;
    this.threadFactory = threadFactory;
    this.settings = new Settings.Current(settings);
    this.ring = ring;
    this.timings = timings;
    this.gate = gate;
    this.home = home;
    this.upcalls = upcalls;
  }

  /** The run state now ({@link RunState#get}). */
  int runState() {
    return run.get();
  }
}
