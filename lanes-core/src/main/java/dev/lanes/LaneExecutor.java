package dev.lanes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The one implementation of {@link Lane}, for platform lanes (CPU, BLOCKING) and virtual lanes:
 * accepting a task (admission, the overflow policies, shedding, refusals), changing the
 * concurrency, listeners, and the figures ({@link #stats()}). A task's path: {@code
 * submit}/{@code execute} here → {@link TaskRing} (the hand-off) → {@link Worker} (runs it, times
 * it, records it in its own tally of {@link TimingBook}); a submitted task is its {@link
 * LaneFuture}. The parts never get this class: each gets a {@link LaneContext} and the parts
 * below it, and tells the lane what it must through {@link LaneContext.Upcalls}. The workers as a
 * group and the concurrency are {@link WorkerPool}'s, shutdown and termination {@link
 * Lifecycle}'s, the counts of endings and the path that ends a task that never ran {@link
 * LaneBooks}'.
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
 *       admitted task gives its slot back ({@link LaneBooks#releaseSlot}); a caller-run task
 *       never held one. Callers blocked by the block-caller policy wait in {@link
 *       Admission#awaitRoom}, told only while one waits.
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
 *       is still in the ring leaves a dead entry, counted in the books' dead entries (which
 *       may transiently be off by the kills in flight) and dropped by whoever takes it.
 *   <li><b>Lifecycle</b> {@link RunState} only moves forward: RUNNING → SHUTDOWN → STOP →
 *       TERMINATED. A submitter re-checks it after appending: after {@code shutdown} it makes sure
 *       a worker will drain the ring; after {@code shutdownNow} it takes back what nobody will run
 *       and ends it ({@link TaskOutcome#SHUTDOWN}; {@link WorkerPool#afterAppend}). TERMINATED is
 *       set once, under the lifecycle's lock, when no worker is alive, no caller runs a task (caller-runs), and either STOP, or the ring is empty and every
 *       accepted task has ended ({@code unfinished == 0}).
 *   <li><b>Counts.</b> A worker counts a task's outcome in its own single-writer {@link
 *       TimingBook} tally with its timings, before it completes the task's future (so whoever
 *       sees the future done also sees the task counted — once the tally is drained by the next
 *       read). Submissions are counted by the ring's tail (less second appends), the caller-run
 *       tasks and the refusals; starts by each worker's tally before the task runs; the rare
 *       endings elsewhere (cancelled while queued, dropped, returned, refused) by {@link
 *       LaneBooks}' adders. {@link #stats()} reads them in the order a task moves through them and
 *       derives running and queued, so every snapshot's books balance; the cheap gauges
 *       ({@link #queued()}, {@link #running()}) read the ring and the workers' busy flags.
 *   <li><b>The gate</b> ({@link LaneGate}, optional, final): a worker takes a queued entry only
 *       with a pass ({@link Worker}, "The gate"); without one it parks, the entry stays queued.
 *       {@link WorkerPool#wakeAll} wakes workers parked at the gate as well as idle ones; what the
 *       gate throws is "not now" with a back-off, logged at most once per 10 s ({@link
 *       Worker#enterGate}, {@link WorkerPool#exitGate}); a refusal ends the oldest entry
 *       through {@link LaneBooks#endQueued} ({@link LaneBooks#refuseOldest}). No gate, no cost beyond a null check per loop and per run.
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
final class LaneExecutor extends AbstractExecutorService implements Lane, LaneFuture.Home {

  private static final System.Logger LOG = System.getLogger("dev.lanes");

  /** Most single-writer tallies a lane keeps (see {@link TimingBook}). */
  private static final int MAX_TALLIES = 64;

  private static final long BYTES_PER_SLOT = 8;

  private final TaskDecorator decorator;
  final String name;
  private final LaneKind kind;
  final boolean elastic;
  final Ticker ticker;
  /** Tasks that never entered the ring (refused at submission, or run by their caller): ids. */
  private final AtomicLong outsideRing = new AtomicLong();
  private final long createdNanos;
  /** Guards the task listeners' array and writes of the pool's {@code concurrency}. */
  private final ReentrantLock mainLock = new ReentrantLock();

  /** What the lane's parts share (below, the parts this class uses itself). */
  final LaneContext ctx;
  /** Accepted tasks not yet started, as entries (see {@link TaskRing}). */
  final TaskRing ring;
  /** Accepted tasks not yet ended (queued or running), against the admission limit. */
  final Admission admission;
  final TimingBook timings;
  /** The counts of endings no worker's tally keeps, the gauges, the ending paths. */
  final LaneBooks books;
  /** The lane's workers as a group, and its concurrency: starting, permits, retiring, replacing. */
  final WorkerPool pool;
  /** Shutdown and termination. */
  final Lifecycle lifecycle;
  /** The run state (moved by {@link #lifecycle}). */
  final RunState runState;
  final HealthMonitor health;
  /** The lane's gate ({@link LaneBuilder#gate}), or null: see "The gate" in the class comment. */
  final LaneGate gate;

  /** This lane's pins ({@link LaneBuilder#reportPinning()}); null if it does not report them. */
  private final PinWatch.Book pinBook;

  /** The lane's last act: the health thread lets it go, and so does the pin watch. */
  private void onTerminated() {
    health.unregister();
    if (pinBook != null) {
      PinWatch.unwatch(name, pinBook);
    }
  }

  LaneExecutor(LaneSpec spec, TaskDecorator decorator) {
    this.name = spec.name();
    this.kind = spec.kind();
    this.elastic = kind == LaneKind.VIRTUAL;
    this.ticker = spec.ticker();
    this.decorator = decorator;
    this.gate = spec.gate();
    this.createdNanos = ticker.read();
    int concurrency = spec.settings().concurrency;
    int queueCapacity = spec.settings().queueCapacity;
    // One tally per worker that may run at once (a thread beyond them records under a lock).
    int tallies = Math.min(MAX_TALLIES, Math.max(concurrency, 2 * cores()));
    this.ctx = new LaneContext(name, kind, ticker, spec.threadFactory(), gate, spec.settings(),
        CpuClock.isSupported() ? spec.cpuSampleNanos() : -1,
        Math.max(LaneStats.BLOCKING_WC, 2.0 * concurrency / cores()),
        newRing(name, queueCapacity, queueCapacity + concurrency, !elastic,
            ringShards(concurrency, elastic, gate != null)),
        new TimingBook(tallies, spec.statsIntervalNanos(), createdNanos),
        this, new Upcalls(this));
    this.runState = ctx.run;
    this.ring = ctx.ring;
    this.timings = ctx.timings;
    // The parts, each given the ones below it; none runs before this constructor returns.
    this.admission = new Admission(timings);
    this.books = new LaneBooks(ctx, admission, spec.exceptionHandler());
    this.pool = new WorkerPool(ctx, books, (p, k) -> new Worker(ctx, books, admission, p, k));
    this.health = new HealthMonitor(ctx, books, pool);
    this.pinBook = spec.reportPinning() ? PinWatch.watch(name) : null;
    this.lifecycle = new Lifecycle(ctx, books, admission, pool, this::onTerminated);
    if (!elastic) {
      for (int i = 0; i < concurrency; i++) {
        if (!pool.startCoreWorker()) {
          shutdownNow();
          throw new IllegalStateException(
              "lane \"" + name + "\": could not start thread " + (i + 1) + " of " + concurrency);
        }
      }
    }
    health.register();
  }

  /**
   * What the parts tell the lane ({@link LaneContext.Upcalls}), over its parts. Set up before the
   * parts exist and called only after the lane's constructor set them.
   */
  private static final class Upcalls implements LaneContext.Upcalls {
    private final LaneExecutor lane;

    Upcalls(LaneExecutor lane) {
      this.lane = lane;
    }

    @Override
    public void tryTerminate() {
      lane.lifecycle.tryTerminate();
    }

    @Override
    public void noteWork() {
      lane.health.noteWork();
    }

    @Override
    public void workerBlocks(LaneFuture<?> awaited) {
      HealthMonitor.workerBlocks(awaited);
    }

    @Override
    public int workersRunning() {
      return lane.pool.workersRunning();
    }
  }

  /**
   * The ring's array starts small and grows up to room for every task the lane may hold (rounded
   * up to a power of two; see {@link TaskRing}, "Growth"); a bound the heap could not hold fails
   * here with the figure instead of a bare {@code OutOfMemoryError} later.
   */
  private static final long SMALL_RING_BYTES = 8L << 20;

  /**
   * The most shards a lane's ring has ({@code -Dlanes.maxRingShards}, a power of two from 1 to
   * {@value TaskRing#MAX_SHARDS}; 1 turns sharding off, to compare).
   */
  static final int MAX_RING_SHARDS = Integer.highestOneBit(Math.max(1,
      Math.min(TaskRing.MAX_SHARDS, Integer.getInteger("lanes.maxRingShards", TaskRing.MAX_SHARDS))));

  /**
   * How many shards a lane's ring has (see "Shards" in {@link TaskRing}): a platform lane without
   * a gate gets one per worker it is built with, at most one per core and at most {@link
   * #MAX_RING_SHARDS} (rounded down to a power of two); a lane of concurrency 1 keeps one ring in
   * the order tasks arrive, a virtual lane's workers come and go with the work, and a gate passes
   * the oldest task first: these get one shard.
   */
  static int ringShards(int concurrency, boolean elastic, boolean gated) {
    if (elastic || gated) {
      return 1;
    }
    int n = Math.min(Math.min(concurrency, cores()), MAX_RING_SHARDS);
    return Integer.highestOneBit(Math.max(1, n));
  }

  private static TaskRing newRing(
      String name, int queueCapacity, int room, boolean wakeOldestFirst, int shards) {
    Runtime rt = Runtime.getRuntime();
    long needed = TaskRing.bytesFor(room);
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    String advice = "lane \"" + name + "\": queueCapacity " + queueCapacity
        + " needs up to about " + (needed >> 20) + " MiB (the queue's array grows to "
        + room + " slots, queueCapacity + concurrency, rounded up to a power of two)";
    // Small rings just allocate (free memory before a collection says little about them).
    if (needed > SMALL_RING_BYTES && needed > free / 2) {
      throw new IllegalArgumentException(advice + ", more than half of the " + (free >> 20)
          + " MiB this JVM's heap has free; lower queueCapacity or raise -Xmx");
    }
    try {
      return new TaskRing(TaskRing.INITIAL_CAPACITY, room, wakeOldestFirst, shards, true);
    } catch (OutOfMemoryError e) {
      throw new IllegalArgumentException(advice + ", and the heap could not hold it; lower"
          + " queueCapacity or raise -Xmx", e);
    }
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
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
    return ctx.settings.get().concurrency;
  }

  @Override
  public int queueCapacity() {
    return ctx.settings.get().queueCapacity;
  }

  @Override
  public OverflowPolicy overflow() {
    return ctx.settings.get().overflow;
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
   * NullPointerException} and nothing reaches the lane. If the wait is interrupted (or a task is
   * refused), the unfinished tasks are cancelled newest first: the queued ones before a running
   * one is interrupted, whose worker would otherwise take the next queued task before its turn to
   * be cancelled came ({@code ExecutorServiceConformanceTest}).
   */
  @Override
  public <T> List<java.util.concurrent.Future<T>> invokeAll(
      java.util.Collection<? extends Callable<T>> tasks) throws InterruptedException {
    requireNoNull(tasks);
    List<java.util.concurrent.Future<T>> futures = new ArrayList<>(tasks.size());
    try {
      for (Callable<T> t : tasks) {
        java.util.concurrent.RunnableFuture<T> f = newTaskFor(t);
        futures.add(f);
        execute(f);
      }
      for (java.util.concurrent.Future<T> f : futures) {
        if (!f.isDone()) {
          try {
            f.get();
          } catch (java.util.concurrent.CancellationException
              | java.util.concurrent.ExecutionException ignored) {
            // its future says so; invokeAll returns it as it is
          }
        }
      }
      return futures;
    } catch (Throwable t) {
      for (int i = futures.size() - 1; i >= 0; i--) {
        futures.get(i).cancel(true);
      }
      throw t;
    }
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

  @Override
  public <T> CompletableFuture<T> submit(String label, Duration startWithin, Callable<T> task) {
    Objects.requireNonNull(task, "task");
    return submitWithDeadline(label, startWithin, new LaneFuture<T>(this, task));
  }

  @Override
  public CompletableFuture<Void> submit(String label, Duration startWithin, Runnable task) {
    Objects.requireNonNull(task, "task");
    return submitWithDeadline(label, startWithin, new LaneFuture<Void>(this, task, null));
  }

  /**
   * Submits a future whose task must start within {@code startWithin} (see {@link
   * Lane#submit(String, Duration, Callable)}); {@link #accept} refuses it as EXPIRED if that is
   * not positive, and sets the timer.
   */
  private <T> LaneFuture<T> submitWithDeadline(String label, Duration startWithin,
      LaneFuture<T> future) {
    Objects.requireNonNull(label, "label");
    long within = TaskDeadline.clamp(Objects.requireNonNull(startWithin, "startWithin"));
    future.mustStartBy(ticker.read() + within, within);
    accept(label, future, future, null);
    return future;
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
    long scopeLeft = TaskDeadline.nanosLeft(); // Long.MAX_VALUE: no deadline scope open here
    if (future == null && label.isEmpty() && decorator == TaskDecorator.NONE
        && scopeLeft == Long.MAX_VALUE
        && !(run instanceof CompletableFuture.AsynchronousCompletionTask)
        && !(run instanceof LaneFuture<?>)) { // a ring entry that is a LaneFuture is its envelope
      long now = ticker.read();
      Settings rules = ctx.settings.get();
      boolean shed = rules.shedTargetNanos != 0 && shedding(now, rules);
      if (runState.get() == RunState.RUNNING && !shed && admission.tryAdmit(rules.room())) {
        append(run, now);
        afterAppend(run);
        return;
      }
      if (runState.get() == RunState.RUNNING && !shed
          && rules.overflow.kind() == OverflowPolicy.Kind.BLOCK_CALLER
          && waitForRoom(rules.overflow.timeout().toNanos())) {
        // it waited for room and got it: it rides in the ring as it is, like one that found room
        // at once (no envelope to allocate; BENCHMARKS.md: 2.4 -> 0.44 bytes a task in
        // scaling-tasks 10 M, whose producer keeps the lane full)
        append(run, ticker.read()); // its wait in the queue starts now, not when it came
        afterAppend(run);
        return;
      }
      acceptSlowly(LaneFuture.internal(this, run, run, "", now), shed, rules, true);
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
      e = LaneFuture.internal(this, work, source, label, ticker.read(), timed,
          // a JDK async task: the worker of a lane that waits on it, perhaps
          run instanceof CompletableFuture.AsynchronousCompletionTask ? LaneFuture.WaitTracker.current() : null);
    }
    if (scopeLeft != Long.MAX_VALUE
        && (e.deadline == null || scopeLeft < e.deadline.withinNanos)) {
      e.mustStartBy(e.acceptedNanos + scopeLeft, scopeLeft);
    }
    if (e.deadline != null && e.deadline.withinNanos <= 0) {
      reject(e, TaskOutcome.EXPIRED); // its deadline passed already
    }
    Settings rules = ctx.settings.get();
    boolean shed = rules.shedTargetNanos != 0 && shedding(e.acceptedNanos, rules);
    if (runState.get() == RunState.RUNNING && !shed && admission.tryAdmit(rules.room())) {
      append(e, e.acceptedNanos);
      afterAppend(e);
    } else {
      acceptSlowly(e, shed, rules);
    }
    if (e.deadline != null && e.taskState() == LaneFuture.QUEUED) { // not run by its caller
      armDeadline(e);
    }
  }

  /**
   * Sets the timer that ends {@code e}, queued, at its deadline: after what is left of it (a
   * caller that blocked for room used some).
   */
  private void armDeadline(LaneFuture<?> e) {
    long left = Math.max(0, e.deadline.dueNanos - ticker.read());
    e.armTimer(LaneStage.schedule(() -> books.expireQueued(e), left));
  }

  /**
   * A task the lane had no room for at once, or refuses: shut down, shed ({@code shed}), or else
   * the overflow policy decides.
   */
  private void acceptSlowly(LaneFuture<?> t, boolean shed, Settings rules) {
    acceptSlowly(t, shed, rules, false);
  }

  /**
   * As {@link #acceptSlowly(LaneFuture, boolean, Settings)}; {@code waitedForRoom}: a plain
   * task whose caller already waited for room if the policy is block-caller, in vain (the time is
   * up, the lane stopped accepting, or the caller was interrupted), so it is refused without
   * waiting again.
   */
  private void acceptSlowly(LaneFuture<?> t, boolean shed, Settings rules,
      boolean waitedForRoom) {
    if (runState.get() != RunState.RUNNING) {
      reject(t, TaskOutcome.SHUTDOWN);
    }
    if (shed) {
      reject(t, TaskOutcome.SHED);
    }
    if (waitedForRoom && rules.overflow.kind() == OverflowPolicy.Kind.BLOCK_CALLER) {
      reject(t, TaskOutcome.BLOCK_TIMEOUT);
    }
    if (overflow(t, rules.overflow)) {
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
   * drains ({@link WorkerPool#afterAppend}); a stopped lane took the caller's own task back, and
   * the caller hears of it by this exception.
   */
  void afterAppend(Object entry) {
    if (pool.afterAppend(entry)) {
      throw books.refusal(TaskOutcome.SHUTDOWN);
    }
  }

  int queuedCount() {
    return books.queuedCount();
  }

  /** How many unfinished tasks the lane accepts now: its concurrency plus its queue capacity. */
  private int admissionLimit() {
    return ctx.settings.get().room();
  }

  /** Whether a task submitted at {@code now} is shed ({@link Admission#shed}). */
  private boolean shedding(long now, Settings rules) {
    Taken head = new Taken();
    boolean queued = books.peekLive(head) != null;
    return admission.shed(now, queued, head.stamp, rules);
  }

  /** Takes a slot if the lane has room for one more unfinished task. */
  private boolean tryAdmit() {
    return admission.tryAdmit(admissionLimit());
  }

  /** Appends an admitted envelope. */
  private void enqueue(LaneFuture<?> t) {
    append(t, t.acceptedNanos);
  }

  /** Handles a full lane; returns true if {@code t} ended up queued, false if it ran here. */
  private boolean overflow(LaneFuture<?> t, OverflowPolicy overflow) {
    switch (overflow.kind()) {
      case REJECT -> {
        reject(t, TaskOutcome.QUEUE_FULL);
      }
      case CALLER_RUNS -> {
        // Counted running before the state is read again: a lane shutting down meanwhile either
        // sees this caller (and terminates only after its task) or is seen here (and refuses it).
        books.callerStarts();
        if (runState.get() != RunState.RUNNING) {
          books.callerEnds();
          reject(t, TaskOutcome.SHUTDOWN);
        }
        t.number(-outsideRing.incrementAndGet()); // numbered apart: -1, -2, ...
        books.callerRan.increment(); // submitted: before it can start
        Worker.runTask(new Worker.TaskRun(ctx, books, admission, pool, null), t, -1);
        return false;
      }
      case BLOCK_CALLER -> {
        if (!awaitRoom(t, overflow.timeout().toNanos())) {
          reject(t, runState.get() != RunState.RUNNING ? TaskOutcome.SHUTDOWN : TaskOutcome.BLOCK_TIMEOUT);
        }
      }
      case DISCARD_OLDEST -> {
        Taken tk = new Taken();
        for (int idle = 0; ; ) {
          if (runState.get() != RunState.RUNNING) {
            reject(t, TaskOutcome.SHUTDOWN);
          }
          if (tryAdmit()) {
            enqueue(t);
            break;
          }
          // The oldest tasks free workers are about to take are no victims (see sparedTasks).
          int spared = idle < MAX_SPARING_LOOKS ? sparedTasks() : 0;
          Object x = spared > 0 ? ring.pollBehind(spared, tk) : ring.pollOldest(tk);
          LaneFuture<?> victim = x == null ? null : books.ownedEnvelope(x, tk);
          if (victim != null) {
            // the victim's slot passes to t: no other submitter can take it meanwhile
            dropped(victim, TaskOutcome.DISCARDED_OLDEST);
            enqueue(t);
            break;
          } else if (x == null) {
            if (spared == 0 && running() >= admissionLimit()) {
              // Every slot is a running task (the concurrency was lowered below them): there is
              // nothing queued to discard, so this task is refused like any on a full lane.
              reject(t, TaskOutcome.QUEUE_FULL);
            }
            // A slot is in a submitter's or a worker's hand, or every queued task is a free
            // worker's: brief, but not spun on.
            backOff(idle++);
          }
        }
      }
    }
    return true;
  }

  /**
   * Discard-oldest: how many of the oldest queued tasks are no victims because free workers are
   * about to take them. A lane holds {@code concurrency} running plus {@code queueCapacity}
   * queued, and the JDK's pool hands its first tasks to new threads directly; so with {@code n}
   * workers not running a task, the {@code n} oldest are spared (none on a gated lane, whose
   * tasks wait for the gate, not for a worker).
   */
  private int sparedTasks() {
    return gate == null ? Math.max(0, Math.min(MAX_SPARED, concurrency() - books.running())) : 0;
  }

  /** The most oldest tasks discard-oldest spares for free workers (a bound on its look-ahead). */
  private static final int MAX_SPARED = 64;

  /**
   * Looks after which discard-oldest spares nothing: free workers that never take their tasks
   * (threads that cannot start) must not keep a submitter from discarding for ever; the oldest
   * is discarded then.
   */
  private static final int MAX_SPARING_LOOKS = 64;

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
    if (!waitForRoom(nanos)) {
      return false;
    }
    t.restamp(ticker.read()); // its wait in the queue starts now, not when it came
    enqueue(t);
    return true;
  }

  /** Block-caller: takes a slot, waiting up to {@code nanos} while the lane accepts tasks. */
  private boolean waitForRoom(long nanos) {
    return admission.awaitRoom(this::admissionLimit,
        () -> runState.get() == RunState.RUNNING, nanos);
  }

  private void reject(LaneFuture<?> t, TaskOutcome reason) {
    t.refuse(); // never accepted: a later cancel of its future touches no books
    t.number(-outsideRing.incrementAndGet()); // numbered apart: -1, -2, ...
    books.refused.get(reason).increment(); // submitted and ended in one count (see stats())
    health.noteWork(); // a refusal moves the health of a resting lane too
    books.publish(t, "", -1, ticker.read(), -1, reason);
    LaneRejectedException e =
        new LaneRejectedException(name, reason, queueCapacity(), queuedCount(), running());
    if (reason == TaskOutcome.BLOCK_TIMEOUT && Thread.currentThread().isInterrupted()) {
      // an interrupt ended its wait for room: said by the cause (the interrupt status stays set)
      e.initCause(new InterruptedException("interrupted while waiting for room"));
    }
    throw e;
  }

  /** Discard-oldest's victim: its slot passes to the task that displaced it. */
  private void dropped(LaneFuture<?> victim, TaskOutcome reason) {
    books.endDisplaced(victim, reason);
  }

  /** Called by an envelope whose future was cancelled while queued (its entry is dead now). */
  @Override
  public boolean noFreeCapacity() {
    return pool.noFreeCapacity();
  }

  @Override
  public void cancelledWhileQueued(LaneFuture<?> t) {
    books.cancelledWhileQueued(t);
  }

  @Override
  public void setConcurrency(int newConcurrency) {
    int max = SettingChecks.maxConcurrency(kind);
    if (newConcurrency < 1 || newConcurrency > max) {
      throw new IllegalArgumentException("lane \"" + name + "\": concurrency must be between 1 and "
          + max + ", was " + newConcurrency);
    }
    mainLock.lock();
    try {
      Settings now = ctx.settings.get();
      if (now.concurrency == newConcurrency) {
        return;
      }
      replaceSettings(now, new Settings(newConcurrency, now.queueCapacity, now.overflow,
          now.shedTargetNanos, now.shedIntervalNanos, now.health));
      pool.concurrencyChanged(newConcurrency);
    } finally {
      mainLock.unlock();
    }
  }

  /** Under {@code mainLock}: the one write of the lane's settings. */
  private void replaceSettings(Settings now, Settings next) {
    if (!ctx.settings.replace(now, next)) {
      throw new IllegalStateException("lane \"" + name + "\": settings changed outside the lock");
    }
  }

  // ---------------------------------------------------------------- live changes

  /** Listeners of {@link #onSettings}; copy-on-write, written under {@code mainLock}. */
  @SuppressWarnings("unchecked")
  private volatile Consumer<? super SettingsChange>[] settingsListeners = new Consumer[0];

  @Override
  public LaneSettings settings() {
    return ctx.settings.get().view();
  }

  @Override
  public LaneChange change() {
    return new LaneChange(name, kind, this::apply);
  }

  /**
   * Applies a change (see {@link LaneChange}): under {@code mainLock}, so changes (and {@link
   * #setConcurrency}) happen one at a time, each from what the last one left; the lane's settings
   * are one immutable value replaced by one compare-and-set, so every decision sees the old set
   * or the new one, never a mix; a virtual lane's permit limit follows before the lock is let go
   * (so two changes leave it in their order). Then, outside the lock: a wake-up for callers
   * blocked for room, the log line, the JFR event and the listeners.
   */
  LaneSettings apply(LaneChange change) {
    LaneSettings before;
    LaneSettings after;
    mainLock.lock();
    try {
      if (runState.get() != RunState.RUNNING) {
        throw new IllegalStateException(SettingChecks.prefix(name)
            + "is shut down; its settings no longer change");
      }
      Settings now = ctx.settings.get();
      before = now.view();
      after = change.over(before);
      SettingChecks.gateAllows(name, gate, after.overflow());
      if (after.equals(before)) {
        return before;
      }
      Settings next = now.with(after);
      replaceSettings(now, next);
      if (now.shedTargetNanos != next.shedTargetNanos) {
        admission.newShedTarget();
      }
      if (next.concurrency != now.concurrency) {
        pool.concurrencyChanged(next.concurrency);
      }
    } finally {
      mainLock.unlock();
    }
    if (after.concurrency() + after.queueCapacity()
        > before.concurrency() + before.queueCapacity()) {
      admission.wakeAllWaiting(); // callers blocked for room: there is more now
    }
    SettingsChange event = new SettingsChange(name, before, after, ticker.read());
    LOG.log(System.Logger.Level.INFO, "lane \"" + name + "\": settings changed: "
        + event.describe());
    LaneEvents.settingsChange(event);
    for (Consumer<? super SettingsChange> l : settingsListeners) {
      try {
        l.accept(event);
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "lane \"" + name + "\": settings listener failed", t);
      }
    }
    return after;
  }

  @Override
  public void onSettings(Consumer<? super SettingsChange> listener) {
    Objects.requireNonNull(listener, "listener");
    mainLock.lock();
    try {
      Consumer<? super SettingsChange>[] old = settingsListeners;
      Consumer<? super SettingsChange>[] grown = java.util.Arrays.copyOf(old, old.length + 1);
      grown[old.length] = listener;
      settingsListeners = grown;
    } finally {
      mainLock.unlock();
    }
  }

  @Override
  public String workerStacks() {
    StringBuilder out = new StringBuilder();
    int shown = 0;
    for (PoolWorker w : pool.workers) {
      Thread t = w.thread();
      if (t == null) {
        continue;
      }
      if (shown++ == MAX_STACKS_SHOWN) {
        out.append("… and ").append(pool.workers.size() - MAX_STACKS_SHOWN)
            .append(" more workers\n");
        break;
      }
      StackTraceElement[] frames = t.getStackTrace();
      out.append('"').append(t.getName()).append('"').append(t.isVirtual() ? " virtual" : "")
          .append(' ').append(t.getState()).append('\n');
      for (int i = 0; i < Math.min(frames.length, MAX_FRAMES_SHOWN); i++) {
        out.append("    at ").append(frames[i]).append('\n');
      }
      if (frames.length > MAX_FRAMES_SHOWN) {
        out.append("    … ").append(frames.length - MAX_FRAMES_SHOWN).append(" more\n");
      }
    }
    return out.toString();
  }

  private static final int MAX_STACKS_SHOWN = 64;
  private static final int MAX_FRAMES_SHOWN = 32;

  // ---------------------------------------------------------------- the gate

  /** Permits in use now (virtual lanes); for tests. */
  int permitsInUse() {
    return pool.permits.held();
  }

  // ---------------------------------------------------------------- records

  @Override
  public void onTask(Consumer<? super TaskRecord> listener) {
    Objects.requireNonNull(listener, "listener");
    mainLock.lock();
    try {
      books.addTaskListener(listener);
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
      List<Consumer<? super SettingsChange>> keepSettings =
          new ArrayList<>(List.of(settingsListeners));
      if (keepSettings.remove(listener)) {
        settingsListeners = keepSettings.toArray(new Consumer[0]);
        removed = true;
      }
      removed |= books.removeTaskListener(listener);
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
    return books.running();
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
    Settings set = ctx.settings.get();
    long now = ticker.read();
    LaneBooks b = books;
    long e0 = b.enteredCount();
    EnumMap<TaskOutcome, Long> ended = new EnumMap<>(TaskOutcome.class);
    long refusedNow = 0;
    long endedFromQueue = 0;
    for (var e : b.rejected.entrySet()) {
      long atSubmission = b.refused.get(e.getKey()).sum();
      long fromQueue = e.getValue().sum();
      ended.put(e.getKey(), atSubmission + fromQueue);
      refusedNow += atSubmission;
      endedFromQueue += fromQueue;
    }
    long cancelledQueued = b.cancelledWhileQueued.sum();
    long returnedNow = b.returned.sum();
    endedFromQueue += cancelledQueued + returnedNow;
    // A correction moves one task between outcomes: CANCELLED gains after the other loses, so it
    // is read first and the sum is never ahead.
    long corrCancelled = b.cancelledAfterRun();
    long corrCompleted = -b.movedFrom(TaskOutcome.COMPLETED);
    long corrFailed = -b.movedFrom(TaskOutcome.FAILED);
    long abandoned = b.failedElsewhere.sum();
    long[] oc = new long[4];
    Timings[] t = timings.read(now, oc);
    long started = oc[3];
    long e3 = b.enteredCount();
    long completed = oc[0] + corrCompleted;
    long failed = oc[1] + corrFailed + abandoned;
    long cancelledRan = oc[2] + corrCancelled;
    ended.put(TaskOutcome.COMPLETED, completed);
    ended.put(TaskOutcome.FAILED, failed);
    ended.put(TaskOutcome.CANCELLED, cancelledRan + cancelledQueued);
    ended.put(TaskOutcome.RETURNED, returnedNow);
    long endedRan = completed + failed + cancelledRan;
    int running = (int) Math.max(0, started - endedRan);
    long room = Math.max(0, (long) set.room() - running);
    long entered = Math.max(e0, Math.min(e3, started + endedFromQueue + room));
    int queued = (int) Math.max(0, entered - started - endedFromQueue);
    long submitted = entered + refusedNow;
    int rs = runState.get();
    return new LaneStats(
        name,
        kind,
        rs >= RunState.SHUTDOWN,
        rs == RunState.TERMINATED,
        health.state(),
        now - createdNanos,
        submitted,
        started,
        ended,
        queued,
        books.headWaitNanos(now),
        running,
        elastic ? pool.permits.held() : pool.liveWorkers.get(),
        set.concurrency,
        set.queueCapacity,
        t[0],
        t[1],
        health.saturatedNanos(now),
        b.cpuBoundSamples.sum(),
        b.blockingSamples.sum(),
        b.betweenTasksNanos.sum(),
        pinBook == null ? Pinning.NOT_REPORTED : pinBook.snapshot());
  }

  private String stateName() {
    return switch (runState.get()) {
      case RunState.RUNNING -> "running";
      case RunState.SHUTDOWN, RunState.STOP -> "shutting-down";
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

  @Override
  public boolean isShutdown() {
    return runState.get() >= RunState.SHUTDOWN;
  }

  @Override
  public boolean isTerminated() {
    return runState.get() == RunState.TERMINATED;
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
    HealthMonitor.checkDeadlocks(HealthMonitor.registeredLanes());
    long now = ticker.read();
    health.tick(now);
    books.drops.flush(now);
  }

  @Override
  public String toString() {
    return "Lane[" + name + ", " + kind.tag() + ", " + stateName() + ", concurrency " + concurrency()
        + ", queued " + queuedCount() + "/" + queueCapacity() + ", running " + running()
        + ", submitted " + books.submittedCount() + ", rejected " + books.rejectedCount() + "]";
  }
}
