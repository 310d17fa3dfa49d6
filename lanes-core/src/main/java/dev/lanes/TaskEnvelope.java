package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted task on its way through a lane: what to run, its label, id and acceptance time, and
 * its future (null for {@code execute}).
 *
 * <p><b>Concurrency design.</b> Ownership of a queued task goes to the one party whose CAS moves
 * {@code state} out of QUEUED: a worker that took the entry from the ring, a canceller, the
 * deadlock breaker, or a compensation thread. That party counts the task, so counts never double.
 * An entry whose task left QUEUED another way stays in the {@link TaskRing} as a dead entry until
 * someone takes it, sees the CAS fail, and drops it (the lane counts dead entries).
 *
 * <pre>
 *   QUEUED ──taken from the ring──▶ TAKEN ──starts──▶ RUNNING ──▶ DONE
 *     │                                                  └─ INTERRUPTING ─▶ INTERRUPTED
 *     └──cancelled / claimed while queued──▶ DEAD              (cancel(true) while running)
 * </pre>
 *
 * The worker publishes RUNNING (after writing {@code runner}) with a release store; a canceller
 * interrupts only after its CAS RUNNING → INTERRUPTING, and the worker's finish waits out an
 * interrupt in progress and clears the flag.
 *
 * <p>{@link #run()} is for callers of {@code shutdownNow()}: running a returned task runs its work
 * on the caller's thread and completes its future.
 */
final class TaskEnvelope implements Runnable {
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
      STATE = MethodHandles.lookup().findVarHandle(TaskEnvelope.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final LaneExecutor lane;
  // Not final only so that a worker's scratch envelope can be refilled (see Worker#scratch); an
  // envelope that goes through the ring is written once, before the ring's release store.
  Runnable work;
  LaneFuture<?> future;
  String label;
  /** Position in the ring + 1 (set when appended), or 0 if it never entered the ring. */
  long id;
  long acceptedNanos;
  /**
   * The thread running the task. A plain field: written before the release store of RUNNING, and
   * read only by a canceller whose CAS from RUNNING saw that store.
   */
  Thread runner;

  /** The undecorated task given to {@code execute} (to reach a foreign future); else null. */
  Runnable source;

  /**
   * With a task decorator, the innermost wrapper around the task, which stamps the task's own
   * start and end (so the decorator's capture and restore are no task's time); else null.
   */
  Timed timed;

  @SuppressWarnings("unused") // accessed through STATE
  private volatile int state;

  TaskEnvelope(
      LaneExecutor lane,
      Runnable work,
      LaneFuture<?> future,
      String label,
      long id,
      long acceptedNanos) {
    this.lane = lane;
    this.work = work;
    this.future = future;
    this.label = label;
    this.id = id;
    this.acceptedNanos = acceptedNanos;
  }

  /** An envelope a worker refills for each plain entry it takes. */
  static TaskEnvelope scratch(LaneExecutor lane) {
    return new TaskEnvelope(lane, null, null, "", 0, 0);
  }

  /** Refills a worker's scratch envelope for a plain entry (owned by that worker: TAKEN). */
  TaskEnvelope fillPlain(Runnable task, long acceptedNanos, long id) {
    this.work = task;
    this.source = task;
    this.acceptedNanos = acceptedNanos;
    this.id = id;
    return this;
  }

  /** Forgets a scratch envelope's task once it ended. */
  void clearPlain() {
    this.work = null;
    this.source = null;
  }

  int state() {
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

  /** Back in the ring after a compensation thread could not run it (before it is appended). */
  void backToQueue() {
    state = QUEUED;
  }

  /** The worker that took this task starts it. */
  void markRunning(Thread thread) {
    runner = thread;
    STATE.setRelease(this, RUNNING);
  }

  /** Called by the future after it was cancelled. */
  void onFutureCancelled(boolean mayInterruptIfRunning) {
    if (tryKill()) {
      lane.cancelledWhileQueued(this);
    } else if (mayInterruptIfRunning) {
      interruptIfRunning();
    }
  }

  /** Interrupts the runner only while this task runs (see the class comment); true if it did. */
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

  /** The worker's end of the run; absorbs an interrupt aimed at this task. */
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

  @Override
  public void run() {
    work.run();
    if (future != null) {
      future.completeFromRun();
    }
  }

  /**
   * Runs the task between two clock reads (and, when asked, two CPU-clock reads). The worker that
   * runs the decorated task reads the stamps after the decorator returns; a start of -1 means the
   * decorator never ran the task.
   */
  static final class Timed implements Runnable {
    final Runnable task;
    private final Ticker ticker;
    boolean sampleCpu;
    long start = -1;
    long end = -1;
    private long cpuStart = -1;
    private long cpuEnd = -1;

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
    return "task " + id + (label.isEmpty() ? "" : " (" + label + ")") + " of lane \"" + lane.name()
        + '"';
  }
}
