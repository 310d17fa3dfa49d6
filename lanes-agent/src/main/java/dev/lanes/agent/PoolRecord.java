package dev.lanes.agent;

import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * What the agent knows of one pool: its name and kind, its workers' {@link RunSlot}s, the
 * cumulative distributions (since the pool was first seen; HdrHistogram, nanoseconds, 2
 * significant digits) of its tasks' queue wait and run time, of its event loop's IO turns' time
 * and of the queue wait of the requests its tasks served, counts, and its {@link PoolHealth}.
 *
 * <p>Each distribution has its own count and sum over the same population as its percentiles:
 * tasks (an IO turn is no task), IO turns, requests. In sampled mode ({@link #timedOneIn} &gt;
 * 1, agent option {@code sample=N}) the tasks' count and failures stay exact for every task, while
 * the wait and run distributions, sums and CPU time are over the timed tasks ({@code timed} of
 * them), about one in N.
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
  /** 1: every task timed; N: about one task in N (sampled mode, thread pools only). */
  volatile int timedOneIn = 1;
  /**
   * The watchdog's own (its thread only): the untimed head of the queue it saw last, the pool's
   * ended count then, and since when (see {@link Watchdog#oldestQueuedNanos}); the task held
   * weakly, as the pool is.
   */
  WeakReference<Object> seenHead;
  long seenHeadEnded;
  long seenHeadSince;

  // Guarded by this.
  private final Histogram waits = new Histogram(2);
  private final Histogram runs = new Histogram(2);
  private long ended;
  private long timed;
  private long failed;
  private long waitedTasks;
  private long waitSum;
  private long runSum;
  private long retiredCpuTasks;
  private long retiredCpuNanos;
  private final Histogram ioRuns = new Histogram(2);
  private long ioRunSum;
  private final Histogram requestWaits = new Histogram(2);
  private long requests;
  private long requestsWaited;
  private long requestWaitSum;
  private long requestTasks;

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
      ioRuns.recordValue(run); // an event loop's IO turn: a distribution of its own, not a task
      ioRunSum += run;
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
    timed++;
    runs.recordValue(run);
    runSum += run;
  }

  @Override public void untimed(long count, long failedTasks) {
    ended += count;
    failed += failedTasks;
  }

  @Override public void request(long wait, boolean first) {
    requests++;
    if (first) {
      requestTasks++;
    }
    if (wait != RunSlot.UNKNOWN) {
      requestWaits.recordValue(wait);
      requestsWaited++;
      requestWaitSum += wait;
    }
  }

  /** Adds a retired record's figures to this one (a collected pool's, under the same name). */
  synchronized void absorb(PoolRecord other) {
    Snapshot s = other.snapshot(System.nanoTime());
    waits.add(s.waits);
    runs.add(s.runs);
    ended += s.ended;
    timed += s.timed;
    failed += s.failed;
    waitedTasks += s.waitedTasks;
    waitSum += s.waitSum;
    runSum += s.runSum;
    retiredCpuTasks += s.cpuTasks;
    retiredCpuNanos += s.cpuNanos;
    rejected.add(s.rejected);
    ioRuns.add(s.io.runs());
    ioRunSum += s.io.runSum();
    requestWaits.add(s.requests.waits());
    requests += s.requests.count();
    requestsWaited += s.requests.waited();
    requestWaitSum += s.requests.waitSum();
    requestTasks += s.requests.tasks();
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
    return new Snapshot(name, kind, waits.copy(), runs.copy(), ended, timed, timedOneIn, failed,
        waitedTasks, waitSum, runSum, rejected.sum(), cpuTasks, cpuNanos, health.state(), health.saturatedNanos(now),
        new IoTurns(ioRuns.getTotalCount(), ioRuns.copy(), ioRunSum),
        new Requests(requests, requestTasks, requestWaits.copy(), requestsWaited, requestWaitSum));
  }

  /** Tasks ended as of the last drain. */
  synchronized long endedSoFar() {
    return ended;
  }

  /**
   * The sums the health judgement needs, drained first: {waitedTasks, waitSum, timed, runSum,
   * ended} (timed: the tasks in runSum; all that ended unless sampled).
   */
  synchronized long[] sums() {
    drainAll();
    return new long[] {waitedTasks, waitSum, timed, runSum, ended};
  }

  /**
   * One record's figures at one instant, each since the pool was first seen. {@code waits}, {@code
   * runs}, {@code ended}, {@code waitSum} and {@code runSum} are the tasks' (an event loop's IO
   * turns are in {@code io}); {@code runs} and {@code runSum} are over the {@code timed} tasks,
   * {@code waits} and {@code waitSum} over the {@code waitedTasks} (timed, with a known wait);
   * {@code timedOneIn} is 1, or N in sampled mode.
   */
  record Snapshot(String name, PoolKind kind, Histogram waits, Histogram runs, long ended,
      long timed, int timedOneIn, long failed, long waitedTasks, long waitSum, long runSum, long rejected, long cpuTasks,
      long cpuNanos, PoolHealth.State state, long saturatedNanos, IoTurns io, Requests requests) {}

  /** An event loop's IO turns: how many, their times' distribution and sum. */
  record IoTurns(long count, Histogram runs, long runSum) {}

  /**
   * The requests the pool's tasks served (Tomcat's): how many, how many tasks served at least one,
   * and their queue wait ({@code waited} of them known, distribution and sum): the first request
   * of a task waited the task's queue wait, a later one of the same task none (see {@link
   * TomcatHooks}).
   */
  record Requests(long count, long tasks, Histogram waits, long waited, long waitSum) {}
}
