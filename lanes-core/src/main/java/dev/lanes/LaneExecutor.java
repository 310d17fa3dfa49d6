package dev.lanes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The one implementation of {@link Lane}, for platform lanes (CPU, BLOCKING) and virtual lanes:
 * admission (accepting, queueing, refusing a task), the lane's workers as a group (starting,
 * permits, resizing, replacing), and its figures. A task's path: {@code submit}/{@code execute}
 * here → {@link TaskRing} (the hand-off) → {@link Worker} (runs it, times it, records it in its
 * own tally of {@link TimingBook}); a submitted task is its {@link LaneFuture}. Shutdown and
 * termination are {@link Lifecycle}'s.
 *
 * <p><b>Concurrency design.</b>
 *
 * <ul>
 *   <li><b>Hand-off.</b> A {@link TaskRing} (a bounded lock-free MPMC ring) holds the accepted
 *       tasks that have not started: a plain {@code execute(Runnable)} as the {@code Runnable}
 *       itself with its stamp beside it in the slot, anything else as its {@link LaneFuture}. The
 *       ring's release/acquire on each slot's sequence gives the happens-before edge submit →
 *       run; a task's future completes on the worker after the task, which gives run → {@code
 *       get()}. Idle workers park in the ring and a submitter wakes one only if one is idle (see
 *       the ring's idle protocol).
 *   <li><b>Admission.</b> {@link Admission} counts accepted tasks not yet ended (queued, running
 *       on a worker, or in a submitter's hand between admission and append) and keeps that count
 *       at most {@code concurrency + queueCapacity}: a task is accepted when the count has room,
 *       whatever the workers are doing at that instant. Admissions and releases are counted
 *       apart (submitters CAS one cell, each worker adds to its own tally), so no counter is
 *       written by both sides per task. The ring's array is sized {@code queueCapacity +
 *       concurrency} as built (rounded up to a power of two); an admitted task that finds no slot
 *       in it (the concurrency was raised, dead entries hold slots, a consumer was descheduled
 *       mid-take) goes to the ring's overflow, so the lane's room is its admission limit for its
 *       current concurrency, never the array's size. Whoever ends an
 *       admitted task gives its slot back ({@link #releaseSlot}); a caller-run task never held
 *       one. Callers blocked by the block-caller policy wait on {@code roomFreed}, signalled only
 *       while one waits.
 *   <li><b>Platform lanes</b> start {@code concurrency} core workers at build time; a core worker
 *       takes entries while there are any and parks in the ring when there are none.
 *       {@link #setConcurrency} starts more, or lets the surplus retire when they next look for
 *       work ({@code coreWorkers} may exceed {@code concurrency} until they do).
 *   <li><b>Virtual lanes</b> acquire before they spawn: {@code permits} counts permits in use
 *       (CAS, never above {@code concurrency}); a submitter that found no idle worker to wake takes
 *       a free permit and starts one virtual thread with it. That thread runs entries back to
 *       back and, when the ring is empty, keeps its permit for {@link Worker#KEEP_ALIVE_NANOS}
 *       parked in
 *       the ring; then (or when the cap was lowered below the permits in use) it gives the permit
 *       back as its last act and re-checks the ring (a submitter that found no permit a moment
 *       earlier relies on that re-check). Waiting tasks hold no thread, and at most {@code
 *       concurrency} threads run tasks.
 *   <li><b>Ownership of a task's ending</b> goes to the one party whose CAS takes the task's
 *       {@link LaneFuture} out of QUEUED (a worker, a canceller, the deadlock breaker, a
 *       compensation thread) or, for a plain entry, to whoever takes it from the ring; that party
 *       counts it, so each task is counted exactly once. A task that left QUEUED while its entry
 *       is still in the ring leaves a dead entry, counted in {@code deadEntries} (which may
 *       transiently be off by the kills in flight) and dropped by whoever takes it.
 *   <li><b>Lifecycle</b> {@code runState} only moves forward: RUNNING → SHUTDOWN → STOP →
 *       TERMINATED. A submitter re-checks it after appending: after {@code shutdown} it makes sure
 *       a worker will drain the ring; after {@code shutdownNow} it takes back what nobody will run
 *       and ends it ({@link TaskOutcome#SHUTDOWN}). TERMINATED is set once, under {@code
 *       mainLock}, when no worker is alive and either STOP, or the ring is empty and every
 *       accepted task has ended ({@code unfinished == 0}).
 *   <li><b>Counts.</b> A worker counts a task's outcome in its own single-writer {@link
 *       TimingBook} tally with its timings, before it completes the task's future (so whoever
 *       sees the future done also sees the task counted — once the tally is drained by the next
 *       read). Submissions are counted by the ring's tail (less second appends), the caller-run
 *       tasks and the refusals; starts by each worker's tally before the task runs; the rare
 *       endings elsewhere (cancelled while queued, dropped, returned, refused) by {@link
 *       LongAdder}s. {@link #stats()} reads them in the order a task moves through them and
 *       derives running and queued, so every snapshot's books balance; the cheap gauges
 *       ({@link #queued()}, {@link #running()}) read the ring and the workers' busy flags.
 *   <li><b>The gate</b> ({@link LaneGate}, optional, final): a worker takes a queued entry only
 *       with a pass ({@link Worker}, "The gate"); without one it parks, the entry stays queued.
 *       {@link #wakeAll} wakes workers parked at the gate as well as idle ones; what the gate
 *       throws is "not now" with a back-off, logged at most once per 10 s ({@link #enterGate},
 *       {@link #exitGate}); a refusal ends the oldest entry through {@link #endQueued} ({@link
 *       #refuseOldest}). No gate, no cost beyond a null check per loop and per run.
 *   <li><b>Listeners</b> live in copy-on-write arrays; with none, no {@link TaskRecord} is made.
 *   <li><b>Timing</b> and a task's run are the worker's ({@link Worker}, class comment).
 * </ul>
 *
 * <p><b>Failure model.</b> What a task throws fails its future (or goes to the exception handler
 * for {@code execute}) and never ends a worker. If lanes' own bookkeeping, a handler or a logger
 * throws (an {@code OutOfMemoryError} under overload, say), the worker running it ends abruptly:
 * the task it was running ends failed (its future completed exceptionally) if it had not ended
 * yet, its slot and permit are given back, and the lane starts a replacement while it runs (a
 * platform lane keeps its thread count; a virtual lane re-dispatches its queue). A thread that a
 * custom thread factory's wrapper ends before it ran lanes' code is found by the health thread and
 * cleaned up the same way. A thread factory that throws or returns null is a start failure: a
 * platform lane fails to build; a virtual lane fails one queued task (completing its future
 * exceptionally) only when no worker is left to run it.
 */
final class LaneExecutor extends AbstractExecutorService implements Lane {

  private static final System.Logger LOG = System.getLogger("dev.lanes");


  /** Most single-writer tallies a lane keeps (see {@link TimingBook}). */
  private static final int MAX_TALLIES = 64;

  private static final long BYTES_PER_SLOT = 8;

  final int queueCapacity;
  private final TaskDecorator decorator;
  private final Thread.UncaughtExceptionHandler exceptionHandler;
  final String name;
  private final LaneKind kind;
  final boolean elastic;
  final Ticker ticker;
  /** -1 off, 0 every task, else the least time between one worker's CPU readings. */
  final long cpuSampleNanos;
  private final OverflowPolicy overflow;
  final ThreadFactory threadFactory;
  /** Shedding ({@link LaneBuilder#shedWhenQueuedLongerThan}): target and interval, 0 when off. */
  final long shedTargetNanos;
  private final long shedIntervalNanos;
  /**
   * Since when queued tasks have waited longer than the shedding target, or {@link #NOT_ABOVE}.
   * Written by submitters that read the head of the queue and by workers that start a task; racy
   * by design (a stale reading shifts one decision by the width of a race, never loses a task).
   */
  volatile long aboveTargetSince = NOT_ABOVE;
  static final long NOT_ABOVE = Long.MIN_VALUE;
  /** Accepted tasks not yet started, as entries (see {@link TaskRing}). */
  final TaskRing ring;
  /**
   * Entries in the ring whose task left it another way (cancelled, claimed, taken by a
   * compensation thread). May transiently be off by one per such task in flight: the party that
   * kills an entry adds one after its CAS, and a worker that drops that entry in between takes
   * one away first.
   */
  final AtomicInteger deadEntries = new AtomicInteger();
  /** Tasks that never entered the ring (refused at submission, or run by their caller): ids. */
  private final AtomicLong outsideRing = new AtomicLong();
  /** Tasks run by their caller (caller-runs policy). */
  private final LongAdder callerRan = new LongAdder();
  /**
   * Tasks refused at submission, by reason: each is counted submitted and ended by this one
   * count, so no snapshot sees one without the other.
   */
  private final EnumMap<TaskOutcome, LongAdder> refused = new EnumMap<>(TaskOutcome.class);
  /** Entries appended a second time (a compensation thread's give-back). */
  final LongAdder reappended = new LongAdder();
  private final long createdNanos;

  /** Guards the task listeners' array and writes of the pool's {@code concurrency}. */
  private final ReentrantLock mainLock = new ReentrantLock();
  /** Shutdown and termination (writes {@code runState}). */
  final Lifecycle lifecycle = new Lifecycle(this);

  /** The lane's workers as a group, and its concurrency: starting, permits, retiring, replacing. */
  final WorkerPool pool;
  /** Accepted tasks not yet ended, queued or running on a worker; see Admission above. */
  /** Accepted tasks not yet ended (queued or running), against the admission limit. */
  final Admission admission;
  private final ReentrantLock roomLock = new ReentrantLock();
  /** Signalled when a slot is given back while a caller waits (block-caller policy). */
  private final Condition roomFreed = roomLock.newCondition();
  /** Callers waiting on {@code roomFreed}; written under roomLock. */
  private volatile int blockedCallers;

  // Outcomes of tasks that ran are counted in the workers' own TimingBook tallies (no shared
  // atomics on the hot path); these count the rare endings elsewhere.
  private final LongAdder cancelledWhileQueued = new LongAdder();
  /** Tasks failed without running to an end on a worker: a worker that died under them. */
  final LongAdder failedElsewhere = new LongAdder();
  /** Time workers spent between tasks running other code (dependent stages, listeners, handlers). */
  final LongAdder betweenTasksNanos = new LongAdder();
  final LongAdder returned = new LongAdder();
  final LongAdder callerRunning = new LongAdder();
  /** Corrections for a future cancelled between a worker's look and its completion. */
  final LongAdder[] outcomeCorrections = {new LongAdder(), new LongAdder(), new LongAdder()};
  final EnumMap<TaskOutcome, LongAdder> rejected = new EnumMap<>(TaskOutcome.class);

  /** The lane's gate ({@link LaneBuilder#gate}), or null: see "The gate" in the class comment. */
  final LaneGate gate;
  /** When a failing gate was last logged (at most one line per 10 s; a racy read is harmless). */
  private volatile long lastGateWarning = System.nanoTime() - GATE_WARNING_NANOS;
  private static final long GATE_WARNING_NANOS = TimeUnit.SECONDS.toNanos(10);

  final TimingBook timings;
  final LongAdder cpuBoundSamples = new LongAdder();
  final LongAdder blockingSamples = new LongAdder();

  /**
   * A task counts as mostly waiting above this W/C: at least {@link SizingAdvisor#BLOCKING_WC},
   * and twice what waiting for a core alone gives a lane with more threads than cores.
   */
  final double blockingTaskWc;
  final HealthMonitor health;

  @SuppressWarnings("unchecked")
  volatile Consumer<? super TaskRecord>[] taskListeners = new Consumer[0];

  LaneExecutor(LaneBuilder b, TaskDecorator decorator) {
    this.name = b.name;
    this.kind = b.kind;
    this.elastic = kind == LaneKind.VIRTUAL;
    this.ticker = b.ticker;
    this.cpuSampleNanos = CpuClock.isSupported() ? b.effectiveCpuSampleNanos() : -1;
    this.overflow = b.overflow;
    this.shedTargetNanos = b.shedTargetNanos;
    this.shedIntervalNanos = b.shedIntervalNanos;
    this.pool = new WorkerPool(this, b.concurrency);
    this.queueCapacity = b.queueCapacity;
    this.decorator = decorator;
    this.exceptionHandler = b.exceptionHandler;
    this.gate = b.gate;
    this.ring = newRing(name, queueCapacity, b.queueCapacity + b.concurrency);
    this.threadFactory = b.threadFactory != null ? b.threadFactory : defaultThreadFactory(b);
    for (TaskOutcome o : TaskOutcome.values()) {
      if (o.isRejection()) {
        rejected.put(o, new LongAdder());
        refused.put(o, new LongAdder());
      }
    }
    this.createdNanos = ticker.read();
    // One tally per worker that may run at once (a thread beyond them records under a lock).
    int tallies = Math.min(MAX_TALLIES, Math.max(b.concurrency, 2 * cores()));
    this.timings = new TimingBook(tallies, b.statsInterval.toNanos(), createdNanos);
    this.admission = new Admission(timings);
    this.health = new HealthMonitor(this, b.health());
    this.blockingTaskWc = Math.max(LaneStats.BLOCKING_WC, 2.0 * b.concurrency / cores());
    if (!elastic) {
      for (int i = 0; i < b.concurrency; i++) {
        if (!pool.startCoreWorker()) {
          shutdownNow();
          throw new IllegalStateException(
              "lane \"" + name + "\": could not start thread " + (i + 1) + " of " + b.concurrency);
        }
      }
    }
    health.register();
  }

  /**
   * The ring preallocates its slots (room for every task the lane may hold, rounded up to a power
   * of two); a capacity the heap cannot hold fails here with the figure instead of a bare {@code
   * OutOfMemoryError}.
   */
  private static final long SMALL_RING_BYTES = 8L << 20;

  private static TaskRing newRing(String name, int queueCapacity, int room) {
    Runtime rt = Runtime.getRuntime();
    long needed = TaskRing.bytesFor(room);
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    String advice = "lane \"" + name + "\": queueCapacity " + queueCapacity
        + " needs about " + (needed >> 20) + " MiB up front (the queue preallocates "
        + room + " slots, queueCapacity + concurrency, rounded up to a power of two)";
    // Small rings just allocate (free memory before a collection says little about them).
    if (needed > SMALL_RING_BYTES && needed > free / 2) {
      throw new IllegalArgumentException(advice + ", more than half of the " + (free >> 20)
          + " MiB this JVM's heap has free; lower queueCapacity or raise -Xmx");
    }
    try {
      return new TaskRing(room);
    } catch (OutOfMemoryError e) {
      throw new IllegalArgumentException(advice + ", and the heap could not hold it; lower"
          + " queueCapacity or raise -Xmx", e);
    }
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static ThreadFactory defaultThreadFactory(LaneBuilder b) {
    if (b.kind == LaneKind.VIRTUAL) {
      return Thread.ofVirtual().name(b.name + "-", 1).factory();
    }
    return Thread.ofPlatform().name(b.name + "-", 1).daemon(b.daemon).factory();
  }

  // ---------------------------------------------------------------- identity

  @Override
  public String name() {
    return name;
  }

  @Override
  public LaneKind kind() {
    return kind;
  }

  @Override
  public int concurrency() {
    return pool.concurrency;
  }

  @Override
  public int queueCapacity() {
    return queueCapacity;
  }

  @Override
  public OverflowPolicy overflow() {
    return overflow;
  }

  long now() {
    return ticker.read();
  }

  // ---------------------------------------------------------------- submission

  @Override
  public void execute(Runnable task) {
    execute("", task);
  }

  @Override
  public void execute(String label, Runnable task) {
    Objects.requireNonNull(task, "task");
    if (task instanceof LaneFuture<?> f && f.lane() == this && f.handedOut && !f.accepted) {
      // made by newTaskFor (invokeAll and friends): run it as a lanes future, counted as one
      accept(label, f, f, null);
      return;
    }
    accept(label, task, null, task);
  }

  /**
   * {@inheritDoc} Every element is checked before any is submitted: a null one throws {@code
   * NullPointerException} and nothing reaches the lane.
   */
  @Override
  public <T> List<java.util.concurrent.Future<T>> invokeAll(
      java.util.Collection<? extends Callable<T>> tasks) throws InterruptedException {
    return super.invokeAll(requireNoNull(tasks));
  }

  /**
   * {@inheritDoc} Every element is checked before any is submitted: a null one throws {@code
   * NullPointerException} and nothing reaches the lane.
   */
  @Override
  public <T> List<java.util.concurrent.Future<T>> invokeAll(
      java.util.Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    return super.invokeAll(requireNoNull(tasks), timeout, unit);
  }

  private <C extends java.util.Collection<?>> C requireNoNull(C tasks) {
    Objects.requireNonNull(tasks, "tasks");
    for (Object t : tasks) {
      if (t == null) {
        throw new NullPointerException(
            "lane \"" + name + "\": a task given to invokeAll/invokeAny is null; nothing was submitted");
      }
    }
    return tasks;
  }

  /** Futures of {@code invokeAll} are lanes' own, so they are counted and cancelled like any. */
  @Override
  protected <T> java.util.concurrent.RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
    return new LaneFuture<>(this, runnable, value);
  }

  @Override
  protected <T> java.util.concurrent.RunnableFuture<T> newTaskFor(Callable<T> callable) {
    return new LaneFuture<>(this, callable);
  }

  /**
   * Runs the tasks as lanes futures (so each is counted like any task) and returns the result of
   * the first that completes normally; cancels the others (interrupting those running).
   */
  @Override
  public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks)
      throws InterruptedException, java.util.concurrent.ExecutionException {
    try {
      return invokeAny(tasks, false, 0);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no timeout was set", e);
    }
  }

  @Override
  public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, java.util.concurrent.ExecutionException,
          java.util.concurrent.TimeoutException {
    return invokeAny(tasks, true, unit.toNanos(timeout));
  }

  private <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks, boolean timed, long nanos)
      throws InterruptedException, java.util.concurrent.ExecutionException,
          java.util.concurrent.TimeoutException {
    if (requireNoNull(tasks).isEmpty()) {
      throw new IllegalArgumentException("lane \"" + name + "\": invokeAny needs at least one task");
    }
    long deadline = System.nanoTime() + nanos;
    java.util.concurrent.LinkedBlockingQueue<CompletableFuture<T>> done =
        new java.util.concurrent.LinkedBlockingQueue<>(); // bounded by tasks.size()
    List<CompletableFuture<T>> futures = new ArrayList<>(tasks.size());
    try {
      for (Callable<T> task : tasks) {
        CompletableFuture<T> f = submit(task);
        futures.add(f);
        f.whenComplete((r, e) -> done.add(f));
      }
      java.util.concurrent.ExecutionException last = null;
      for (int i = 0; i < futures.size(); i++) {
        CompletableFuture<T> f;
        if (timed) {
          f = done.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
          if (f == null) {
            throw new java.util.concurrent.TimeoutException(
                "lane \"" + name + "\": no task of invokeAny completed in time");
          }
        } else {
          f = done.take();
        }
        try {
          return f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          last = e;
        } catch (java.util.concurrent.CancellationException e) {
          last = new java.util.concurrent.ExecutionException(e);
        }
      }
      throw last;
    } finally {
      for (CompletableFuture<T> f : futures) {
        f.cancel(true);
      }
    }
  }

  @Override
  public <T> CompletableFuture<T> submit(Callable<T> task) {
    return submit("", task);
  }

  @Override
  public CompletableFuture<?> submit(Runnable task) {
    return submit("", task);
  }

  @Override
  public <T> CompletableFuture<T> submit(Runnable task, T result) {
    Objects.requireNonNull(task, "task");
    return submitFuture("", new LaneFuture<>(this, task, result));
  }

  @Override
  public <T> CompletableFuture<T> submit(String label, Callable<T> task) {
    Objects.requireNonNull(task, "task");
    return submitFuture(label, new LaneFuture<T>(this, task));
  }

  @Override
  public CompletableFuture<Void> submit(String label, Runnable task) {
    Objects.requireNonNull(task, "task");
    return submitFuture(label, new LaneFuture<Void>(this, task, null));
  }

  private <T> LaneFuture<T> submitFuture(String label, LaneFuture<T> future) {
    accept(label, future, future, null);
    return future;
  }

  /**
   * Accepts a new task. A plain {@code execute(Runnable)} — no label, no decorator, not a future
   * the JDK made — rides in the ring as it is, with its stamp beside it (no object of lanes'
   * own); anything else is wrapped in its envelope (decorated, timestamped). {@code source} is the
   * undecorated task given to {@code execute}, kept to reach a foreign future.
   */
  private void accept(String label, Runnable run, LaneFuture<?> future, Runnable source) {
    Objects.requireNonNull(label, "label");
    if (future == null && label.isEmpty() && decorator == TaskDecorator.NONE
        && !(run instanceof CompletableFuture.AsynchronousCompletionTask)
        && !(run instanceof LaneFuture<?>)) { // a ring entry that is a LaneFuture is its envelope
      long now = ticker.read();
      boolean shed = shedTargetNanos != 0 && shedding(now);
      if (lifecycle.runState == Lifecycle.RUNNING && !shed && tryAdmit()) {
        append(run, now);
        afterAppend(run);
        return;
      }
      acceptSlowly(LaneFuture.internal(this, run, run, "", now), shed);
      return;
    }
    LaneFuture.Timed timed = null;
    Runnable work = run;
    if (decorator != TaskDecorator.NONE) {
      timed = new LaneFuture.Timed(run, ticker);
      work = decorator.decorate(timed); // what it throws reaches the submitter; nothing accepted
      if (work == null) {
        throw new NullPointerException(
            "lane \"" + name + "\": the task decorator returned null; nothing was accepted");
      }
    }
    LaneFuture<?> e;
    if (future != null) {
      future.prepare(work, label, ticker.read(), timed);
      e = future;
    } else {
      e = LaneFuture.internal(this, work, source, label, ticker.read());
      e.timed = timed;
      if (run instanceof CompletableFuture.AsynchronousCompletionTask) {
        e.submitter = WaitTracker.current(); // a worker of a lane that waits on it, perhaps
      }
    }
    boolean shed = shedTargetNanos != 0 && shedding(e.acceptedNanos);
    if (lifecycle.runState == Lifecycle.RUNNING && !shed && tryAdmit()) {
      append(e, e.acceptedNanos);
      afterAppend(e);
      return;
    }
    acceptSlowly(e, shed);
  }

  /**
   * A task the lane had no room for at once, or refuses: shut down, shed ({@code shed}), or else
   * the overflow policy decides.
   */
  private void acceptSlowly(LaneFuture<?> t, boolean shed) {
    if (lifecycle.runState != Lifecycle.RUNNING) {
      reject(t, TaskOutcome.SHUTDOWN);
    }
    if (shed) {
      reject(t, TaskOutcome.SHED);
    }
    if (overflow(t)) {
      afterAppend(t);
    }
  }

  /**
   * Appends an admitted entry (its slot already taken). It always finds a place: the ring's
   * overflow takes what its array cannot (see {@link TaskRing}), and admission bounds both.
   */
  private void append(Object entry, long stamp) {
    ring.append(entry, stamp);
  }

  /**
   * After an entry was appended: wakes an idle worker (or, on a virtual lane, starts one), and
   * handles a shutdown that raced with the submission, so no task is stranded in a ring nobody
   * drains.
   */
  void afterAppend(Object entry) {
    if (lifecycle.runState != Lifecycle.RUNNING) {
      appendedDuringShutdown(entry);
      return;
    }
    wakeOrStart();
  }

  /**
   * After a task went back into the ring (a compensation thread that could not start or died
   * first): as {@link #afterAppend}, but nobody submitted it now, so nobody is told by an
   * exception: a lane that stopped meanwhile ends it through its future like any it took back.
   */
  void afterGiveBack() {
    if (lifecycle.runState != Lifecycle.RUNNING) {
      appendedDuringShutdown(null);
      return;
    }
    wakeOrStart();
  }

  private void wakeOrStart() {
    if (elastic) {
      if (!ring.wakeIdle()) {
        pool.dispatch();
      }
    } else {
      ring.wakeIdle();
    }
  }

  private void appendedDuringShutdown(Object entry) {
    if (lifecycle.runState == Lifecycle.SHUTDOWN) {
      // The lane still runs what it accepted: make sure some worker is there to drain the ring.
      ring.wakeIdle();
      tryTerminate();
      if (elastic) {
        pool.dispatch();
      }
      return;
    }
    // STOP: shutdownNow drained the ring before this entry (or beside it); nobody runs it now.
    TaskRing.Taken tk = new TaskRing.Taken();
    boolean mine = false;
    Object x;
    while ((x = ring.pollClaimed(tk)) != null) {
      LaneFuture<?> e = ownedEnvelope(x, tk);
      if (e == null) {
        continue; // a dead entry
      }
      mine |= x == entry; // the caller hears of its own task below, by an exception
      endQueued(e, TaskOutcome.SHUTDOWN, true, x != entry);
    }
    tryTerminate();
    if (mine) {
      throw new LaneRejectedException(
          name, TaskOutcome.SHUTDOWN, queueCapacity, queuedCount(), running());
    }
  }

  /**
   * The envelope of an entry just taken from the ring, owned by the caller: the entry's own
   * envelope if its task was still queued (null, and a dead entry dropped, if not), or a new one
   * for a plain entry (slow paths only; workers use their scratch envelope).
   */
  LaneFuture<?> ownedEnvelope(Object x, TaskRing.Taken tk) {
    if (x instanceof LaneFuture<?> e) {
      if (!e.tryTake()) {
        deadEntries.decrementAndGet();
        return null;
      }
      return e;
    }
    Runnable run = (Runnable) x;
    LaneFuture<?> e = LaneFuture.internal(this, run, run, "", tk.stamp);
    e.id = tk.position + 1;
    return e;
  }

  /** Takes the oldest live entry for a worker: its envelope (owned) or a plain task; or null. */
  Object takeLive(TaskRing.Taken tk) {
    for (; ; ) {
      Object x = ring.poll(tk);
      if (x == null) {
        return null;
      }
      if (x instanceof LaneFuture<?> e) {
        if (!e.tryTake()) {
          deadEntries.decrementAndGet();
          continue;
        }
      }
      return x;
    }
  }

  /** The envelopes queued now (a racy scan, for the deadlock analysis). */
  List<LaneFuture<?>> queuedEnvelopes() {
    List<LaneFuture<?>> out = new ArrayList<>();
    ring.forEachEntry(x -> {
      if (x instanceof LaneFuture<?> e && e.taskState() == LaneFuture.QUEUED) {
        out.add(e);
      }
    });
    return out;
  }

  /**
   * Every submission: entries the ring took (less second appends of the same task), tasks run by
   * their caller, and tasks refused at submission. No counter of its own on the hot path.
   */
  long submittedCount() {
    return enteredCount() + sum(refused);
  }

  /** Tasks that entered the ring (less second appends) or ran on their caller. */
  private long enteredCount() {
    // A give-back counts its second append after making it, and this reads that count before
    // the ring's: a give-back in between can add one for a moment, never take one away (the
    // books' order in stats() needs a count that is never behind).
    long again = reappended.sum();
    return ring.appended() - again + callerRan.sum();
  }

  private static long sum(EnumMap<TaskOutcome, LongAdder> counts) {
    long n = 0;
    for (LongAdder a : counts.values()) {
      n += a.sum();
    }
    return n;
  }

  /**
   * Tasks queued now: the ring's entries at one instant during the call ({@link TaskRing#size}
   * never overstates), less the dead ones counted just after; off by the tasks cancelled or
   * dropped between the two reads.
   */
  int queuedCount() {
    return Math.max(0, ring.size() - Math.max(0, deadEntries.get()));
  }

  /** How many unfinished tasks the lane accepts now: its concurrency plus its queue capacity. */
  private int admissionLimit() {
    return pool.concurrency + queueCapacity;
  }

  /**
   * Whether a task submitted at {@code now} is shed: the head of the queue has waited longer than
   * the target, and waits have stayed above it for the interval. The first reading above the
   * target dates the stretch from when that head crossed it ({@code stamp + target}); a reading
   * at or below it, or an empty queue, ends the stretch.
   */
  private boolean shedding(long now) {
    TaskRing.Taken head = new TaskRing.Taken();
    if (ring.peek(head) == null || now - head.stamp <= shedTargetNanos) {
      if (aboveTargetSince != NOT_ABOVE) {
        aboveTargetSince = NOT_ABOVE;
      }
      return false;
    }
    long since = aboveTargetSince;
    if (since == NOT_ABOVE) {
      since = head.stamp + shedTargetNanos;
      aboveTargetSince = since;
    }
    return now - since >= shedIntervalNanos;
  }

  /** Takes a slot if the lane has room for one more unfinished task. */
  private boolean tryAdmit() {
    return admission.tryAdmit(admissionLimit());
  }

  /** Accepted tasks not yet ended (see {@link Admission#unfinished()}). */
  long unfinishedCount() {
    return admission.unfinished();
  }

  /** Adds one to {@code count} if that keeps it at most {@code limit}; true if it did. */
  static boolean incrementBelow(AtomicInteger count, int limit) {
    for (; ; ) {
      int n = count.get();
      if (n >= limit) {
        return false;
      }
      if (count.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Appends an admitted envelope. */
  private void enqueue(LaneFuture<?> t) {
    append(t, t.acceptedNanos);
  }

  /** Gives back the slot of a task that ended or left the queue for good. */
  void releaseSlot() {
    releaseSlot(null);
  }

  /**
   * Gives back a slot, counted in {@code own} (the caller's claimed tally, single writer) or, with
   * null, in the shared adder.
   */
  void releaseSlot(TimingBook.Tally own) {
    admission.release(own);
    if (lifecycle.runState >= Lifecycle.SHUTDOWN) {
      tryTerminate(); // perhaps the last accepted task of a shutting-down lane ended
    }
    if (blockedCallers != 0) {
      roomLock.lock();
      try {
        roomFreed.signal();
      } finally {
        roomLock.unlock();
      }
    }
  }

  /** Handles a full lane; returns true if {@code t} ended up queued, false if it ran here. */
  private boolean overflow(LaneFuture<?> t) {
    switch (overflow.kind()) {
      case REJECT -> {
        reject(t, TaskOutcome.QUEUE_FULL);
      }
      case CALLER_RUNS -> {
        t.id = -outsideRing.incrementAndGet(); // numbered apart: -1, -2, ...
        callerRan.increment(); // submitted: before it can start
        Worker.runTask(this, null, t, -1);
        return false;
      }
      case BLOCK_CALLER -> {
        if (!awaitRoom(t, overflow.timeout().toNanos())) {
          reject(t, lifecycle.runState != Lifecycle.RUNNING ? TaskOutcome.SHUTDOWN : TaskOutcome.BLOCK_TIMEOUT);
        }
      }
      case DISCARD_OLDEST -> {
        TaskRing.Taken tk = new TaskRing.Taken();
        for (int idle = 0; ; ) {
          if (lifecycle.runState != Lifecycle.RUNNING) {
            reject(t, TaskOutcome.SHUTDOWN);
          }
          if (tryAdmit()) {
            enqueue(t);
            break;
          }
          Object x = ring.poll(tk);
          LaneFuture<?> victim = x == null ? null : ownedEnvelope(x, tk);
          if (victim != null) {
            // the victim's slot passes to t: no other submitter can take it meanwhile
            dropped(victim, TaskOutcome.DISCARDED_OLDEST);
            enqueue(t);
            break;
          } else if (x == null) {
            if (running() >= admissionLimit()) {
              // Every slot is a running task (the concurrency was lowered below them): there is
              // nothing queued to discard, so this task is refused like any on a full lane.
              reject(t, TaskOutcome.QUEUE_FULL);
            }
            backOff(idle++); // a slot is in a submitter's or a worker's hand: brief, but not spun on
          }
        }
      }
    }
    return true;
  }

  /**
   * Waits a little before a retry, longer each time: spins, then yields, then parks up to 1 ms, so
   * a submitter waiting for another thread's few instructions costs no core.
   */
  static void backOff(int attempt) {
    if (attempt < 16) {
      Thread.onSpinWait();
    } else if (attempt < 32) {
      Thread.yield();
    } else {
      java.util.concurrent.locks.LockSupport.parkNanos(
          TimeUnit.MICROSECONDS.toNanos(Math.min(1_000, 1L << Math.min(10, attempt - 32))));
    }
  }

  /** Block-caller: waits up to {@code nanos} for room; true once {@code t} is queued. */
  private boolean awaitRoom(LaneFuture<?> t, long nanos) {
    roomLock.lock();
    try {
      blockedCallers++;
      try {
        for (; ; ) {
          if (lifecycle.runState != Lifecycle.RUNNING) {
            return false;
          }
          if (tryAdmit()) {
            t.acceptedNanos = ticker.read(); // its wait in the queue starts now, not when it came
            enqueue(t);
            return true;
          }
          if (nanos <= 0) {
            return false;
          }
          nanos = roomFreed.awaitNanos(nanos);
        }
      } finally {
        blockedCallers--;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      roomLock.unlock();
    }
  }

  private void reject(LaneFuture<?> t, TaskOutcome reason) {
    t.refuse(); // never accepted: a later cancel of its future touches no books
    t.id = -outsideRing.incrementAndGet(); // numbered apart: -1, -2, ...
    refused.get(reason).increment(); // submitted and ended in one count (see stats())
    publish(t, "", -1, ticker.read(), -1, reason);
    throw new LaneRejectedException(name, reason, queueCapacity, queuedCount(), running());
  }

  /** Discard-oldest's victim: its slot passes to the task that displaced it. */
  private void dropped(LaneFuture<?> victim, TaskOutcome reason) {
    endQueued(victim, reason, false, true);
  }

  /**
   * The one way an accepted task that will never run ends — cancelled while queued, returned by
   * {@code shutdownNow}, dropped by discard-oldest, taken back after a shutdown-now raced its
   * submission, failed to break a deadlock, or left without a thread: the caller owns it (its CAS
   * took it out of QUEUED, or took its plain entry from the ring). In this order: its slot is given
   * back (unless {@code giveSlotBack} is false: it passes to another task), it is counted once
   * under {@code outcome}, its future is ended (unless {@code endFuture} is false: its submitter
   * hears of it by an exception), and its record is published. Counting before the future ends
   * means whoever sees the future done sees the task counted.
   */
  void endQueued(LaneFuture<?> t, TaskOutcome outcome, boolean giveSlotBack, boolean endFuture) {
    if (giveSlotBack) {
      releaseSlot();
    }
    switch (outcome) {
      case RETURNED -> returned.increment();
      case CANCELLED -> cancelledWhileQueued.increment();
      default -> rejected.get(outcome).increment();
    }
    if (endFuture) {
      switch (outcome) {
        case CANCELLED -> { } // its future was cancelled: that is how it got here
        case RETURNED -> {
          if (t.handedOut) {
            t.cancel(false); // no longer queued, so not counted again as cancelled
          } else {
            ForeignFutures.cancel(t.source);
          }
        }
        default -> {
          if (t.handedOut && outcome == TaskOutcome.DISCARDED_OLDEST) {
            t.cancel(false);
          } else {
            LaneRejectedException why = new LaneRejectedException(
                name, outcome, queueCapacity, queuedCount(), running());
            if (t.handedOut) {
              t.fail(why);
            } else {
              endForeign(t, why);
            }
          }
        }
      }
    }
    publish(t, "", -1, ticker.read(), -1, outcome);
  }

  /**
   * Ends a task given to {@code execute} that will never run: fails the future that {@code
   * CompletableFuture.runAsync/supplyAsync} made for it where lanes can reach it, and otherwise
   * tells the exception handler, so the end is never silent.
   */
  void endForeign(LaneFuture<?> t, Throwable why) {
    if (!ForeignFutures.completeExceptionally(t.source, why)) {
      reportFailure(Thread.currentThread(), why);
    }
  }

  /** Called by an envelope whose future was cancelled while queued (its entry is dead now). */
  void cancelledWhileQueued(LaneFuture<?> t) {
    deadEntries.incrementAndGet();
    endQueued(t, TaskOutcome.CANCELLED, true, true);
    if (lifecycle.runState >= Lifecycle.SHUTDOWN) {
      tryTerminate();
    }
  }

  @Override
  public void setConcurrency(int newConcurrency) {
    int max = LaneBuilder.maxConcurrency(kind);
    if (newConcurrency < 1 || newConcurrency > max) {
      throw new IllegalArgumentException("lane \"" + name + "\": concurrency must be between 1 and "
          + max + ", was " + newConcurrency);
    }
    mainLock.lock();
    try {
      pool.concurrency = newConcurrency;
    } finally {
      mainLock.unlock();
    }
    if (elastic) {
      pool.dispatch();
      return;
    }
    // Platform lane: start threads up to the new figure; extra threads retire when free.
    while (lifecycle.runState == Lifecycle.RUNNING) {
      int c = pool.coreWorkers.get();
      if (c >= pool.concurrency) {
        break;
      }
      if (!pool.startCoreWorker()) {
        break;
      }
    }
    wakeAll(); // an idle worker re-checks whether it is one too many
  }

  /**
   * Wakes every idle worker and every worker waiting at the gate (shutdown, a change of
   * concurrency): the ring's epoch moves first, so a worker about to park sees it.
   */
  void wakeAll() {
    ring.wakeAll();
    if (gate != null) {
      pool.wakeGateWaiters();
    }
  }

  // ---------------------------------------------------------------- the gate

  /**
   * Asks the gate for a pass on behalf of worker {@code w}: a pass, null (not now), or {@link
   * LaneGate#REFUSE}. What the gate throws counts as "not now" and sets the worker's back-off
   * ({@link Worker#gateBackOffNanos}); it is logged, at most one line per 10 s.
   */
  LaneGate.Pass enterGate(Worker w) {
    try {
      LaneGate.Pass p = gate.tryEnter(w.gateReady);
      w.gateFailures = 0;
      w.gateBackOffNanos = 0;
      return p;
    } catch (Throwable e) {
      int n = Math.min(10, w.gateFailures++);
      w.gateBackOffNanos = TimeUnit.MILLISECONDS.toNanos(1L << n); // 1 ms, doubling to ~1 s
      warnGate("tryEnter threw; the worker asks again in " + (1L << n) + " ms", e);
      return null;
    }
  }

  /** Gives a pass back, once: {@code outcome} is how its task ended, null if none started. */
  void exitGate(LaneGate.Pass p, TaskOutcome outcome) {
    try {
      p.exit(outcome);
    } catch (Throwable e) {
      warnGate("a pass's exit threw (it counts as exited)", e);
    }
  }

  private void warnGate(String what, Throwable e) {
    long now = System.nanoTime();
    if (now - lastGateWarning < GATE_WARNING_NANOS) {
      return;
    }
    lastGateWarning = now;
    try {
      LOG.log(System.Logger.Level.WARNING, "lane \"" + name + "\": gate " + gate + ": " + what
          + " (logged at most once per 10 s)", e);
    } catch (Throwable ignored) {
      // a failing logger must not break the worker's books
    }
  }

  /**
   * The gate refused the oldest queued task for good ({@link LaneGate#REFUSE}): takes it and ends
   * it as {@link TaskOutcome#GATE_REFUSED} through {@link #endQueued}.
   */
  void refuseOldest(TaskRing.Taken tk) {
    LaneFuture<?> t = null;
    for (Object x; t == null && (x = ring.pollClaimed(tk)) != null; ) {
      t = ownedEnvelope(x, tk);
    }
    if (t != null) {
      endQueued(t, TaskOutcome.GATE_REFUSED, true, true);
    }
  }
  void reportFailure(Thread thread, Throwable failure) {
    Thread.UncaughtExceptionHandler h = exceptionHandler;
    if (h == null) {
      h = thread.getUncaughtExceptionHandler();
    }
    try {
      h.uncaughtException(thread, failure);
    } catch (Throwable handlerFailure) {
      handlerFailure.addSuppressed(failure);
      LOG.log(System.Logger.Level.ERROR, "lane \"" + name + "\": exception handler failed", handlerFailure);
    }
  }

  /** Permits in use now (virtual lanes); for tests. */
  int permitsInUse() {
    return pool.permits.get();
  }

  // ---------------------------------------------------------------- records

  void publish(LaneFuture<?> t, String thread, long start, long end, long cpu, TaskOutcome outcome) {
    Consumer<? super TaskRecord>[] ls = taskListeners;
    if (ls.length > 0) {
      publish(ls, t, thread, start, end, cpu, outcome);
    }
  }

  void publish(Consumer<? super TaskRecord>[] ls, LaneFuture<?> t, String thread, long start,
      long end, long cpu, TaskOutcome outcome) {
    boolean ran = start >= 0;
    TaskRecord r =
        new TaskRecord(
            t.id,
            name,
            t.label,
            thread,
            t.acceptedNanos,
            ran ? start : -1,
            end,
            (ran ? start : end) - t.acceptedNanos,
            ran ? end - start : 0,
            cpu,
            outcome);
    for (Consumer<? super TaskRecord> l : ls) {
      try {
        l.accept(r);
      } catch (Throwable e) {
        LOG.log(System.Logger.Level.WARNING, "lane \"" + name + "\": task listener failed", e);
      }
    }
  }

  @Override
  public void onTask(Consumer<? super TaskRecord> listener) {
    Objects.requireNonNull(listener, "listener");
    mainLock.lock();
    try {
      Consumer<? super TaskRecord>[] old = taskListeners;
      Consumer<? super TaskRecord>[] grown = java.util.Arrays.copyOf(old, old.length + 1);
      grown[old.length] = listener;
      taskListeners = grown;
    } finally {
      mainLock.unlock();
    }
  }

  @Override
  public void onHealth(Consumer<? super HealthEvent> listener) {
    health.subscribe(listener);
  }

  @Override
  @SuppressWarnings("unchecked")
  public boolean removeListener(Object listener) {
    boolean removed = health.unsubscribe(listener);
    mainLock.lock();
    try {
      List<Consumer<? super TaskRecord>> keep = new ArrayList<>(List.of(taskListeners));
      if (keep.remove(listener)) {
        taskListeners = keep.toArray(new Consumer[0]);
        removed = true;
      }
    } finally {
      mainLock.unlock();
    }
    return removed;
  }

  @Override
  public LaneHealth health() {
    return health.state();
  }

  // ---------------------------------------------------------------- stats

  @Override
  public int queued() {
    return queuedCount();
  }

  /** Tasks running now: workers inside a task, plus callers running one (caller-runs). */
  @Override
  public int running() {
    int n = 0;
    for (Worker w : pool.workers) {
      if (w.isRunningTask()) {
        n++;
      }
    }
    return n + (int) Math.max(0, callerRunning.sum());
  }

  int liveWorkerCount() {
    return pool.liveWorkers.get();
  }

  /** Tasks that started, ever (on a worker, or on a caller by caller-runs). */
  long startedCount() {
    return timings.started();
  }

  long rejectedCount() {
    return sum(refused) + sum(rejected);
  }

  /**
   * How long the task at the head of the queue has waited at {@code now}, or 0 with an empty
   * queue. Approximate under concurrent submission: the head may be taken while it is read.
   */
  long oldestQueuedNanos(long now) {
    TaskRing.Taken tk = new TaskRing.Taken();
    Object head = ring.peek(tk);
    return head == null ? 0 : Math.max(0, now - tk.stamp);
  }

  long[] timingSums() {
    return timings.sums();
  }

  /**
   * A snapshot whose books balance: {@code submitted = Σ ended + queued + running}, with {@code
   * started ≤ submitted}, {@code queued ≥ 0} and {@code running ≥ 0}, however busy the lane.
   *
   * <p>A task refused at submission is submitted and ended in one count ({@code refused}), read
   * once. Every other count only grows, and a task is counted entered (the ring, or its caller)
   * before it can start or end, and started before it ends. So those counts are read in the order
   * a task moves through them — entries ({@code e0}), the ends of queued tasks that never ran,
   * the drain (ends of tasks that ran, each tally's starts just after it), the other starts,
   * entries again ({@code e3}) — and {@code running} and {@code queued} are derived from them
   * instead of read beside them: {@code running = started − ended that ran}, {@code queued =
   * entered − started − ended from the queue}. Each read later counts at least what an earlier
   * one implies, so neither goes below 0. {@code entered} is a value its count held during the
   * call, in {@code [e0, e3]}: the one that keeps {@code queued} within the room left beside the
   * running tasks (tasks submitted while the snapshot was read are left to the next one).
   */
  @Override
  public LaneStats stats() {
    long now = ticker.read();
    long e0 = enteredCount();
    EnumMap<TaskOutcome, Long> ended = new EnumMap<>(TaskOutcome.class);
    long refusedNow = 0;
    long endedFromQueue = 0;
    for (var e : rejected.entrySet()) {
      long atSubmission = refused.get(e.getKey()).sum();
      long fromQueue = e.getValue().sum();
      ended.put(e.getKey(), atSubmission + fromQueue);
      refusedNow += atSubmission;
      endedFromQueue += fromQueue;
    }
    long cancelledQueued = cancelledWhileQueued.sum();
    long returnedNow = returned.sum();
    endedFromQueue += cancelledQueued + returnedNow;
    // A correction moves one task between outcomes: CANCELLED gains after the other loses, so it
    // is read first and the sum is never ahead.
    long corrCancelled = outcomeCorrections[2].sum();
    long corrCompleted = outcomeCorrections[0].sum();
    long corrFailed = outcomeCorrections[1].sum();
    long abandoned = failedElsewhere.sum();
    long[] oc = new long[4];
    Timings[] t = timings.read(now, oc);
    long started = oc[3];
    long e3 = enteredCount();
    long completed = oc[0] + corrCompleted;
    long failed = oc[1] + corrFailed + abandoned;
    long cancelledRan = oc[2] + corrCancelled;
    ended.put(TaskOutcome.COMPLETED, completed);
    ended.put(TaskOutcome.FAILED, failed);
    ended.put(TaskOutcome.CANCELLED, cancelledRan + cancelledQueued);
    ended.put(TaskOutcome.RETURNED, returnedNow);
    long endedRan = completed + failed + cancelledRan;
    int running = (int) Math.max(0, started - endedRan);
    long room = Math.max(0, (long) admissionLimit() - running);
    long entered = Math.max(e0, Math.min(e3, started + endedFromQueue + room));
    int queued = (int) Math.max(0, entered - started - endedFromQueue);
    long submitted = entered + refusedNow;
    int rs = lifecycle.runState;
    return new LaneStats(
        name,
        kind,
        rs >= Lifecycle.SHUTDOWN,
        rs == Lifecycle.TERMINATED,
        health.state(),
        now - createdNanos,
        submitted,
        started,
        ended,
        queued,
        oldestQueuedNanos(now),
        running,
        elastic ? pool.permits.get() : pool.liveWorkers.get(),
        pool.concurrency,
        queueCapacity,
        t[0],
        t[1],
        health.saturatedNanos(now),
        cpuBoundSamples.sum(),
        blockingSamples.sum(),
        betweenTasksNanos.sum());
  }

  private String stateName() {
    return switch (lifecycle.runState) {
      case Lifecycle.RUNNING -> "running";
      case Lifecycle.SHUTDOWN, Lifecycle.STOP -> "shutting-down";
      default -> "terminated";
    };
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public void shutdown() {
    lifecycle.shutdown();
  }

  /** See {@link Lifecycle#shutdownNow()} for what comes back. */
  @Override
  public List<Runnable> shutdownNow() {
    return lifecycle.shutdownNow();
  }

  void wakeBlockedCallers() {
    roomLock.lock();
    try {
      roomFreed.signalAll();
    } finally {
      roomLock.unlock();
    }
  }

  /** Terminates the lane if it is shut down and done; see {@link Lifecycle#tryTerminate()}. */
  void tryTerminate() {
    lifecycle.tryTerminate();
  }

  @Override
  public boolean isShutdown() {
    return lifecycle.runState >= Lifecycle.SHUTDOWN;
  }

  @Override
  public boolean isTerminated() {
    return lifecycle.runState == Lifecycle.TERMINATED;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return lifecycle.awaitTermination(unit.toNanos(timeout));
  }

  @Override
  public void close() {
    lifecycle.close();
  }

  // ---------------------------------------------------------------- health hooks

  /** Re-evaluates health now (the health thread does this every 100 ms; tests may call it). */
  public void checkHealth() {
    Deadlocks.check(HealthMonitor.registeredLanes());
    health.tick(ticker.read());
  }

  boolean isShutdownNowOrTerminated() {
    return lifecycle.runState >= Lifecycle.STOP;
  }

  /**
   * Deadlock FAIL, first half: takes the tasks of a proven cycle that are still queued here out of
   * the queue (they keep their slots), so that no worker freed by a failure — in this lane or
   * another lane of the cycle — can run one of them in between. Runs no user code.
   */
  List<LaneFuture<?>> claimQueued(List<LaneFuture<?>> awaited) {
    List<LaneFuture<?>> claimed = new ArrayList<>(awaited.size());
    for (LaneFuture<?> e : awaited) {
      if (e.tryKill()) { // else started or handled meanwhile
        deadEntries.incrementAndGet(); // its ring entry
        claimed.add(e);
      }
    }
    return claimed;
  }

  /**
   * Deadlock FAIL, second half: fails the claimed tasks (outcome DEADLOCK); completing their
   * futures runs user code, and releases the workers that waited on them.
   */
  void failClaimed(List<LaneFuture<?>> claimed) {
    for (LaneFuture<?> e : claimed) {
      endQueued(e, TaskOutcome.DEADLOCK, true, true);
    }
    if (lifecycle.runState >= Lifecycle.SHUTDOWN) {
      tryTerminate();
    }
  }

  @Override
  public String toString() {
    return "Lane[" + name + ", " + kind.tag() + ", " + stateName() + ", concurrency " + pool.concurrency
        + ", queued " + queuedCount() + "/" + queueCapacity + ", running " + running()
        + ", submitted " + submittedCount() + ", rejected " + rejectedCount() + "]";
  }
}
