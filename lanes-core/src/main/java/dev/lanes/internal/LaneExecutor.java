package dev.lanes.internal;

import dev.lanes.CpuTiming;
import dev.lanes.HealthEvent;
import dev.lanes.LabelFigures;
import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.LaneConfig;
import dev.lanes.LaneCounts;
import dev.lanes.LaneHealth;
import dev.lanes.LaneKind;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import dev.lanes.OverflowPolicy;
import dev.lanes.RejectReason;
import dev.lanes.SizingAdvice;
import dev.lanes.SizingAdvisor;
import dev.lanes.Subscription;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import dev.lanes.Timings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ArrayBlockingQueue;
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
import java.util.function.LongSupplier;

/**
 * The one implementation of {@link Lane}, for platform lanes (CPU, BLOCKING) and virtual lanes.
 *
 * <p><b>Concurrency design.</b>
 *
 * <ul>
 *   <li><b>Queue.</b> One bounded {@link ArrayBlockingQueue} of {@link TaskEnvelope}s holds the
 *       accepted tasks that have not started. It is the only hand-off between submitters and
 *       workers, and its lock gives the happens-before edge submit → run. A task's future
 *       completes on the worker after the task, which gives run → {@code get()}.
 *   <li><b>Platform lanes</b> start {@code threads} core workers at build time. A core worker
 *       polls, and blocks in {@code take()} only when the queue is empty (see {@link Worker} for
 *       how shutdown interrupts only idle workers).
 *   <li><b>Virtual lanes</b> acquire before they spawn: {@code permits} counts permits in use
 *       (CAS, never above {@code maxConcurrency}); a submitter that enqueues a task takes a permit
 *       if one is free and starts one virtual thread with it. That thread runs queued tasks back to
 *       back and, when the queue is empty or the cap was lowered below the permits in use, gives
 *       its permit back as its last act and re-checks the queue (a submitter that found no permit
 *       a moment earlier relies on that re-check). Waiting tasks hold no thread, and at most
 *       {@code maxConcurrency} threads run tasks.
 *   <li><b>Ownership of a task's ending</b> goes to whoever takes it out of the queue (a worker's
 *       poll, or a remove by a canceller, a submitter taking it back, {@code shutdownNow},
 *       discard-oldest, the deadlock breaker), so each task is counted exactly once, by that
 *       party, with no compare-and-set on the hot path.
 *   <li><b>Lifecycle</b> {@code runState} only moves forward: RUNNING → SHUTDOWN → STOP →
 *       TERMINATED. A submitter re-checks it after enqueuing and takes its task back if the lane
 *       shut down meanwhile, so no task is stranded in a queue nobody drains. TERMINATED is set
 *       once, under {@code mainLock}, when the queue is empty (or STOP) and no worker is alive.
 *   <li><b>Counts.</b> A worker counts a task's outcome in its own {@link TimingBook} stripe,
 *       under the same uncontended lock that records its timings, before it completes the
 *       task's future (so whoever sees the future done also sees the task counted). Submissions
 *       are counted by the task-id sequence; the rare endings elsewhere (cancelled while queued,
 *       rejected, returned) by {@link LongAdder}s. Running tasks are the workers' release-stored
 *       busy flags. A snapshot under load is approximate by the tasks in flight; once quiet, the
 *       books balance exactly.
 *   <li><b>Listeners</b> live in copy-on-write arrays; with none, no {@link TaskRecord} is made.
 * </ul>
 */
public final class LaneExecutor extends AbstractExecutorService implements Lane {

  private static final System.Logger LOG = System.getLogger("dev.lanes");

  static final int RUNNING = 0;
  static final int SHUTDOWN = 1;
  static final int STOP = 2;
  static final int TERMINATED = 3;

  private static final int MAX_STRIPES = 64;

  private final LaneConfig config;
  private final String name;
  private final LaneKind kind;
  private final boolean elastic;
  private final LongSupplier ticker;
  private final int cpuOneIn;
  private final OverflowPolicy overflow;
  private final ThreadFactory threadFactory;
  final ArrayBlockingQueue<TaskEnvelope> queue;
  private final long createdNanos;

  private volatile int runState = RUNNING;
  private final ReentrantLock mainLock = new ReentrantLock();
  private final Condition terminatedCondition = mainLock.newCondition();

  /** Every worker whose thread was started (or is about to be) and has not exited. */
  final Set<Worker> workers = ConcurrentHashMap.newKeySet();

  private final AtomicInteger liveWorkers = new AtomicInteger();
  private final AtomicInteger permits = new AtomicInteger();
  private volatile int maxConcurrency;
  final AtomicInteger compensationWorkers = new AtomicInteger();
  private final AtomicInteger spawnSeq = new AtomicInteger();

  /** Task ids, from 1; also the count of submissions (every submission gets an id). */
  private final AtomicLong taskIds = new AtomicLong();
  // Outcomes of tasks that ran are counted in the TimingBook's stripes (no atomics on the hot
  // path); these count the rare endings elsewhere.
  private final LongAdder cancelledWhileQueued = new LongAdder();
  private final LongAdder failedUnstarted = new LongAdder();
  private final LongAdder returned = new LongAdder();
  private final LongAdder callerRunning = new LongAdder();
  /** Corrections for a future cancelled between a worker's look and its completion. */
  private final LongAdder[] outcomeCorrections = {new LongAdder(), new LongAdder(), new LongAdder()};
  private final EnumMap<RejectReason, LongAdder> rejected = new EnumMap<>(RejectReason.class);

  private final TimingBook timings;
  private final ConcurrentHashMap<String, LabelBook> labels = new ConcurrentHashMap<>();
  private final LongAdder cpuBoundSamples = new LongAdder();
  private final LongAdder blockingSamples = new LongAdder();

  /**
   * A task counts as mostly waiting above this W/C: at least {@link SizingAdvisor#BLOCKING_WC},
   * and twice what waiting for a core alone gives a lane with more threads than cores.
   */
  private final double blockingTaskWc;
  final HealthMonitor health;

  @SuppressWarnings("unchecked")
  private volatile Consumer<? super TaskRecord>[] taskListeners = new Consumer[0];

  public LaneExecutor(LaneConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.name = config.name();
    this.kind = config.kind();
    this.elastic = kind == LaneKind.VIRTUAL;
    this.ticker = config.ticker();
    this.cpuOneIn = config.cpuTiming().enabled() && CpuClock.isSupported() ? config.cpuTiming().oneIn() : 0;
    this.overflow = config.overflow();
    this.maxConcurrency = config.concurrency();
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.threadFactory =
        config.threadFactory() != null ? config.threadFactory() : defaultThreadFactory(config);
    for (RejectReason r : RejectReason.values()) {
      rejected.put(r, new LongAdder());
    }
    this.createdNanos = ticker.getAsLong();
    int stripes =
        elastic
            ? Math.min(MAX_STRIPES, Integer.highestOneBit(Math.max(1, 2 * cores()) - 1) << 1)
            : Math.min(MAX_STRIPES, config.concurrency());
    this.timings = new TimingBook(Math.max(1, stripes), config.statsInterval().toNanos(), createdNanos);
    this.health = new HealthMonitor(this, config.health());
    this.blockingTaskWc =
        Math.max(SizingAdvisor.BLOCKING_WC, 2.0 * config.concurrency() / cores());
    if (!elastic) {
      for (int i = 0; i < config.concurrency(); i++) {
        Worker w = new Worker(this, Worker.Kind.CORE, i % timings.stripeCount());
        if (!startWorker(w)) {
          shutdownNow();
          throw new IllegalStateException(
              "lane \"" + name + "\": could not start thread " + (i + 1) + " of " + config.concurrency());
        }
      }
    }
    HealthMonitor.register(this);
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static ThreadFactory defaultThreadFactory(LaneConfig config) {
    if (config.kind() == LaneKind.VIRTUAL) {
      return Thread.ofVirtual().name(config.name() + "-", 1).factory();
    }
    return Thread.ofPlatform().name(config.name() + "-", 1).daemon(config.daemon()).factory();
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
  public LaneConfig config() {
    return config;
  }

  @Override
  public int concurrencyLimit() {
    return elastic ? maxConcurrency : config.concurrency();
  }

  long now() {
    return ticker.getAsLong();
  }

  // ---------------------------------------------------------------- submission

  @Override
  public void execute(Runnable task) {
    execute("", task);
  }

  @Override
  public void execute(String label, Runnable task) {
    Objects.requireNonNull(task, "task");
    accept(label, task, null, task);
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
   * Wraps a new task in its envelope (decorated, numbered, timestamped) and accepts it. {@code
   * source} is the undecorated task given to {@code execute}, kept to reach a foreign future.
   */
  private void accept(String label, Runnable run, LaneFuture<?> future, Runnable source) {
    Objects.requireNonNull(label, "label");
    Runnable work = config.taskDecorator().decorate(run);
    TaskEnvelope e =
        new TaskEnvelope(this, work, future, label, taskIds.incrementAndGet(), ticker.getAsLong());
    e.source = source;
    if (future != null) {
      future.envelope = e;
    }
    accept(e);
  }

  private void accept(TaskEnvelope t) {
    if (runState != RUNNING) {
      reject(t, RejectReason.SHUTDOWN);
    }
    if (!queue.offer(t)) {
      if (!overflow(t)) {
        return; // ran on the caller
      }
    }
    if (runState != RUNNING && queue.remove(t)) {
      // Raced with shutdown: take the task back rather than strand it in a queue nobody drains.
      tryTerminate(); // shutdown may have seen this task queued and left termination to us
      reject(t, RejectReason.SHUTDOWN);
    }
    if (elastic) {
      dispatch();
    }
  }

  /** Handles a full queue; returns true if {@code t} ended up queued, false if it ran here. */
  private boolean overflow(TaskEnvelope t) {
    switch (overflow) {
      case OverflowPolicy.Reject r -> reject(t, RejectReason.QUEUE_FULL);
      case OverflowPolicy.CallerRuns c -> {
        runTask(null, t, -1);
        return false;
      }
      case OverflowPolicy.BlockCaller b -> {
        boolean queued;
        try {
          queued = queue.offer(t, b.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          queued = false;
        }
        if (!queued) {
          reject(t, RejectReason.BLOCK_TIMEOUT);
        }
      }
      case OverflowPolicy.DiscardOldest d -> {
        while (!queue.offer(t)) {
          if (runState != RUNNING) {
            reject(t, RejectReason.SHUTDOWN);
          }
          TaskEnvelope victim = queue.poll();
          if (victim != null) {
            dropped(victim, RejectReason.DISCARDED_OLDEST);
          }
        }
      }
    }
    return true;
  }

  private void reject(TaskEnvelope t, RejectReason reason) {
    rejected.get(reason).increment();
    publish(t, "", -1, ticker.getAsLong(), -1, TaskOutcome.REJECTED);
    throw new LaneRejectedException(name, reason, config.queueCapacity(), queue.size(), running());
  }

  /** A queued task that will never run: count it, cancel its future, record it. */
  private void dropped(TaskEnvelope victim, RejectReason reason) {
    rejected.get(reason).increment();
    if (victim.future != null) {
      victim.future.cancel(false);
    }
    publish(victim, "", -1, ticker.getAsLong(), -1, TaskOutcome.REJECTED);
  }

  /** Called by an envelope whose future was cancelled and which it took out of the queue. */
  void cancelledWhileQueued(TaskEnvelope t) {
    cancelledWhileQueued.increment();
    publish(t, "", -1, ticker.getAsLong(), -1, TaskOutcome.CANCELLED);
    if (runState >= SHUTDOWN) {
      tryTerminate();
    }
  }

  // ---------------------------------------------------------------- virtual lanes: permits

  /** Starts virtual threads for queued tasks while permits are free. */
  private void dispatch() {
    while (permits.get() < maxConcurrency && runState < STOP && !queue.isEmpty()) {
      if (!tryAcquirePermit()) {
        return;
      }
      Worker w = new Worker(this, Worker.Kind.ELASTIC, spawnSeq.getAndIncrement() & (timings.stripeCount() - 1));
      if (!startWorker(w)) {
        // A worker that is still running will take the queued tasks (it re-checks the queue
        // before it leaves); only when none is left would a task wait forever, so fail one.
        if (permits.decrementAndGet() == 0) {
          failOneQueued(RejectReason.THREAD_START_FAILED);
        }
        return;
      }
    }
  }

  private boolean tryAcquirePermit() {
    for (; ; ) {
      int n = permits.get();
      if (n >= maxConcurrency) {
        return false;
      }
      if (permits.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /**
   * Gives an elastic worker's permit back; returns true if the worker should go on because work
   * arrived that nobody else will pick up.
   */
  private boolean releasePermitAndRecheck() {
    permits.decrementAndGet();
    return runState < STOP && !queue.isEmpty() && tryAcquirePermit();
  }

  @Override
  public void setMaxConcurrency(int newMax) {
    if (!elastic) {
      throw new UnsupportedOperationException(
          "lane \"" + name + "\": maxConcurrency applies to virtual lanes only; this is a "
              + kind.tag() + " lane with " + config.concurrency() + " threads");
    }
    if (newMax < 1 || newMax > LaneBuilder.MAX_VIRTUAL_CONCURRENCY) {
      throw new IllegalArgumentException(
          "lane \"" + name + "\": maxConcurrency must be between 1 and "
              + LaneBuilder.MAX_VIRTUAL_CONCURRENCY + ", was " + newMax);
    }
    maxConcurrency = newMax;
    dispatch();
  }

  /** Permits in use now (virtual lanes); for tests and stats. */
  public int permitsInUse() {
    return permits.get();
  }

  /** A queued task could not get a thread: fail it rather than strand it. */
  private void failOneQueued(RejectReason reason) {
    TaskEnvelope t = queue.poll();
    if (t != null) {
      rejected.get(reason).increment();
      LaneRejectedException ex =
          new LaneRejectedException(name, reason, config.queueCapacity(), queue.size(), running());
      if (t.future != null) {
        t.future.completeExceptionally(ex);
      } else {
        reportFailure(Thread.currentThread(), ex);
      }
      publish(t, "", -1, ticker.getAsLong(), -1, TaskOutcome.REJECTED);
    }
    tryTerminate();
  }

  // ---------------------------------------------------------------- workers

  private boolean startWorker(Worker w) {
    liveWorkers.incrementAndGet();
    workers.add(w);
    Thread t;
    try {
      t = threadFactory.newThread(w);
      if (t == null) {
        throw new IllegalStateException("thread factory returned null");
      }
      w.thread = t;
      t.start();
      return true;
    } catch (Throwable e) {
      workers.remove(w);
      liveWorkers.decrementAndGet();
      LOG.log(System.Logger.Level.WARNING, "lane \"" + name + "\": could not start a thread", e);
      return false;
    }
  }

  /** Adds a temporary worker (deadlock compensation); false if none could be added. */
  boolean addCompensationWorker(int max) {
    for (; ; ) {
      int n = compensationWorkers.get();
      if (n >= max || runState >= STOP) {
        return false;
      }
      if (compensationWorkers.compareAndSet(n, n + 1)) {
        break;
      }
    }
    Worker w = new Worker(this, Worker.Kind.COMPENSATION, spawnSeq.getAndIncrement() % timings.stripeCount());
    ThreadFactory f =
        elastic
            ? threadFactory
            : Thread.ofPlatform().name(name + "-compensation-", 1).daemon(true).factory();
    liveWorkers.incrementAndGet();
    workers.add(w);
    try {
      Thread t = f.newThread(w);
      w.thread = t;
      t.start();
      return true;
    } catch (Throwable e) {
      workers.remove(w);
      liveWorkers.decrementAndGet();
      compensationWorkers.decrementAndGet();
      return false;
    }
  }

  void runWorker(Worker w) {
    if (w.thread == null) {
      w.thread = Thread.currentThread();
    }
    WaitTracker.enter(w);
    if (cpuOneIn == 1) {
      w.lastCpu = CpuClock.now();
    }
    w.cpuCountdown = cpuOneIn;
    try {
      switch (w.kind) {
        case CORE -> coreLoop(w);
        case ELASTIC -> elasticLoop(w);
        case COMPENSATION -> compensationLoop(w);
      }
    } finally {
      WaitTracker.exit();
      workers.remove(w);
      if (w.kind == Worker.Kind.COMPENSATION) {
        compensationWorkers.decrementAndGet();
      }
      liveWorkers.decrementAndGet();
      tryTerminate();
    }
  }

  private void coreLoop(Worker w) {
    long lastEnd = -1;
    for (; ; ) {
      TaskEnvelope t = runState >= STOP ? null : queue.poll();
      if (t == null) {
        t = awaitTask(w);
        if (t == null) {
          return;
        }
        lastEnd = -1; // we waited: read the clock afresh
      }
      lastEnd = runTask(w, t, lastEnd);
    }
  }

  private TaskEnvelope awaitTask(Worker w) {
    for (; ; ) {
      int rs = runState;
      if (rs >= STOP || (rs >= SHUTDOWN && queue.isEmpty())) {
        return null;
      }
      TaskEnvelope t = null;
      if (rs == RUNNING) {
        w.markIdle();
        if (runState == RUNNING) {
          try {
            t = queue.take();
          } catch (InterruptedException e) {
            // shutdown woke us: loop to re-check the state
          }
        }
        w.markBusy();
      } else {
        // Shutting down: never block, or a task taken back by its submitter (or cancelled)
        // after we looked could leave us waiting on an empty queue forever.
        t = queue.poll();
      }
      if (t != null) {
        return t;
      }
    }
  }

  private void elasticLoop(Worker w) {
    long lastEnd = -1;
    for (; ; ) {
      TaskEnvelope t = runState >= STOP ? null : queue.poll();
      if (t == null) {
        if (!releasePermitAndRecheck()) {
          return;
        }
        lastEnd = -1;
        continue;
      }
      lastEnd = runTask(w, t, lastEnd);
      if (permits.get() > maxConcurrency && !releasePermitAndRecheck()) {
        return; // the cap was lowered: this permit goes
      }
    }
  }

  private void compensationLoop(Worker w) {
    for (; ; ) {
      TaskEnvelope t = runState >= STOP ? null : queue.poll();
      if (t == null) {
        return;
      }
      runTask(w, t, -1);
    }
  }

  /**
   * Runs one task on the current thread, times it and counts its ending; returns when it ended.
   * {@code w} is null when a caller runs the task (caller-runs policy). {@code startHint} is the
   * end of this worker's previous task when it took this one straight after (no wait in between),
   * which saves a clock read: the task's start then includes the dequeue, tens of nanoseconds.
   */
  private long runTask(Worker w, TaskEnvelope t, long startHint) {
    Thread me = Thread.currentThread();
    if (runState < STOP) {
      Thread.interrupted(); // a task must not inherit an interrupt meant for an earlier one
    }
    LaneFuture<?> f = t.future;
    if (f != null) {
      t.markRunning(me);
    }
    if (w != null) {
      w.beginTask();
    } else {
      callerRunning.increment();
    }
    long start = startHint >= 0 ? Math.max(startHint, t.acceptedNanos) : ticker.getAsLong();
    long cpuStart = -1;
    if (cpuOneIn == 1 && w != null && w.lastCpu >= 0) {
      cpuStart = w.lastCpu;
    } else if (cpuOneIn > 0) {
      if (w == null || --w.cpuCountdown <= 0) {
        if (w != null) {
          w.cpuCountdown = cpuOneIn;
        }
        cpuStart = CpuClock.now();
      }
    }
    LaneEvents.TaskEvent event = LaneEvents.beginTask(); // null while no recording can run
    Throwable failure = null;
    try {
      t.work.run();
    } catch (Throwable e) {
      failure = e;
    }
    long end = ticker.getAsLong();
    if (event != null) {
      event.end();
    }
    long cpu = -1;
    if (cpuStart >= 0) {
      long c = CpuClock.now();
      cpu = Math.max(0, c - cpuStart);
      if (cpuOneIn == 1 && w != null) {
        w.lastCpu = c;
      }
    }
    if (f != null) {
      t.finishRun(runState >= STOP);
    }
    TaskOutcome outcome;
    if (f == null) {
      outcome = failure == null ? TaskOutcome.COMPLETED : TaskOutcome.FAILED;
    } else if (f.isDone()) {
      outcome =
          f.isCancelled()
              ? TaskOutcome.CANCELLED
              : f.isCompletedExceptionally() ? TaskOutcome.FAILED : TaskOutcome.COMPLETED;
    } else {
      outcome = f.runFailed() ? TaskOutcome.FAILED : TaskOutcome.COMPLETED;
    }
    int stripe = w != null ? w.stripe : (int) (me.threadId() % timings.stripeCount());
    timings.record(stripe, start - t.acceptedNanos, end - start, cpu, outcome.ordinal());
    if (w != null) {
      w.endTask();
    } else {
      callerRunning.decrement();
    }
    if (cpu >= 0) {
      long waiting = (end - start) - cpu;
      if (waiting < SizingAdvisor.CPU_BOUND_WC * cpu) {
        cpuBoundSamples.increment();
      } else if (waiting > blockingTaskWc * cpu) {
        blockingSamples.increment();
      }
    }
    if (!t.label.isEmpty()) {
      labels.computeIfAbsent(t.label, k -> new LabelBook()).add(end - start, cpu);
    }
    if (f != null && !f.isDone() && !f.completeFromRun() && f.isCancelled()) {
      // Cancelled between our look and our completion: the future says cancelled, so do we.
      outcomeCorrections[outcome.ordinal()].decrement();
      outcomeCorrections[TaskOutcome.CANCELLED.ordinal()].increment();
      outcome = TaskOutcome.CANCELLED;
    }
    if (event != null && event.shouldCommit()) {
      event.lane = name;
      event.label = t.label;
      event.taskId = t.id;
      event.queueWait = start - t.acceptedNanos;
      event.runTime = end - start;
      event.cpuTime = cpu;
      event.outcome = outcome.tag();
      event.commit();
    }
    publish(t, me.getName(), start, end, cpu, outcome);
    if (failure != null) {
      reportFailure(me, failure);
    }
    return end;
  }

  private void reportFailure(Thread thread, Throwable failure) {
    Thread.UncaughtExceptionHandler h = config.exceptionHandler();
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

  // ---------------------------------------------------------------- records

  private void publish(TaskEnvelope t, String thread, long start, long end, long cpu, TaskOutcome outcome) {
    Consumer<? super TaskRecord>[] ls = taskListeners;
    if (ls.length == 0) {
      return;
    }
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
  @SuppressWarnings("unchecked")
  public Subscription onTask(Consumer<? super TaskRecord> listener) {
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
    return () -> {
      mainLock.lock();
      try {
        List<Consumer<? super TaskRecord>> keep = new ArrayList<>(List.of(taskListeners));
        if (keep.remove(listener)) {
          taskListeners = keep.toArray(new Consumer[0]);
        }
      } finally {
        mainLock.unlock();
      }
    };
  }

  @Override
  public Subscription onHealth(Consumer<? super HealthEvent> listener) {
    return health.subscribe(listener);
  }

  @Override
  public LaneHealth health() {
    return health.state();
  }

  // ---------------------------------------------------------------- stats

  /** Tasks running now: workers inside a task, plus callers running one (caller-runs). */
  int running() {
    int n = 0;
    for (Worker w : workers) {
      if (w.isRunningTask()) {
        n++;
      }
    }
    return n + (int) Math.max(0, callerRunning.sum());
  }

  int liveWorkerCount() {
    return liveWorkers.get();
  }

  /** Tasks that started: those that ran to an end, plus those running now. */
  long startedCount() {
    long[] oc = timings.outcomes();
    return oc[0] + oc[1] + oc[2] + running();
  }

  long rejectedCount() {
    long n = 0;
    for (LongAdder a : rejected.values()) {
      n += a.sum();
    }
    return n;
  }

  /**
   * How long the task at the head of the queue has waited at {@code now}, or 0 with an empty
   * queue. Approximate under concurrent submission: the head may be taken while it is read.
   */
  long oldestQueuedNanos(long now) {
    TaskEnvelope head = queue.peek();
    return head == null ? 0 : Math.max(0, now - head.acceptedNanos);
  }

  long[] timingSums() {
    return timings.sums();
  }

  @Override
  public LaneStats stats() {
    long now = ticker.getAsLong();
    Timings[] t = timings.read(now);
    EnumMap<RejectReason, Long> byReason = new EnumMap<>(RejectReason.class);
    rejected.forEach((r, a) -> byReason.put(r, a.sum()));
    int running = running();
    long[] oc = timings.outcomes();
    long comp = oc[0] + outcomeCorrections[0].sum();
    long fail = oc[1] + outcomeCorrections[1].sum() + failedUnstarted.sum();
    long canc = oc[2] + outcomeCorrections[2].sum() + cancelledWhileQueued.sum();
    long st = oc[0] + oc[1] + oc[2] + running;
    long sub = taskIds.get();
    LaneCounts counts = new LaneCounts(sub, st, comp, fail, canc, byReason, returned.sum());
    int threads = elastic ? permits.get() : liveWorkers.get();
    return new LaneStats(
        name,
        kind,
        stateName(),
        health.state(),
        now - createdNanos,
        counts,
        queue.size(),
        oldestQueuedNanos(now),
        running,
        threads,
        concurrencyLimit(),
        config.queueCapacity(),
        t[0],
        t[1],
        health.saturatedNanos(now),
        labelFigures(),
        cpuBoundSamples.sum(),
        blockingSamples.sum());
  }

  private java.util.Map<String, LabelFigures> labelFigures() {
    java.util.Map<String, LabelFigures> out = new java.util.HashMap<>();
    labels.forEach((k, v) -> out.put(k, v.figures()));
    return out;
  }

  /** Per-label sums; LongAdders because several workers run tasks of one label. */
  private static final class LabelBook {
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

  @Override
  public SizingAdvice sizingAdvice() {
    return SizingAdvisor.defaults().advise(stats(), cores());
  }

  private String stateName() {
    return switch (runState) {
      case RUNNING -> "running";
      case SHUTDOWN, STOP -> "shutting-down";
      default -> "terminated";
    };
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public void shutdown() {
    advanceState(SHUTDOWN);
    for (Worker w : workers) {
      w.interruptIfIdle();
    }
    tryTerminate();
  }

  @Override
  public List<Runnable> shutdownNow() {
    advanceState(STOP);
    for (Worker w : workers) {
      w.interruptNow();
    }
    List<Runnable> never = new ArrayList<>();
    TaskEnvelope t;
    while ((t = queue.poll()) != null) {
      returned.increment();
      never.add(t);
    }
    tryTerminate();
    return never;
  }

  private void advanceState(int target) {
    mainLock.lock();
    try {
      if (runState < target) {
        runState = target;
      }
    } finally {
      mainLock.unlock();
    }
  }

  void tryTerminate() {
    int rs = runState;
    if (rs == RUNNING || rs == TERMINATED) {
      return;
    }
    if (rs == SHUTDOWN && !queue.isEmpty()) {
      if (!elastic) {
        return; // core workers drain it
      }
      dispatch();
      if (!queue.isEmpty() || permits.get() != 0) {
        return; // a worker will drain it and try again when it leaves
      }
      // the queue emptied meanwhile (cancelled or taken back) and nobody runs: terminate
    }
    if (liveWorkers.get() != 0 || (elastic && permits.get() != 0)) {
      return;
    }
    mainLock.lock();
    try {
      if (runState != TERMINATED
          && liveWorkers.get() == 0
          && (!elastic || permits.get() == 0)
          && (runState == STOP || queue.isEmpty())) {
        runState = TERMINATED;
        terminatedCondition.signalAll();
        HealthMonitor.unregister(this);
      }
    } finally {
      mainLock.unlock();
    }
  }

  @Override
  public boolean isShutdown() {
    return runState >= SHUTDOWN;
  }

  @Override
  public boolean isTerminated() {
    return runState == TERMINATED;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    mainLock.lock();
    try {
      while (runState != TERMINATED) {
        if (nanos <= 0) {
          return false;
        }
        nanos = terminatedCondition.awaitNanos(nanos);
      }
      return true;
    } finally {
      mainLock.unlock();
    }
  }

  @Override
  public void close() {
    boolean interrupted = false;
    shutdown();
    while (!isTerminated()) {
      try {
        awaitTermination(1, TimeUnit.DAYS);
      } catch (InterruptedException e) {
        if (!interrupted) {
          shutdownNow();
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- health hooks

  /** Re-evaluates health now (the health thread does this every 100 ms; tests may call it). */
  public void checkHealth() {
    health.tick(ticker.getAsLong());
  }

  boolean isShutdownNowOrTerminated() {
    return runState >= STOP;
  }

  /** No worker or permit is free to start a queued task. */
  boolean noFreeCapacity() {
    if (elastic) {
      return permits.get() >= maxConcurrency;
    }
    return workers.size() >= config.concurrency();
  }

  /** Fails a task this lane already claimed from its queue (deadlock FAIL policy). */
  void failClaimed(TaskEnvelope e, Throwable ex) {
    tryTerminate();
    failedUnstarted.increment();
    if (e.future != null) {
      e.future.completeExceptionally(ex);
    } else if (!ForeignFutures.completeExceptionally(e.source, ex)) {
      reportFailure(Thread.currentThread(), ex);
    }
    publish(e, "", -1, ticker.getAsLong(), -1, TaskOutcome.FAILED);
  }

  /**
   * Claims up to {@code max} queued tasks whose future lanes did not make but can reach (the
   * tasks of {@code CompletableFuture.runAsync/supplyAsync(.., lane)}), oldest first.
   */
  List<TaskEnvelope> claimQueuedForeignTasks(int max) {
    List<TaskEnvelope> out = new ArrayList<>();
    for (TaskEnvelope e : queue.toArray(new TaskEnvelope[0])) {
      if (out.size() >= max) {
        break;
      }
      if (e.future == null && ForeignFutures.isReachable(e.source) && queue.remove(e)) {
        out.add(e);
      }
    }
    return out;
  }

  /** A worker of some lane now waits on {@code future}; see {@link WaitTracker}. */
  void workerWaits(Worker w, LaneFuture<?> future) {
    health.workerWaits(w, future);
  }

  @Override
  public String toString() {
    return "Lane[" + name + ", " + kind.tag() + ", " + stateName() + ", limit " + concurrencyLimit()
        + ", queued " + queue.size() + "/" + config.queueCapacity() + ", running " + running()
        + ", submitted " + taskIds.get() + ", rejected " + rejectedCount() + "]";
  }
}
