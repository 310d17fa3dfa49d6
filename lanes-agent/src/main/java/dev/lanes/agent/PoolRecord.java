package dev.lanes.agent;

import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * What the agent knows of one pool: its name and kind, its workers' {@link RunSlot}s, the
 * cumulative distributions of queue wait and run time (HdrHistogram, nanoseconds, 2 significant
 * digits), counts, and its {@link PoolHealth}.
 *
 * <p><b>Concurrency design.</b> The histograms and the sums are written only while draining a
 * slot, under this record's monitor (the watchdog drains every slot each tick; a worker drains its
 * own slot when its ring is full); readers copy them under the same monitor. {@link #rejected} is
 * a LongAdder written by any thread. Slots join {@link #slots} (copy-on-write) when a thread first
 * runs a task of this pool and leave it when the watchdog finds their thread dead and drained.
 * The pool itself is held weakly: the agent never keeps an application's pool alive.
 */
final class PoolRecord implements RunSlot.SampleSink {
  final PoolKind kind;
  final WeakReference<Object> pool;
  final PoolView view;
  /** Where the pool was made ({@code Class.method:line}), or null when unknown. */
  final String site;
  private volatile String name;
  /** True once the name came from the pool's own threads or framework (it no longer changes). */
  volatile boolean nameSettled;
  final CopyOnWriteArrayList<RunSlot> slots = new CopyOnWriteArrayList<>();
  final LongAdder rejected = new LongAdder();
  final PoolHealth health;

  // Guarded by this.
  private final Histogram waits = new Histogram(2);
  private final Histogram runs = new Histogram(2);
  private long ended;
  private long failed;
  private long waitedTasks;
  private long waitSum;
  private long runSum;
  private long retiredCpuTasks;
  private long retiredCpuNanos;
  private long ioTurns;

  PoolRecord(PoolKind kind, Object pool, String name, String site, long now) {
    this.kind = kind;
    this.pool = new WeakReference<>(pool);
    this.view = pool == null ? PoolView.NONE : PoolView.of(kind, pool);
    this.name = name;
    this.site = site;
    this.health = new PoolHealth(now, PoolHealth.minWaitMillis(kind));
  }

  String name() {
    return name;
  }

  void rename(String newName, boolean settled) {
    this.name = newName;
    this.nameSettled = settled;
  }

  /** Drains one slot's finished tasks into the distributions; any thread. */
  synchronized void drain(RunSlot slot) {
    slot.drainTo(this);
  }

  /** Drains every slot and forgets the slots of threads that ended; the watchdog, each tick. */
  synchronized void drainAll() {
    for (RunSlot s : slots) {
      s.drainTo(this);
      if (!s.owner.isAlive() && s.current() == null) {
        retiredCpuTasks += s.cpuTasks;
        retiredCpuNanos += s.cpuNanos;
        slots.remove(s);
      }
    }
  }

  @Override public void sample(long wait, long run, boolean failedTask) {
    if (wait == RunSlot.NOT_QUEUED) {
      runs.recordValue(run); // an event loop's IO turn: in the run distribution, not a task
      ioTurns++;
      return;
    }
    ended++;
    if (failedTask) {
      failed++;
    }
    if (wait != RunSlot.UNKNOWN) {
      waits.recordValue(wait);
      waitedTasks++;
      waitSum += wait;
    }
    runs.recordValue(run);
    runSum += run;
  }

  /** Adds a retired record's figures to this one (a collected pool's, under the same name). */
  synchronized void absorb(PoolRecord other) {
    Snapshot s = other.snapshot(System.nanoTime());
    waits.add(s.waits);
    runs.add(s.runs);
    ended += s.ended;
    failed += s.failed;
    waitedTasks += s.waitedTasks;
    waitSum += s.waitSum;
    runSum += s.runSum;
    retiredCpuTasks += s.cpuTasks;
    retiredCpuNanos += s.cpuNanos;
    rejected.add(s.rejected);
    ioTurns += s.ioTurns;
  }

  /** A copy of the figures (after draining every slot). */
  synchronized Snapshot snapshot(long now) {
    drainAll();
    long cpuTasks = retiredCpuTasks;
    long cpuNanos = retiredCpuNanos;
    for (RunSlot s : slots) {
      cpuTasks += s.cpuTasks;
      cpuNanos += s.cpuNanos;
    }
    return new Snapshot(name, kind, waits.copy(), runs.copy(), ended, failed, waitedTasks, waitSum,
        runSum, rejected.sum(), cpuTasks, cpuNanos, health.state(), health.saturatedNanos(now),
        ioTurns);
  }

  /** The sums the health judgement needs, drained first: {waitedTasks, waitSum, ended, runSum}. */
  synchronized long[] sums() {
    drainAll();
    return new long[] {waitedTasks, waitSum, ended, runSum};
  }

  /**
   * One record's figures at one instant. {@code runs} also holds an event loop's IO turns ({@code
   * ioTurns} of them), which are not tasks: {@code ended} counts tasks only.
   */
  record Snapshot(String name, PoolKind kind, Histogram waits, Histogram runs, long ended,
      long failed, long waitedTasks, long waitSum, long runSum, long rejected, long cpuTasks,
      long cpuNanos, PoolHealth.State state, long saturatedNanos, long ioTurns) {}
}
