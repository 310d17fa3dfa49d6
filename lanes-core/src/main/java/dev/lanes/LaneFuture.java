package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One accepted task on its way through a lane — the one object lanes makes for it: what to run,
 * its label and acceptance time, its state, and, for a task given to {@code submit}, the {@link
 * CompletableFuture} the caller holds ({@link #handedOut}). A labelled, decorated or JDK-async task
 * given to {@code execute} gets one too, which nobody outside sees; a plain {@code
 * execute(Runnable)} gets none (it rides in the {@link TaskRing} with its stamp, and the worker
 * runs it through a scratch instance of this class it reuses).
 *
 * <p><b>Concurrency design.</b> Ownership of a queued task goes to the one party whose CAS moves
 * {@code state} out of QUEUED: a worker that took its entry from the ring, a canceller, the
 * deadlock breaker, or a compensation thread. That party counts the task, so counts never double.
 * An entry whose task left QUEUED another way stays in the ring as a dead entry until someone
 * takes it, sees the CAS fail, and drops it (the lane counts dead entries).
 *
 * <pre>
 *   QUEUED ──taken from the ring──▶ TAKEN ──starts──▶ RUNNING ──▶ DONE
 *     │  ▲                            │                 └─ INTERRUPTING ─▶ INTERRUPTED ─▶ DONE
 *     │  └── given back (a compensation thread that could not start)   (cancel(true) while running)
 *     │                               └── a decorator that never ran it ──▶ DONE
 *     ├──cancelled / claimed while queued, or refused at submission──▶ DEAD
 *     └──run by its caller (caller-runs)──▶ RUNNING
 * </pre>
 *
 * Who makes each move, and the four methods through which a task ends (each gives its slot back,
 * counts it and ends its future once): DESIGN.md, "A task's life".
 *
 * The worker publishes RUNNING (after writing {@code runner}) with a release store; a canceller
 * interrupts only after its CAS RUNNING → INTERRUPTING, and the worker's finish waits out an
 * interrupt in progress and clears the flag, so the interrupt never reaches the next task.
 *
 * <p>As a future, completion is CompletableFuture's own (a CAS on its result), so whoever completes
 * first wins: the task, a canceller, or a deadlock breaker; only the lane completes it (the public
 * completion methods refuse, see {@link LaneStage}). {@code get}/{@code join} register the waiting
 * thread with the {@link WaitTracker}, so the lane can see a worker of its own waiting on a task
 * still queued (the nested-submission deadlock).
 */
final class LaneFuture<T> extends LaneStage<T> implements RunnableFuture<T>, NumberedEntry {
  static final int QUEUED = 0;
  static final int TAKEN = 1;
  static final int RUNNING = 2;
  static final int INTERRUPTING = 3;
  static final int INTERRUPTED = 4;
  static final int DONE = 5;
  static final int DEAD = 6;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(LaneFuture.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The lane as its tasks' futures know it: the default executor of their dependent stages, and
   * the one told when a queued task's future is cancelled. The lane implements it; nothing here
   * knows more of the lane.
   */
  interface Home extends Executor {
    /** The lane's name. */
    String name();

    /** {@code f}'s task was cancelled while queued (its ring entry is dead now). */
    void cancelledWhileQueued(LaneFuture<?> f);

    /** No worker or permit is free to start a queued task (a worker blocking on one may be stuck). */
    boolean noFreeCapacity();
  }

  /** A future {@code submit} returned (else: lanes' own record of a task given to execute). */
  final boolean handedOut;

  /** The lane accepted this future (it went through submit; not a newTaskFor run elsewhere). */
  boolean accepted;

  // Written before the task enters the ring (whose release store publishes them); a worker's
  // scratch instance is refilled per plain task by its owner only.
  /** What the worker calls: this future, or the task given to execute; decorated if asked. */
  Runnable work;
  /** The undecorated task given to {@code execute} (to reach a foreign future); else null. */
  Runnable source;
  String label = "";
  /**
   * Its number: position in its ring shard + 1 + the shard's base ({@link RingShard}, "Numbers");
   * 0 if it never entered the ring.
   */
  long id;
  long acceptedNanos;
  /**
   * For a JDK async task ({@code CompletableFuture.runAsync/supplyAsync}) given to {@code execute}
   * by one of the lane's own workers, that worker (evidence for a suspected deadlock, see {@link
   * Deadlocks}); else null.
   */
  Object submitter;
  /**
   * With a task decorator, the innermost wrapper around the task, which stamps the task's own
   * start and end (so the decorator's capture and restore are no task's time); else null.
   */
  Timed timed;
  /** Its deadline to start ({@link Lane#submit(String, java.time.Duration, Callable)}); else null. */
  Deadline deadline;
  /**
   * The thread running the task. A plain field: written before the release store of RUNNING, and
   * read only by a canceller whose CAS from RUNNING saw that store.
   */
  Thread runner;

  @SuppressWarnings("unused") // accessed through STATE
  private volatile int state;

  // The submitted task and what it left (handed-out futures only).
  private Callable<? extends T> callable;
  private Runnable runnable;
  private T result;
  private Throwable failure;
  /** The task's own code was called (its result or failure is kept); written by the runner. */
  private boolean ran;
  /**
   * A dependent stage was made from this future ({@link #newIncompleteFuture}), so completing it
   * may run other code on the completing thread. Set before the stage is pushed, so a worker that
   * completes the future and ran that stage also sees this flag.
   */
  private volatile boolean dependentsMade;

  LaneFuture(Home lane, Callable<? extends T> callable) {
    super(lane);
    this.handedOut = true;
    this.callable = callable;
  }

  LaneFuture(Home lane, Runnable runnable, T result) {
    super(lane);
    this.handedOut = true;
    this.runnable = runnable;
    this.result = result;
  }

  private LaneFuture(Home lane) {
    super(lane);
    this.handedOut = false;
  }

  /** Lanes' record of a task given to {@code execute} (labelled, decorated or JDK-async). */
  static LaneFuture<Void> internal(
      Home lane, Runnable work, Runnable source, String label, long acceptedNanos) {
    return internal(lane, work, source, label, acceptedNanos, null, null);
  }

  /**
   * As {@link #internal(Home, Runnable, Runnable, String, long)}, decorated ({@code
   * timed}) or submitted by a worker of a lane ({@code submitter}, for a JDK async task).
   */
  static LaneFuture<Void> internal(Home lane, Runnable work, Runnable source,
      String label, long acceptedNanos, Timed timed, Object submitter) {
    LaneFuture<Void> f = new LaneFuture<>(lane);
    f.work = work;
    f.source = source;
    f.label = label;
    f.acceptedNanos = acceptedNanos;
    f.timed = timed;
    f.submitter = submitter;
    f.accepted = true;
    return f;
  }

  /** The task's number (its ring position plus one, or negative for one that never entered). */
  void number(long id) {
    this.id = id;
  }

  /** Numbers the task by the ring position it first took, unless it has a number already. */
  @Override
  public void numberIfNew(long id) {
    if (this.id == 0) {
      this.id = id;
    }
  }

  /** Its wait in the queue starts again at {@code acceptedNanos} (it waited for room first). */
  void restamp(long acceptedNanos) {
    this.acceptedNanos = acceptedNanos;
  }

  /** A submitted future, about to enter the lane. */
  void prepare(Runnable work, String label, long acceptedNanos, Timed timed) {
    this.work = work;
    this.label = label;
    this.acceptedNanos = acceptedNanos;
    this.timed = timed;
    this.accepted = true;
  }

  /** An instance a worker refills for each plain entry it takes. */
  static LaneFuture<Void> scratch(Home lane) {
    LaneFuture<Void> f = new LaneFuture<>(lane);
    f.accepted = true;
    return f;
  }

  /** Refills a worker's scratch instance for a plain entry (owned by that worker). */
  LaneFuture<T> fillPlain(Runnable task, long acceptedNanos, long id) {
    this.work = task;
    this.source = task;
    this.acceptedNanos = acceptedNanos;
    this.id = id;
    return this;
  }

  /** Forgets a scratch instance's task once it ended. */
  void clearPlain() {
    this.work = null;
    this.source = null;
  }

  Home lane() {
    return lane;
  }

  int taskState() {
    return state;
  }

  /** Takes ownership of a queued task (the ring entry becomes dead if this is not its taker). */
  boolean tryTake() {
    return STATE.compareAndSet(this, QUEUED, TAKEN);
  }

  /** Ends a queued task here: cancelled or claimed (its ring entry is dead from now on). */
  boolean tryKill() {
    return STATE.compareAndSet(this, QUEUED, DEAD);
  }

  /**
   * The lane refused this task at submission (it was never accepted): its state leaves QUEUED for
   * good, so a later {@code cancel} (the JDK's {@code invokeAll} cancels every future when one
   * is refused) neither gives back a slot it never held nor counts it a second time.
   */
  void refuse() {
    STATE.compareAndSet(this, QUEUED, DEAD);
  }

  /**
   * Appended a second time by a give-back ({@link WorkerPool#giveBack}), whose caller is no
   * submitter waiting to hear of it: written before that append, whose release store publishes it.
   */
  boolean givenBack;

  /** Back in the ring after a compensation thread could not run it (before it is appended). */
  void backToQueue() {
    givenBack = true;
    state = QUEUED;
  }

  /** A worker that took this task puts it back in the queue unrun (its permit was surplus). */
  void untake() {
    STATE.setRelease(this, QUEUED);
  }

  /** The worker that took this task starts it. */
  void markRunning(Thread thread) {
    runner = thread;
    STATE.setRelease(this, RUNNING);
  }

  boolean interruptIfRunning() {
    if (STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
      try {
        Thread t = runner;
        if (t != null) {
          t.interrupt();
        }
      } finally {
        state = INTERRUPTED;
      }
      return true;
    }
    return false;
  }

  void finishRun(boolean keepInterrupt) {
    if (state == TAKEN) {
      state = DONE; // never started (a decorator that did not run it): no interrupt can be aimed
      runner = null;
      return;
    }
    if (!STATE.compareAndSet(this, RUNNING, DONE)) {
      while (state == INTERRUPTING) {
        Thread.onSpinWait();
      }
      if (!keepInterrupt) {
        Thread.interrupted();
      }
      state = DONE;
    }
    runner = null;
  }

  /**
   * Runs the task. Inside a lane it only keeps the result, and {@link #completeFromRun()}
   * publishes it after the lane has counted and timed the task, so whoever sees this future
   * complete also sees the task in the lane's stats. A future made by {@code newTaskFor} and run by
   * someone else (e.g. the JDK's {@code ExecutorCompletionService}) completes itself, like a {@code
   * FutureTask}. Does nothing if already done (cancelled). Lanes' record of an executed task just
   * runs it.
   *
   * <p>A future the lane accepted runs only on the lane's own path (its state RUNNING on this
   * thread); a call from anywhere else — the future given back to {@code execute} as a {@code
   * Runnable}, say — does nothing, like {@code FutureTask.run} on a task another thread runs: the
   * lane runs the task once and completes the future.
   */
  @Override
  public void run() {
    if (!handedOut) {
      work.run();
      return;
    }
    if (accepted && (state != RUNNING || runner != Thread.currentThread())) {
      return;
    }
    runAndKeep();
    if (!accepted) {
      completeFromRun();
    }
  }

  private void runAndKeep() {
    if (isDone()) {
      return;
    }
    ran = true;
    try {
      if (callable != null) {
        result = callable.call();
      } else {
        runnable.run();
      }
    } catch (Throwable t) {
      failure = t;
    } finally {
      callable = null;
      runnable = null;
    }
  }

  /** True if the last run threw. */
  boolean runFailed() {
    return failure != null;
  }

  /** True if the task's own code was called. */
  boolean ran() {
    return ran;
  }

  /** True if completing this future may run dependent stages on the completing thread. */
  boolean mayRunDependents() {
    return dependentsMade || getNumberOfDependents() > 0;
  }

  /** Completes with the kept result; false if the future was already completed (cancelled). */
  boolean completeFromRun() {
    Throwable f = failure;
    T r = result;
    failure = null;
    result = null;
    return f != null ? fail(f) : succeed(r);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled && accepted) {
      if (tryKill()) {
        lane.cancelledWhileQueued(this);
      } else if (mayInterruptIfRunning) {
        interruptIfRunning();
      }
    }
    return cancelled;
  }

  @Override
  public T get() throws InterruptedException, ExecutionException {
    if (isDone()) {
      return super.get();
    }
    WaitTracker.Registration r = WaitTracker.beforeWait(this, hasTimeout);
    try {
      return super.get();
    } finally {
      WaitTracker.afterWait(r);
    }
  }

  @Override
  public T get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (isDone()) {
      return super.get(timeout, unit);
    }
    WaitTracker.Registration r = WaitTracker.beforeWait(this, true);
    try {
      return super.get(timeout, unit);
    } finally {
      WaitTracker.afterWait(r);
    }
  }

  @Override
  public T join() {
    if (isDone()) {
      return super.join();
    }
    WaitTracker.Registration r = WaitTracker.beforeWait(this, hasTimeout);
    try {
      return super.join();
    } finally {
      WaitTracker.afterWait(r);
    }
  }

  /** A stage made from this future may run on the thread that completes it. */
  @Override
  void onDependent() {
    dependentsMade = true;
  }

  /**
   * A task's deadline to start: the ticker reading by which it must have started, what its
   * submitter gave, and the timer that ends it if it is still queued then. Written before the
   * task enters the ring, except {@link #timer}, set just after (see {@link #armTimer}).
   */
  static final class Deadline {
    /** The ticker reading by which the task must start. */
    final long dueNanos;
    /** How long from its submission it had to start. */
    final long withinNanos;
    /** The timer that expires the task if still queued; set once, after the task is queued. */
    private volatile java.util.concurrent.ScheduledFuture<?> timer;

    Deadline(long dueNanos, long withinNanos) {
      this.dueNanos = dueNanos;
      this.withinNanos = withinNanos;
    }

    /** True if a task not yet started at ticker reading {@code now} must not start. */
    boolean passed(long now) {
      return now - dueNanos >= 0;
    }
  }

  /**
   * Gives this task, not yet queued, a deadline to start: the ticker reading {@code dueNanos},
   * {@code withinNanos} after its submission.
   */
  void mustStartBy(long dueNanos, long withinNanos) {
    deadline = new Deadline(dueNanos, withinNanos);
  }

  /**
   * Sets the timer that expires this queued task at its deadline; the submitter calls it once the
   * task is queued. Whoever moves the task out of QUEUED reads the timer after its CAS ({@link
   * #stopDeadlineTimer}), and this re-reads the state after it wrote the timer: of two such
   * volatile accesses in opposite order at least one sees the other, so a task that left the
   * queue meanwhile never keeps a timer until its deadline.
   */
  void armTimer(java.util.concurrent.ScheduledFuture<?> timer) {
    deadline.timer = timer;
    if (state != QUEUED) {
      timer.cancel(false);
    }
  }

  /** The task left the queue (it starts, or ended unrun): its deadline's timer, if any, stops. */
  void stopDeadlineTimer() {
    Deadline d = deadline;
    if (d != null) {
      java.util.concurrent.ScheduledFuture<?> t = d.timer;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  static final class Timed implements Runnable {
    final Runnable task;
    private final Ticker ticker;
    boolean sampleCpu;
    long start = -1;
    long end = -1;
    private long cpuStart = -1;
    private long cpuEnd = -1;

    /** Whether this run reads the CPU clock (decided by the worker before it runs). */
    void sampleCpu(boolean sample) {
      sampleCpu = sample;
    }

    Timed(Runnable task, Ticker ticker) {
      this.task = task;
      this.ticker = ticker;
    }

    @Override
    public void run() {
      if (sampleCpu) {
        cpuStart = CpuClock.now();
      }
      start = ticker.read();
      try {
        task.run();
      } finally {
        end = ticker.read();
        if (sampleCpu) {
          cpuEnd = CpuClock.now();
        }
      }
    }

    /** CPU time of the task's own run, or -1 if not sampled. */
    long cpu() {
      return cpuStart >= 0 && cpuEnd >= 0 ? Math.max(0, cpuEnd - cpuStart) : -1;
    }
  }

  @Override
  public String toString() {
    String what = "task " + id + (label.isEmpty() ? "" : " (" + label + ")") + " of lane \""
        + (lane == null ? "?" : lane.name()) + '"';
    return handedOut ? what + " " + super.toString() : what;
  }

  /**
   * Knows which lane worker, if any, the current thread is, so that a lanes future's {@code get} or
   * {@code join} can tell its lane "a worker of yours now waits on this future". A thread that is no
   * lane worker pays one thread-local read per blocking wait; nothing is done for a future that is
   * already complete.
   *
   * <p>A timed wait ({@code get(timeout, unit)}) is registered too, but marked timed: it ends by
   * itself, so it never proves a deadlock.
   */
  static final class WaitTracker {

    /** A thread whose waits are tracked: a lane's worker. */
    interface Waiter {
      /** The future this worker waits on now, or null. */
      LaneFuture<?> waitingOn();

      /** The wait on {@link #waitingOn} has a timeout. */
      boolean waitTimed();

      /** Records the wait on {@code future} (null: none). */
      void waitOn(LaneFuture<?> future, boolean timed);

      /** About to block with no timeout on {@code future}: the lane checks for a deadlock now. */
      void blocksOn(LaneFuture<?> future);
    }

    private static final ThreadLocal<Waiter> CURRENT = new ThreadLocal<>();

    private WaitTracker() {}

    record Registration(Waiter waiter, LaneFuture<?> previous, boolean previousTimed) {}

    static void enter(Waiter w) {
      CURRENT.set(w);
    }

    static void exit() {
      CURRENT.remove();
    }

    /** The worker the current thread is, or null. */
    static Waiter current() {
      return CURRENT.get();
    }

    static Registration beforeWait(LaneFuture<?> future, boolean timed) {
      Waiter w = CURRENT.get();
      if (w == null) {
        return null;
      }
      Registration r = new Registration(w, w.waitingOn(), w.waitTimed());
      w.waitOn(future, timed);
      if (!timed) {
        w.blocksOn(future);
      }
      return r;
    }

    static void afterWait(Registration r) {
      if (r != null) {
        r.waiter().waitOn(r.previous(), r.previousTimed());
      }
    }
  }
}

class LaneStage<T> extends CompletableFuture<T> {
  private static final java.util.concurrent.ScheduledThreadPoolExecutor TIMER = timer();

  final LaneFuture.Home lane;

  /** A timeout was set on this future: waits on it end by themselves. */
  volatile boolean hasTimeout;

  LaneStage(LaneFuture.Home lane) {
    this.lane = lane;
  }

  /** Timers scheduled and not yet run or removed (for tests: cancelled ones are removed). */
  static int scheduledTimers() {
    return TIMER.getQueue().size();
  }

  /** Runs {@code action} on the futures' timer thread after {@code nanos}. */
  static java.util.concurrent.ScheduledFuture<?> schedule(Runnable action, long nanos) {
    return TIMER.schedule(action, nanos, TimeUnit.NANOSECONDS);
  }

  private static java.util.concurrent.ScheduledThreadPoolExecutor timer() {
    java.util.concurrent.ScheduledThreadPoolExecutor t =
        new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
          Thread th = new Thread(null, r, "lanes-future-timer", 0, false);
          th.setDaemon(true);
          return th;
        });
    t.setRemoveOnCancelPolicy(true);
    t.setKeepAliveTime(10, TimeUnit.SECONDS);
    t.allowCoreThreadTimeOut(true);
    return t;
  }

  /** Completes with a value; for the lane only. */
  final boolean succeed(T value) {
    return super.complete(value);
  }

  /** Completes exceptionally; for the lane only. */
  final boolean fail(Throwable failure) {
    return super.completeExceptionally(failure);
  }

  private UnsupportedOperationException refused(String method) {
    return new UnsupportedOperationException("lane \"" + lane.name() + "\": " + method
        + " is refused: only the lane completes its futures (make your own CompletableFuture and"
        + " complete it from this one's whenComplete if you need one you can complete)");
  }

  @Override
  public boolean complete(T value) {
    throw refused("complete");
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    throw refused("completeExceptionally");
  }

  @Override
  public void obtrudeValue(T value) {
    throw refused("obtrudeValue");
  }

  @Override
  public void obtrudeException(Throwable ex) {
    throw refused("obtrudeException");
  }

  @Override
  public CompletableFuture<T> completeAsync(java.util.function.Supplier<? extends T> supplier) {
    throw refused("completeAsync");
  }

  @Override
  public CompletableFuture<T> completeAsync(
      java.util.function.Supplier<? extends T> supplier, Executor executor) {
    throw refused("completeAsync");
  }

  @Override
  public CompletableFuture<T> orTimeout(long timeout, TimeUnit unit) {
    java.util.Objects.requireNonNull(unit, "unit");
    hasTimeout = true;
    if (!isDone()) {
      var timer = TIMER.schedule(
          () -> fail(new TimeoutException()), timeout, unit);
      whenComplete((r, e) -> timer.cancel(false));
    }
    return this;
  }

  @Override
  public CompletableFuture<T> completeOnTimeout(T value, long timeout, TimeUnit unit) {
    java.util.Objects.requireNonNull(unit, "unit");
    hasTimeout = true;
    if (!isDone()) {
      var timer = TIMER.schedule(() -> succeed(value), timeout, unit);
      whenComplete((r, e) -> timer.cancel(false));
    }
    return this;
  }

  @Override
  public Executor defaultExecutor() {
    return lane;
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    onDependent();
    return new LaneStage<>(lane);
  }

  /** Told when a dependent stage is made from this future. */
  void onDependent() {}
}
