package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A thread's membership of a lane. Three kinds: a <em>core</em> worker of a platform lane (lives
 * until the lane shuts down or its concurrency is lowered; parks in the lane's ring when idle), an
 * <em>elastic</em> worker of a virtual lane (started with a permit, runs queued tasks back to back,
 * keeps its permit a moment when the ring is empty, then ends), and a <em>compensation</em> worker
 * (a temporary extra thread added to break a starvation deadlock). This file holds what a worker
 * thread runs: its loop ({@link #work()}), a task's run, timing and recording ({@link #runTask}:
 * nine numbered steps of a {@link TaskRun}, also used by a caller under the caller-runs policy),
 * and its exit ({@link #exitWorker}).
 *
 * <p><b>Timing.</b> A task's wait runs from its acceptance to the start of its own code, its run
 * from there to the return of its own code. What a worker does between two tasks — completing the
 * previous future (which runs its dependent stages), task listeners, the exception handler —
 * belongs to no task: the worker reads the clock again after it and adds the gap to the lane's
 * between-task time. Only when none of those can have run does the next task's start reuse the
 * previous end (one clock read saved). With a task decorator, the stamps are taken inside it
 * ({@link LaneFuture.Timed}), so its capture and restore are no task's time either. A future lanes
 * did not make ({@code CompletableFuture.supplyAsync(.., lane)}) completes inside the JDK's task
 * object, so its synchronous dependent stages count in that task's run. The worker counts the
 * task's outcome with its timings in its own single-writer {@link TimingBook} tally before it
 * completes the task's future, so whoever sees the future done also sees the task counted (once
 * a read drains the tally).
 *
 * <p><b>Concurrency design.</b> An idle worker parks in its lane's {@link TaskRing} (its {@link
 * TaskRing.Idler}, guarded by the ring's idle lock) and is woken by an unpark, never by an
 * interrupt, so nothing has to keep a shutdown's interrupt out of the next task. The fields a
 * worker writes on every task ({@code current}, the busy flag, its clocks, its pass, its wait) are
 * its own, in {@link WorkerOwnFields} between two paddings, as are its {@link Taken}'s: no field
 * another thread writes, no header and no neighbouring object shares their lines or the lines
 * beside them (LayoutTest reads the layout the JVM made).
 * {@code waitingOn} (and {@code waitTimed}, written before it) is read by the deadlock detector
 * without locks (a racy but safe view: it only reads it).
 *
 * <p><b>The gate.</b> On a lane with a {@link LaneGate}, a worker that sees a task queued asks the
 * gate before it takes one ({@link #takeThroughGate}); it takes the oldest entry only with a
 * {@link LaneGate.Pass} in hand, keeps it in {@link #pass} (its own field) while the task runs, and
 * gives it back in {@link #runTask} after the task's code returned and before its future
 * completes — or, if the worker dies first, on its exit path; whoever gives it back clears the
 * field first, so a pass is exited once. Without a pass it parks ({@link #atGate} set, the
 * parking blocker the gate) until the gate runs {@link #gateReady} ({@code gateOpened}, volatile,
 * then an unpark), the ring's wake-all epoch moves (shutdown, a change of concurrency:
 * {@link WorkerPool#wakeAll} bumps the epoch, then unparks the workers it reads {@code atGate}),
 * the lane stops, or a shut-down lane's ring is empty (then {@link Lifecycle#tryTerminate} unparks
 * them). Each side writes its volatile and then reads the other's, so one of them sees the other.
 * A worker at the gate holds its thread (and a virtual lane's permit) but no task: the task stays
 * queued, so its queue wait includes the gate's. A lane without a gate pays one null check per
 * loop and one per run.
 *
 * <p><b>Failure model.</b> A worker whose loop ends by an exception or error (from lanes' own
 * bookkeeping, a handler, a logger, an {@code OutOfMemoryError}) still leaves through the lane's
 * exit path: it gives back its permit and the lane replaces it while it runs. A thread that dies
 * before it ever entered {@link #run()} (a thread factory's wrapper that throws first) is found by
 * the health thread ({@link #entered} still false, thread terminated) and cleaned up the same way.
 * {@link #exited} makes that exit happen once.
 */
final class Worker extends WorkerOwnFieldsEnd implements PoolWorker {
  private static final VarHandle RUNNING_TASK;
  private static final VarHandle EXITED;

  static {
    try {
      RUNNING_TASK = MethodHandles.lookup()
          .findVarHandle(WorkerOwnFields.class, "runningTask", int.class);
      EXITED = MethodHandles.lookup().findVarHandle(Worker.class, "exited", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final LaneContext ctx;
  /** The lane's books (null for a bare worker in the ring's tests, as {@code ctx}). */
  final LaneBooks books;
  final WorkerPool pool;
  final PoolWorker.Kind kind;
  volatile Thread thread;

  /** Set when the thread entered {@link #run()}. */
  volatile boolean entered;

  /** Set (by CAS) by whoever runs this worker's exit path, once. */
  @SuppressWarnings("unused") // accessed through EXITED
  private volatile int exited;

  /** A compensation worker's one task (claimed from the queue before the thread started). */
  volatile LaneFuture<?> assigned;

  /** This worker's place in its ring's idle list (the ring's to write). */
  final TaskRing.Idler idler = new TaskRing.Idler();

  /** This worker's run of the task it runs now (reused for every task; see {@link TaskRun}). */
  final TaskRun taskRun;

  /** Where this worker's ring takes leave an entry's stamp and position. */
  final Taken taken = new Taken();

  /**
   * Reused for every plain entry this worker takes (a task given to {@code execute} that rides in
   * the ring without an object of its own), so that the run path has one shape; never escapes
   * the task's run.
   */
  final LaneFuture<?> scratch;

  /** Set by {@link #gateReady}, cleared by the worker before it asks the gate. */
  volatile boolean gateOpened;

  /** Given to the gate as {@code ready} every time (null on a lane without a gate). */
  final Runnable gateReady;

  Worker(LaneContext ctx, LaneBooks books, Admission admission, WorkerPool pool,
      PoolWorker.Kind kind) {
    this.ctx = ctx;
    this.books = books;
    this.pool = pool;
    this.kind = kind;
    this.holdsPermit = kind == PoolWorker.Kind.ELASTIC;
    this.scratch = LaneFuture.scratch(ctx == null ? null : ctx.home);
    this.taskRun = new TaskRun(ctx, books, admission, pool, this);
    this.taken.home(ctx == null ? 0 : ctx.ring.nextHome());
    // (no lane at all: the ring's jcstress tests make bare workers to park in a ring)
    this.gateReady = ctx == null || ctx.gate == null ? null : new Runnable() {
      @Override
      public void run() {
        gateOpened = true;
        Thread t = thread;
        if (t != null) {
          LockSupport.unpark(t);
        }
      }

      @Override
      public String toString() {
        Thread t = thread;
        return "ready[" + (t == null ? ctx.name : t.getName()) + "]";
      }
    };
  }

  @Override
  public void run() {
    entered = true;
    work();
  }

  /** True for the one caller that gets to run this worker's exit path. */
  boolean claimExit() {
    return EXITED.compareAndSet(this, 0, 1);
  }

  /** The thread died without ever running this worker (see the class comment). */
  @Override
  public boolean diedBeforeRunning() {
    Thread t = thread;
    return !entered && t != null && t.getState() == Thread.State.TERMINATED;
  }

  void beginTask() {
    RUNNING_TASK.setRelease(this, 1);
  }

  void endTask() {
    RUNNING_TASK.setRelease(this, 0);
  }

  @Override
  public boolean isRunningTask() {
    return (int) RUNNING_TASK.getAcquire(this) == 1;
  }

  @Override
  public void interruptNow() {
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  // ---------------------------------------------------------------- the loop and a task's run

  /** The worker thread's body: claims a tally, runs its loop, leaves through the exit path. */
  private void work() {
    if (thread == null) {
      thread = Thread.currentThread();
    }
    Throwable abrupt = null;
    try {
      tally = ctx.timings.claim();
      LaneFuture.WaitTracker.enter(this);
      if (ctx.cpuSampleNanos == 0) {
        lastCpu = CpuClock.now();
      }
      nextCpuSampleAt = ctx.ticker.read();
      switch (kind) {
        case CORE -> coreLoop();
        case ELASTIC -> elasticLoop();
        case COMPENSATION -> {
          LaneFuture<?> t = assigned;
          assigned = null;
          if (books.deadlinePassed(t)) {
            books.endUnrun(t, TaskOutcome.EXPIRED);
          } else {
            runTask(taskRun, t, -1);
          }
        }
      }
    } catch (Throwable e) {
      abrupt = e;
      throw e;
    } finally {
      LaneFuture.WaitTracker.exit();
      exitWorker(ctx, this, abrupt);
    }
  }

  /**
   * How long an idle virtual-lane worker keeps its permit, parked in the ring, before it gives the
   * permit back and its thread ends: while tasks keep coming, the lane reuses its threads instead
   * of starting one per burst.
   */
  static final long KEEP_ALIVE_NANOS =
      TimeUnit.MICROSECONDS.toNanos(Long.getLong("lanes.virtualKeepAliveMicros", 200));

  private void coreLoop() {
    Taken tk = taken;
    long lastEnd = -1;
    for (; ; ) {
      int epoch = ctx.ring.epoch(); // before the state and concurrency reads (see TaskRing#await)
      if (pool.coreWorkers.get() > pool.concurrency() && retireIfSurplus()) {
        return;
      }
      int rs = ctx.runState();
      if (rs >= RunState.STOP) {
        return;
      }
      Object x;
      if (ctx.gate == null) {
        x = books.takeLive(tk);
      } else {
        x = takeThroughGate(tk, epoch);
        lastEnd = -1; // the gate's time is the task's queue wait, not its run
        if (x == AGAIN) {
          continue;
        }
      }
      if (x == null) {
        if (rs >= RunState.SHUTDOWN) {
          if (!ctx.ring.hasClaimed()) {
            return; // drained
          }
          Thread.onSpinWait(); // an entry is being published
          continue;
        }
        ctx.ring.await(idler, -1, epoch);
        lastEnd = -1; // we waited: read the clock (and the CPU clock) afresh
        lastCpu = -1;
        continue;
      }
      // Read after the take: a concurrency lowered before it is seen here (see "Live changes").
      if (pool.coreWorkers.get() > pool.concurrency() && retireIfSurplus()) {
        giveBackUnrun(x, tk);
        return;
      }
      lastEnd = runEntry(x, tk, lastEnd);
    }
  }

  private void elasticLoop() {
    Taken tk = taken;
    long lastEnd = -1;
    for (; ; ) {
      int epoch = ctx.ring.epoch();
      if (pool.permits.surplus() && !releasePermitAndRecheck()) {
        return; // the cap was lowered while this worker was idle: this permit goes
      }
      Object x;
      if (ctx.gate == null) {
        x = ctx.runState() >= RunState.STOP ? null : books.takeLive(tk);
      } else {
        x = ctx.runState() >= RunState.STOP ? null : takeThroughGate(tk, epoch);
        lastEnd = -1; // the gate's time is the task's queue wait, not its run
        if (x == AGAIN) {
          if (pool.permits.surplus() && !releasePermitAndRecheck()) {
            return; // the cap was lowered while this worker waited at the gate
          }
          continue;
        }
      }
      if (x == null) {
        if (ctx.runState() == RunState.RUNNING
            && ctx.ring.await(idler, KEEP_ALIVE_NANOS, epoch)) {
          lastEnd = -1; // keeps its permit: tasks keep coming
          continue;
        }
        if (!releasePermitAndRecheck()) {
          return;
        }
        lastEnd = -1;
        continue;
      }
      // Read after the take: a concurrency lowered before it is seen here (see "Live changes").
      if (pool.permits.surplus() && pool.permits.releaseIfSurplus()) {
        holdsPermit = false;
        giveBackUnrun(x, tk);
        if (ctx.runState() >= RunState.STOP || !pool.permits.tryAcquire()) {
          return; // the holders within the limit take it (one idle was woken)
        }
        holdsPermit = true; // a permit came free meanwhile: this worker takes the task again
        lastEnd = -1;
        continue;
      }
      lastEnd = runEntry(x, tk, lastEnd);
      if (pool.permits.surplus() && !releasePermitAndRecheck()) {
        return; // the cap was lowered: this permit goes
      }
    }
  }

  /**
   * Puts an entry this worker took back at the head of the queue, unrun: its permit or thread
   * turned out surplus after a lowered concurrency (a gate's pass goes back unused).
   */
  void giveBackUnrun(Object x, Taken tk) {
    LaneGate.Pass p = pass;
    if (p != null) {
      pass = null;
      pool.exitGate(p, null);
    }
    books.putBack(x, tk);
    if (ctx.runState() >= RunState.STOP) {
      // shutdownNow may have drained the ring before the put-back: nobody else ends it now
      books.endLateEntries(null);
    }
  }

  /** A core worker beyond the lane's concurrency leaves (uncounted); true if this one must. */
  private boolean retireIfSurplus() {
    if (pool.retireIfSurplus()) {
      retired = true;
      return true;
    }
    return false;
  }

  /**
   * Gives this elastic worker's permit back; true if it holds one again and goes on (work arrived
   * that nobody else will pick up).
   */
  private boolean releasePermitAndRecheck() {
    holdsPermit = false;
    holdsPermit = pool.releasePermitAndRecheck();
    return holdsPermit;
  }

  /** Its thread, once the pool made it. */
  @Override
  public void attach(Thread t) {
    thread = t;
  }

  @Override
  public PoolWorker.Kind kind() {
    return kind;
  }

  @Override
  public Thread thread() {
    return thread;
  }

  @Override
  public boolean atGate() {
    return atGate;
  }

  @Override
  public void exitDead() {
    exitWorker(ctx, this, null);
  }

  @Override
  public LaneFuture<?> current() {
    return current;
  }

  @Override
  public boolean entered() {
    return entered;
  }

  @Override
  public boolean idle() {
    return idler.idle();
  }

  @Override
  public LaneFuture<?> waitingOn() {
    return waitingOn;
  }

  @Override
  public boolean waitTimed() {
    return waitTimed;
  }

  @Override
  public void blocksOn(LaneFuture<?> future) {
    ctx.upcalls.workerBlocks(future);
  }

  /** A compensation worker's one task, claimed from the queue before its thread starts. */
  @Override
  public void assign(LaneFuture<?> task) {
    assigned = task;
  }

  /** This worker waits (untimed unless {@code timed}) on {@code future}, or on nothing (null). */
  @Override
  public void waitOn(LaneFuture<?> future, boolean timed) {
    waitTimed = timed;
    waitingOn = future;
  }

  /**
   * Asks the gate for a pass: a pass, null (not now), or {@link LaneGate#REFUSE}. What the gate
   * throws counts as "not now" and sets this worker's back-off (1 ms, doubling to about 1 s,
   * reset by the next answer); it is logged, at most one line per 10 s.
   */
  private LaneGate.Pass enterGate() {
    try {
      LaneGate.Pass p = ctx.gate.tryEnter(gateReady);
      gateFailures = 0;
      gateBackOffNanos = 0;
      return p;
    } catch (Throwable e) {
      int n = Math.min(10, gateFailures++);
      gateBackOffNanos = TimeUnit.MILLISECONDS.toNanos(1L << n);
      pool.warnGate("tryEnter threw; the worker asks again in " + (1L << n) + " ms", e);
      return null;
    }
  }

  /** Returned by {@link #takeThroughGate} when the worker should look again from the top. */
  private static final Object AGAIN = new Object();

  /**
   * Gated lanes: takes the oldest live entry with a pass from the gate (left in {@link #pass}), or
   * returns null (nothing queued; a pass got is given back unused) or {@link #AGAIN} (no pass: the
   * worker waited at the gate; or the gate refused the oldest task, which is ended).
   */
  private Object takeThroughGate(Taken tk, int epoch) {
    if (!ctx.ring.hasClaimed()) {
      return null; // nothing queued: wait as an idle worker does
    }
    gateOpened = false; // before asking: a ready run during the call is not missed
    LaneGate.Pass p = enterGate();
    if (p == null) {
      awaitGate(epoch, gateBackOffNanos);
      return AGAIN;
    }
    if (p == LaneGate.REFUSE) {
      books.refuseOldest(tk);
      return AGAIN;
    }
    pass = p;
    Object x = books.takeLive(tk);
    if (x == null) {
      pass = null;
      pool.exitGate(p, null); // another worker took the task: the pass goes back unused
    }
    return x;
  }

  /**
   * Parks until the gate says a retry may succeed, the ring's wake-all epoch moved, the lane
   * stopped, a shut-down lane has nothing queued, or {@code backOffNanos} passed (if not 0).
   */
  private void awaitGate(int epoch, long backOffNanos) {
    long deadline = backOffNanos == 0 ? 0 : System.nanoTime() + backOffNanos;
    atGate = true; // then re-check everything a waker changes before it reads atGate
    try {
      for (; ; ) {
        int rs = ctx.runState();
        if (gateOpened || ctx.ring.epoch() != epoch || rs >= RunState.STOP
            || (rs == RunState.SHUTDOWN && !ctx.ring.hasClaimed())) {
          return;
        }
        if (backOffNanos == 0) {
          LockSupport.park(ctx.gate);
        } else {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return;
          }
          LockSupport.parkNanos(ctx.gate, left);
        }
        // No task of this worker's is running: an interrupt is shutdownNow's (re-checked above).
        Thread.interrupted();
      }
    } finally {
      atGate = false;
    }
  }

  /** Runs an entry a worker took: its own envelope, or a plain task in the worker's scratch one. */
  private long runEntry(Object x, Taken tk, long lastEnd) {
    if (x instanceof LaneFuture<?> e) {
      if (e.deadline != null && books.deadlinePassed(e)) {
        LaneGate.Pass p = pass;
        if (p != null) {
          pass = null;
          pool.exitGate(p, null); // unused: the task never starts
        }
        books.endUnrun(e, TaskOutcome.EXPIRED);
        return -1;
      }
      return runTask(taskRun, e, lastEnd);
    }
    LaneFuture<?> plain = scratch.fillPlain((Runnable) x, tk.stamp, tk.position + 1);
    long end = runTask(taskRun, plain, lastEnd);
    plain.clearPlain(); // (left in place if the worker dies: its exit path reads it)
    return end;
  }

  /**
   * Runs one task on the current thread, times it and counts its ending; returns the time from
   * which the worker's next task, if it takes one at once, may count as started. {@code w} is null
   * when a caller runs the task (caller-runs policy). {@code startHint} is that time from the
   * worker's previous task (or -1): reusing it saves a clock read, and the task's start then
   * includes the dequeue, tens of nanoseconds. See "Timing" in the class comment for what is whose
   * time, and {@link TaskRun} for the steps.
   */
  static long runTask(TaskRun r, LaneFuture<?> t, long startHint) {
    r.claim(t);             // 1. the task is this thread's: counted started, busy
    r.stamp(startHint);     // 2. its start, and whether its CPU time is read
    r.runCode();            // 3. its own code (what it throws is kept, never rethrown)
    r.classify();           // 4. how it ended: completed, failed or cancelled
    r.record();             // 5. its timings and outcome, in the worker's tally
    r.release();            // 6. not busy; its admission slot and the gate's pass go back
    r.complete();           // 7. its future completes (dependent stages may run here)
    r.publish();            // 8. JFR event, task listeners, the exception handler
    return r.finish();      // 9. the interrupt restored; the time other code took after it
  }

  /**
   * Padding laid out before a {@link TaskRun}'s fields (a superclass's fields come first): a
   * worker writes its run's fields on every task, and the object allocated just before it may be
   * written by another thread (measured: without this, a virtual lane's fast forks ran ≈ 5 %
   * slower than before the run had an object of its own, with it 2.6 %; see BENCHMARKS.md). The
   * int fills the slot after the object header, which a subclass's field could otherwise take.
   */
  @SuppressWarnings("unused")
  abstract static class TaskRunPadding {
    private int q;
    private long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
  }

  /** The fields of a {@link TaskRun}, between its two paddings. */
  abstract static class TaskRunFields extends TaskRunPadding {
    final LaneContext ctx;
    final LaneBooks books;
    /** Told when a task starts (shedding's stretch of long waits). */
    final Admission admission;
    final WorkerPool pool;
    /** The worker, or null on a caller (caller-runs). */
    final Worker w;
    Thread me;
    LaneFuture<?> t;
    /** {@code t} if its future was handed out (it completes it), else null. */
    LaneFuture<?> f;
    LaneFuture.Timed timed;
    boolean callerInterrupted;
    long start;
    long end;
    long cpuStart;
    long cpu;
    LaneEvents.TaskEvent event;
    Throwable failure;
    /** The task decorator never ran the task. */
    boolean notRun;
    /** What reached the worker came from around the task's own code (a failing decorator). */
    boolean decoratorFailed;
    TaskOutcome outcome;
    /** Code that is no task's ran on this thread after the task's end was read. */
    boolean otherCodeRan;
    /** The task listeners, read once per task (step 6) so steps 6 and 8 agree. */
    Consumer<? super TaskRecord>[] listeners;


    TaskRunFields(LaneContext ctx, LaneBooks books, Admission admission, WorkerPool pool,
        Worker w) {
      this.ctx = ctx;
      this.books = books;
      this.admission = admission;
      this.pool = pool;
      this.w = w;
    }
  }

  /**
   * One task's run, in the steps {@link #runTask} calls in order. What one step finds and the next
   * needs lives in the fields (a worker reuses its own instance for every task, so the run path
   * allocates nothing; a caller that runs a task makes one). Touched only by the thread running
   * the task; {@link #finish} clears the references, so nothing of a task outlives its run here.
   */
  static final class TaskRun extends TaskRunFields {
    /** Padding after the fields (see {@link TaskRunPadding}). */
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

    TaskRun(LaneContext ctx, LaneBooks books, Admission admission, WorkerPool pool, Worker w) {
      super(ctx, books, admission, pool, w);
    }

    /** 1. Claim: the task's future says running, it is counted started, the worker is busy. */
    void claim(LaneFuture<?> task) {
      t = task;
      me = Thread.currentThread();
      // A caller keeps its own interrupt status (the task sees it, as with the JDK's caller-runs);
      // a worker's task must not inherit an interrupt meant for an earlier one.
      callerInterrupted = w == null && me.isInterrupted();
      if (w != null && ctx.runState() < RunState.STOP) {
        Thread.interrupted();
      }
      f = task.handedOut ? task : null;
      if (f != null) {
        task.markRunning(me);
      }
      // Counted started before it runs (so before its end is recorded; see TimingBook#read).
      if (w != null && w.tally != null) {
        w.tally.addStarted();
      } else {
        ctx.timings.startedShared();
      }
      if (w != null) {
        w.current = task;
        w.beginTask();
      } // a caller was counted running before it re-read the lane's state (LaneExecutor.overflow)
    }

    /**
     * 2. Stamp: the start (unless a decorator runs around the task: then {@link LaneFuture.Timed}
     * stamps inside it), and whether this run reads the CPU clock (by time: the first task after
     * the interval since this worker's last reading; every task on a caller).
     */
    void stamp(long startHint) {
      timed = t.timed;
      start = -1;
      cpuStart = -1;
      if (timed == null) {
        start = startHint >= 0 ? Math.max(startHint, t.acceptedNanos) : ctx.ticker.read();
        admission.started(start - t.acceptedNanos, ctx.settings);
      }
      boolean sampleCpu = false;
      if (ctx.cpuSampleNanos == 0 || w == null) {
        sampleCpu = ctx.cpuSampleNanos >= 0;
      } else if (ctx.cpuSampleNanos > 0) {
        long at = timed == null ? start : Math.max(startHint, t.acceptedNanos);
        if (at - w.nextCpuSampleAt >= 0) {
          w.nextCpuSampleAt = at + ctx.cpuSampleNanos;
          sampleCpu = true;
        }
      }
      if (timed != null) {
        timed.sampleCpu(sampleCpu);
      } else if (sampleCpu) {
        cpuStart = ctx.cpuSampleNanos == 0 && w != null && w.lastCpu >= 0
            ? w.lastCpu : CpuClock.now();
      }
    }

    /** 3. Run the task's own code; its end (and CPU time) is read as it returns. */
    void runCode() {
      event = LaneEvents.beginTask(); // null while no recording can run
      failure = null;
      try {
        t.work.run();
      } catch (Throwable e) {
        failure = e;
      }
      cpu = -1;
      notRun = false;
      if (timed == null) {
        end = ctx.ticker.read();
        if (cpuStart >= 0) {
          long c = CpuClock.now();
          cpu = Math.max(0, c - cpuStart);
          if (ctx.cpuSampleNanos == 0 && w != null) {
            w.lastCpu = c;
          }
        }
      } else {
        if (w != null) {
          w.lastCpu = -1; // the decorator ran around the task: its CPU is no task's
        }
        if (timed.start >= 0) {
          start = timed.start;
          end = timed.end;
          cpu = timed.cpu();
        } else {
          notRun = true;
          start = end = ctx.ticker.read();
        }
      }
      if (event != null) {
        event.end();
      }
    }

    /** 4. Classify: how the task ended, from its future (if any) and what reached the worker. */
    void classify() {
      if (f != null) {
        t.finishRun(ctx.runState() >= RunState.STOP);
        notRun |= !f.ran();
      }
      // A future keeps what its own task threw, so what reached here came from around it: the
      // task decorator failed (after running the task, or instead of it). The future fails with it.
      decoratorFailed = f != null && failure != null;
      if (notRun && failure == null) {
        failure = new IllegalStateException(
            "lane \"" + ctx.name + "\": the task decorator returned without running " + t);
      }
      if (f != null && f.isDone()) {
        outcome =
            f.isCancelled()
                ? TaskOutcome.CANCELLED
                : f.isCompletedExceptionally() ? TaskOutcome.FAILED : TaskOutcome.COMPLETED;
      } else if (notRun || decoratorFailed || (f == null ? failure != null : f.runFailed())) {
        outcome = TaskOutcome.FAILED;
      } else if (f == null && t.source instanceof java.util.concurrent.Future<?> fut
          && fut.isCancelled()) {
        outcome = TaskOutcome.CANCELLED; // a FutureTask or similar given to execute, cancelled
      } else {
        outcome = TaskOutcome.COMPLETED;
      }
    }

    /** 5. Record: wait, run, CPU and outcome in the worker's own tally (or under the lock). */
    void record() {
      ctx.timings.record(w == null ? null : w.tally, start - t.acceptedNanos, end - start, cpu,
          outcome.ordinal());
      if (cpu >= 0) {
        long waiting = (end - start) - cpu;
        if (waiting < LaneStats.CPU_BOUND_WC * cpu) {
          books.cpuBoundSamples.increment();
        } else if (waiting > ctx.blockingTaskWc * cpu) {
          books.blockingSamples.increment();
        }
      }
    }

    /**
     * 6. Release: the worker is no longer busy and the task's admission slot goes back; on a gated
     * lane the pass goes back too, before the future completes.
     */
    void release() {
      if (w != null) {
        w.endTask();
        w.current = null;
        books.releaseSlot(w.tally);
      } else {
        books.callerEnds();
      }
      // From here on, other code may run on this thread: none of it is this task's time.
      listeners = books.taskListeners();
      otherCodeRan = listeners.length > 0 || (f == null && failure != null);
      if (w != null && w.pass != null) {
        LaneGate.Pass p = w.pass;
        w.pass = null;
        pool.exitGate(p, outcome);
        otherCodeRan = true;
      }
    }

    /**
     * 7. Complete the task's future (its dependent stages may run here). A cancel that won between
     * step 4 and here moves the count from {@code outcome} to CANCELLED, so the books say what the
     * future says.
     */
    void complete() {
      if (f == null) {
        return;
      }
      otherCodeRan |= f.getNumberOfDependents() > 0;
      boolean completed;
      if (f.isDone()) {
        completed = true; // cancelled or completed during the run: outcome says which
      } else if (notRun || decoratorFailed) {
        completed = f.fail(failure);
      } else {
        completed = f.completeFromRun();
      }
      if (!completed && f.isCancelled() && outcome != TaskOutcome.CANCELLED) {
        books.recountAsCancelled(outcome);
        outcome = TaskOutcome.CANCELLED;
      }
      // A stage made from this future before we completed it is visible now (see LaneFuture).
      otherCodeRan |= f.mayRunDependents();
    }

    /**
     * 8. Publish: the JFR event, the task listeners' record, and for a task given to {@code
     * execute} what it threw (the exception handler) or a decorator that never ran it (its
     * foreign future).
     */
    void publish() {
      if (event != null && event.shouldCommit()) {
        event.commit(ctx.name, t.label, t.id, start - t.acceptedNanos, end - start, cpu,
            outcome.tag());
      }
      if (listeners.length > 0) {
        books.publish(listeners, t, me.getName(), start, end, cpu, outcome);
      }
      if (f == null && failure != null) {
        if (notRun) {
          books.endForeign(t, failure);
        } else {
          books.reportFailure(me, failure);
        }
      }
    }

    /**
     * 9. Finish: a caller gets back the interrupt a cancel of its task may have cleared; the time
     * other code took after the task goes to the lane's between-task time. Returns the time the
     * next task on this worker may count as started.
     */
    long finish() {
      if (callerInterrupted && !me.isInterrupted()) {
        me.interrupt();
      }
      long taskEnd = end;
      boolean gap = otherCodeRan;
      if (w != null && end - start >= TaskRing.ROTATE_AFTER_NANOS) {
        w.taken.rotate(); // a long task: the next take looks at the other shards first
      }
      t = null;
      f = null;
      timed = null;
      event = null;
      failure = null;
      outcome = null;
      listeners = null;
      me = null;
      if (!gap) {
        return taskEnd;
      }
      long after = ctx.ticker.read();
      books.betweenTasksNanos.add(Math.max(0, after - taskEnd));
      if (w != null) {
        w.lastCpu = -1; // read the CPU clock afresh for the next task
      }
      return after;
    }
  }

  /**
   * A worker's way out, run once (by the worker, or by the health thread for a thread that died
   * before it ran): ends the task it was running if that had not ended, gives back its permit,
   * replaces it if it ended abruptly while the lane runs, and checks for termination.
   */
  static void exitWorker(LaneContext ctx, Worker w, Throwable abrupt) {
    if (!w.claimExit()) {
      return;
    }
    LaneFuture<?> t = w.current;
    w.current = null;
    w.pool.workers.remove(w);
    ctx.timings.release(w.tally);
    w.tally = null;
    if (w.kind == PoolWorker.Kind.COMPENSATION) {
      w.pool.compensationWorkers.decrementAndGet();
      LaneFuture<?> never = w.assigned; // the thread died before it took its task
      if (never != null) {
        w.assigned = null;
        w.pool.giveBack(never); // still holds its slot
      }
    }
    if (w.holdsPermit) {
      w.holdsPermit = false;
      w.pool.permits.release();
    }
    if (w.kind == PoolWorker.Kind.CORE && !w.retired) {
      w.pool.coreWorkers.decrementAndGet();
    }
    LaneGate.Pass p = w.pass;
    if (p != null) { // died holding a pass: it goes back before the task's future fails
      w.pass = null;
      w.pool.exitGate(p, TaskOutcome.FAILED); // it took a task (an unused pass is cleared first)
    }
    w.pool.liveWorkers.decrementAndGet();
    if (t != null) {
      endAbandoned(ctx, w, t, abrupt);
    }
    if (abrupt != null || w.diedBeforeRunning()) {
      w.pool.replace(w, abrupt);
    }
    ctx.upcalls.tryTerminate();
  }

  /** The task a dying worker was running: end it failed, count it, give its slot back. */
  private static void endAbandoned(LaneContext ctx, Worker w, LaneFuture<?> t, Throwable abrupt) {
    w.endTask();
    w.books.releaseSlot();
    w.books.failedElsewhere.increment();
    Throwable why = abrupt != null ? abrupt
        : new IllegalStateException(
            "lane \"" + ctx.name + "\": the worker running " + t + " died");
    if (t.handedOut) {
      t.fail(why);
    } else {
      ForeignFutures.completeExceptionally(t.source, why);
    }
  }
}

/** Padding before a {@link Worker}'s own fields: its header and the object before it. */
abstract class WorkerPadding {
  @SuppressWarnings("unused")
  private int q00; // fills the gap after the header, so the fields start after the padding
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The fields a {@link Worker} writes on every task (or wait, or visit to the gate), between two
 * paddings: other threads only read them, and nothing another thread writes shares their lines
 * (see LayoutTest).
 */
abstract class WorkerOwnFields extends WorkerPadding {
  /** This worker's own timing tally (single writer), or null to record under the shared lock. */
  TimingBook.Tally tally;

  volatile LaneFuture<?> waitingOn;
  /** The wait on {@code waitingOn} has a timeout; written before {@code waitingOn}. */
  boolean waitTimed;

  /**
   * An elastic worker holds a permit (from its start: the pool took it for it); touched only by
   * its own thread (and its exit path).
   */
  boolean holdsPermit;

  /** The task this worker runs now, for the exit path of a worker that dies inside it. */
  LaneFuture<?> current;

  /** 1 while this worker runs a task; written by the worker with release stores (no fence). */
  @SuppressWarnings("unused") // accessed through Worker.RUNNING_TASK
  int runningTask;

  /** CPU reading at the end of the previous task (every-task timing), or -1. */
  long lastCpu = -1;

  /** On the lane's ticker, when this worker may next read its CPU time (time-bounded sampling). */
  long nextCpuSampleAt;

  /** A core worker that left because the lane's concurrency was lowered (already uncounted). */
  boolean retired;

  /** The gate's pass for the task this worker runs (gated lanes), or null; the worker's own. */
  LaneGate.Pass pass;

  /** True while this worker parks at the gate; read by {@link WorkerPool#wakeGateWaiters}. */
  volatile boolean atGate;

  /** Consecutive times the gate threw, and the wait before asking again; the worker's own. */
  int gateFailures;
  long gateBackOffNanos;

  // Fills the last gap before the padding, where the JVM would otherwise put a field of Worker's.
  @SuppressWarnings("unused")
  private int q01;
}

/** Padding after a {@link Worker}'s own fields: the rest of it is read or written by others. */
abstract class WorkerOwnFieldsEnd extends WorkerOwnFields {
  @SuppressWarnings("unused")
  private long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;
}
