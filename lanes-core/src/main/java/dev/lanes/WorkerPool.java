package dev.lanes;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lane's workers as a group: starting them, a virtual lane's permits, growing and retiring a
 * platform lane's threads when its concurrency changes, compensation threads for a deadlock, and
 * replacing a worker that died.
 *
 * <p><b>Concurrency design.</b> Lock-free counters, each with one rule:
 *
 * <ul>
 *   <li>{@code permits} (virtual lanes): the permits held and their limit in one word ({@link
 *       Permits}), never above the limit when taken (held may be above it after the cap was
 *       lowered, until the holders notice and give theirs back). A permit is taken before its
 *       thread is started (acquire before spawn) and given back by the worker as its last act,
 *       followed by a re-check of the ring ({@link #releasePermitAndRecheck}): a submitter that
 *       found every permit taken a moment earlier relies on that re-check.
 *   <li>{@code coreWorkers} (platform lanes): core workers that have not retired or died; may
 *       exceed {@code concurrency} after it was lowered, until the surplus retire when they next
 *       look for work ({@link #retireIfSurplus}, CAS, so exactly the surplus leave).
 *   <li>{@code liveWorkers}: workers whose thread was started (or is being started) and has not
 *       exited; the lane terminates only at zero. {@code workers} holds the same workers (a
 *       concurrent set) for the deadlock detector, {@code shutdownNow}'s interrupts and the
 *       running count; it may transiently miss a worker being added or removed.
 *   <li>{@code compensationWorkers}: extra threads running a deadlocked task, at most the bound
 *       given to {@link LaneBuilder#compensateOnDeadlock(int)}.
 * </ul>
 *
 * <p><b>Failure model.</b> A thread factory that throws or returns null is a start failure,
 * logged: the counters are given back; a virtual lane fails one queued task ({@link
 * TaskOutcome#THREAD_START_FAILED}) only when no worker is left to run it. A worker that ended
 * abruptly is replaced while the lane still needs it ({@link #replace}).
 */
final class WorkerPool {
  private static final System.Logger LOG = System.getLogger("dev.lanes");

  /** Makes a worker of a kind; the pool starts its thread. */
  interface Factory {
    PoolWorker newWorker(WorkerPool pool, PoolWorker.Kind kind);
  }

  private final LaneContext ctx;
  private final PoolBooks books;
  private final Factory factory;

  /** Every worker whose thread was started (or is about to be) and has not exited. */
  final Set<PoolWorker> workers = ConcurrentHashMap.newKeySet();
  final AtomicInteger liveWorkers = new AtomicInteger();
  /** Permits held and their limit (virtual lanes; the limit follows the concurrency). */
  final Permits permits;
  /** Core workers of a platform lane that have not retired or died. */
  final AtomicInteger coreWorkers = new AtomicInteger();
  final AtomicInteger compensationWorkers = new AtomicInteger();
  /** When the COMPENSATE bound was last logged (health thread; a racy read is harmless). */
  private volatile long lastBoundWarning = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);

  WorkerPool(LaneContext ctx, PoolBooks books, Factory factory) {
    this.ctx = ctx;
    this.books = books;
    this.factory = factory;
    this.permits = new Permits(ctx.settings.get().concurrency);
  }

  /** The lane's concurrency now: tasks that may run at once (the cap the workers follow). */
  int concurrency() {
    return ctx.settings.get().concurrency;
  }

  /**
   * A live change set the concurrency to {@code n} (after the lane's settings say so): a virtual
   * lane's permit limit follows and queued tasks get threads for new permits; a platform lane
   * starts threads up to {@code n}. Surplus workers leave when they next look for work; idle ones
   * and those at the gate are woken to look now.
   */
  void concurrencyChanged(int n) {
    if (ctx.elastic) {
      permits.setLimit(n);
      dispatch();
    } else {
      while (ctx.runState() == RunState.RUNNING && coreWorkers.get() < n && startCoreWorker()) {
        // one more thread
      }
    }
    wakeAll();
  }

  // ---------------------------------------------------------------- virtual lanes: permits

  /**
   * Starts virtual threads for queued tasks while permits are free. A start that fails gives its
   * permit back; a worker still running will take the queued tasks (it re-checks the queue before
   * it leaves), so only when no permit is held any more does a task wait forever: one is failed,
   * and the loop goes on for the rest (a one-off failure strands nothing; a factory that always
   * fails ends one queued task per attempt, so the loop ends when the queue is empty).
   */
  void dispatch() {
    while (ctx.runState() < RunState.STOP && permits.acquireForQueued(ctx.ring)) {
      PoolWorker w = factory.newWorker(this, PoolWorker.Kind.ELASTIC); // holds the permit just taken
      if (startWorker(w)) {
        continue;
      }
      permits.release();
      if (permits.held() != 0) {
        return; // other workers hold permits: they drain the queue
      }
      failOneQueued(TaskOutcome.THREAD_START_FAILED);
    }
  }

  /**
   * Gives an elastic worker's permit back; returns true if the worker should go on (holding a
   * permit again) because work arrived that nobody else will pick up.
   */
  boolean releasePermitAndRecheck() {
    if (ctx.runState() >= RunState.STOP) {
      permits.release();
      return false;
    }
    if (permits.releaseAndRecheck(ctx.ring)) {
      return true;
    }
    if (ctx.ring.hasClaimed()) {
      ctx.ring.wakeIdle(); // every permit is held: pass the task on to a holder parked idle
    }
    return false;
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

  /** Starts one more core worker of a platform lane; false if its thread could not start. */
  boolean startCoreWorker() {
    coreWorkers.incrementAndGet();
    if (startWorker(factory.newWorker(this, PoolWorker.Kind.CORE))) {
      return true;
    }
    coreWorkers.decrementAndGet();
    return false;
  }

  /**
   * A core worker leaves if the lane has more of them than its concurrency; true if it must (it is
   * no longer counted).
   */
  boolean retireIfSurplus() {
    for (; ; ) {
      int c = coreWorkers.get();
      if (c <= concurrency()) {
        return false;
      }
      if (coreWorkers.compareAndSet(c, c - 1)) {
        return true;
      }
    }
  }

  /** A queued task could not get a thread: fail it rather than strand it. */
  void failOneQueued(TaskOutcome reason) {
    Taken tk = new Taken();
    LaneFuture<?> t = null;
    for (Object x; t == null && (x = ctx.ring.pollOldest(tk)) != null; ) {
      t = books.ownedEnvelope(x, tk);
    }
    if (t != null) {
      books.endUnrun(t, reason);
    }
    ctx.upcalls.tryTerminate();
  }

  // ---------------------------------------------------------------- workers

  boolean startWorker(PoolWorker w) {
    liveWorkers.incrementAndGet();
    workers.add(w);
    Thread t;
    try {
      t = ctx.threadFactory.newThread(w);
      if (t == null) {
        throw new IllegalStateException("thread factory returned null");
      }
      w.attach(t);
      t.start();
      return true;
    } catch (Throwable e) {
      workers.remove(w);
      liveWorkers.decrementAndGet();
      LOG.log(System.Logger.Level.WARNING,
          "lane \"" + ctx.name + "\": could not start a thread", e);
      return false;
    }
  }

  /**
   * Deadlock COMPENSATE: runs {@code awaited}, a task of a proven cycle still queued here, on a
   * temporary extra thread that ends after it (at most {@code max} such threads at once). Leaves
   * the task queued if no thread can be had, and says so.
   */
  void runOnCompensationThread(LaneFuture<?> awaited, int max) {
    if (ctx.runState() >= RunState.STOP) {
      return;
    }
    if (!incrementBelow(compensationWorkers, max)) {
      long now = System.nanoTime();
      if (now - lastBoundWarning > TimeUnit.SECONDS.toNanos(10)) { // at most one line per 10 s
        lastBoundWarning = now;
        LOG.log(System.Logger.Level.WARNING, "lane \"" + ctx.name + "\": deadlock policy COMPENSATE"
            + " is at its bound of " + max + " extra threads; " + awaited + " stays queued");
      }
      return;
    }
    if (!awaited.tryTake()) {
      compensationWorkers.decrementAndGet(); // started or handled meanwhile
      return;
    }
    books.entryLeftDead(); // its ring entry
    PoolWorker w = factory.newWorker(this, PoolWorker.Kind.COMPENSATION);
    w.assign(awaited);
    ThreadFactory f =
        ctx.elastic
            ? ctx.threadFactory
            : Thread.ofPlatform().name(ctx.name + "-compensation-", 1).daemon(true).factory();
    liveWorkers.incrementAndGet();
    workers.add(w);
    try {
      Thread t = f.newThread(w);
      w.attach(t);
      t.start();
    } catch (Throwable e) {
      workers.remove(w);
      liveWorkers.decrementAndGet();
      compensationWorkers.decrementAndGet();
      giveBack(awaited); // back in line: it still holds its slot
      LOG.log(System.Logger.Level.WARNING,
          "lane \"" + ctx.name + "\": could not start a compensation thread", e);
    }
  }

  /**
   * Puts a task taken from the ring (by a compensation thread that could not start or died first)
   * back at its end; it still holds its admission slot, so room appears as soon as workers take
   * entries or dead ones are dropped.
   */
  void giveBack(LaneFuture<?> e) {
    e.backToQueue();
    ctx.ring.append(e, e.acceptedNanos);
    books.reappended(); // after the append: see LaneBooks#enteredCount
    afterAppend(null); // nobody submitted it now: a lane that stopped ends it through its future
  }

  /** Starts a replacement for a worker that ended abruptly, while the lane still needs it. */
  void replace(PoolWorker dead, Throwable abrupt) {
    Thread deadThread = dead.thread();
    try {
      LOG.log(System.Logger.Level.ERROR, "lane \"" + ctx.name + "\": worker "
          + (deadThread == null ? "?" : deadThread.getName())
          + " ended abruptly; replacing it", abrupt);
    } catch (Throwable ignored) {
      // a failing logger must not stop the replacement
    }
    int rs = ctx.runState();
    if (dead.kind() == PoolWorker.Kind.CORE
        && coreWorkers.get() < concurrency()
        && (rs == RunState.RUNNING
            || (rs == RunState.SHUTDOWN && ctx.ring.hasClaimed()))) {
      startCoreWorker();
    } else if (dead.kind() == PoolWorker.Kind.ELASTIC) {
      dispatch();
    }
  }

  /** Cleans up workers whose thread died before it ran lanes' code (health thread). */
  void reapDeadWorkers() {
    for (PoolWorker w : workers) {
      if (w.diedBeforeRunning()) {
        w.exitDead();
      }
    }
  }

  /**
   * Unparks every worker waiting at the lane's gate; each re-checks why it waits (see {@link
   * Worker}'s "The gate"). Called after the ring's epoch moved or the lane shut down.
   */
  void wakeGateWaiters() {
    for (PoolWorker w : workers) {
      if (w.atGate()) {
        java.util.concurrent.locks.LockSupport.unpark(w.thread());
      }
    }
  }

  /** Interrupts every worker (shutdownNow). */
  void interruptAll() {
    for (PoolWorker w : workers) {
      w.interruptNow();
    }
  }

  /** Workers inside a task now (a racy count of their busy flags). */
  int workersRunning() {
    int n = 0;
    for (PoolWorker w : workers) {
      if (w.isRunningTask()) {
        n++;
      }
    }
    return n;
  }

  /** Permits in use (virtual lane) or core workers (platform lane). */
  int capacityInUse() {
    return ctx.elastic ? permits.held() : coreWorkers.get();
  }

  /** No worker or permit is free to start a queued task. */
  boolean noFreeCapacity() {
    if (ctx.elastic) {
      return permits.full();
    }
    return workers.size() >= concurrency();
  }

  /**
   * Wakes every idle worker and every worker waiting at the gate (shutdown, a change of
   * concurrency): the ring's epoch moves first, so a worker about to park sees it.
   */
  void wakeAll() {
    ctx.ring.wakeAll();
    if (ctx.gate != null) {
      wakeGateWaiters();
    }
  }

  /**
   * After an entry was appended (a submission, or a give-back with {@code entry} null): wakes an
   * idle worker (or, on a virtual lane, starts one); on a shutting-down lane makes sure some worker
   * drains the ring; on a stopped lane takes back what nobody will run now and ends it SHUTDOWN.
   * True if the caller's own {@code entry} was among those (its submitter is told by an exception,
   * so its future is left alone).
   */
  boolean afterAppend(Object entry) {
    ctx.upcalls.noteWork(); // a resting lane wakes (HealthMonitor, "Resting")
    if (ctx.runState() == RunState.RUNNING) {
      if (!ctx.ring.wakeIdle() && ctx.elastic) {
        dispatch();
      }
      return false;
    }
    if (ctx.runState() == RunState.SHUTDOWN) {
      // The lane still runs what it accepted: make sure some worker is there to drain the ring.
      ctx.ring.wakeIdle();
      ctx.upcalls.tryTerminate();
      if (ctx.elastic) {
        dispatch();
      }
      return false;
    }
    // STOP: shutdownNow drained the ring before this entry (or beside it); nobody runs it now.
    boolean mine = books.endLateEntries(entry);
    ctx.upcalls.tryTerminate();
    return mine;
  }

  // ---------------------------------------------------------------- the gate, for the workers

  /** When a failing gate was last logged (at most one line per 10 s; a racy read is harmless). */
  private volatile long lastGateWarning = System.nanoTime() - GATE_WARNING_NANOS;
  private static final long GATE_WARNING_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Gives a pass back, once: {@code outcome} is how its task ended, null if none started. */
  void exitGate(LaneGate.Pass p, TaskOutcome outcome) {
    try {
      p.exit(outcome);
    } catch (Throwable e) {
      warnGate("a pass's exit threw (it counts as exited)", e);
    }
  }

  /** Logs a gate's failure, at most one line per 10 s for the lane. */
  void warnGate(String what, Throwable e) {
    long now = System.nanoTime();
    if (now - lastGateWarning < GATE_WARNING_NANOS) {
      return;
    }
    lastGateWarning = now;
    try {
      LOG.log(System.Logger.Level.WARNING, "lane \"" + ctx.name + "\": gate " + ctx.gate + ": "
          + what + " (logged at most once per 10 s)", e);
    } catch (Throwable ignored) {
      // a failing logger must not break the worker's books
    }
  }
}
