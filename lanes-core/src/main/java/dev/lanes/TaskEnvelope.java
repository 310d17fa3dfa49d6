package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted task on its way through a lane: what to run, its label, id and acceptance time, and
 * its future (null for {@code execute}).
 *
 * <p><b>Concurrency design.</b> Ownership of a queued task goes to whoever takes it out of the
 * lane's queue — a worker's {@code poll}, or a {@code remove} by a canceller, a submitter taking
 * its task back, {@code shutdownNow}, discard-oldest or the deadlock breaker. The queue's lock
 * makes that exactly one party, and that party counts the task, so counts never double and no
 * compare-and-set is needed on the hot path.
 *
 * <p>{@code state} matters only for tasks with a future, to interrupt a running task on {@code
 * cancel(true)} without the interrupt reaching the next task on the same thread:
 *
 * <pre>
 *   QUEUED ──worker starts it──▶ RUNNING ──▶ DONE
 *                                   └─ INTERRUPTING ─▶ INTERRUPTED (cancel(true) while running)
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
  static final int RUNNING = 1;
  static final int INTERRUPTING = 2;
  static final int INTERRUPTED = 3;
  static final int DONE = 4;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(TaskEnvelope.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final LaneExecutor lane;
  final Runnable work;
  final LaneFuture<?> future;
  final String label;
  final long id;
  final long acceptedNanos;
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

  int state() {
    return state;
  }

  /** The worker that took this task from the queue starts it (futures only). */
  void markRunning(Thread thread) {
    runner = thread;
    STATE.setRelease(this, RUNNING);
  }

  /** Called by the future after it was cancelled. */
  void onFutureCancelled(boolean mayInterruptIfRunning) {
    if (lane.queue.remove(this)) {
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
