package dev.lanes.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted task on its way through a lane: what to run, its label, id and acceptance time, and
 * its future (null for {@code execute}).
 *
 * <p><b>Concurrency design.</b> {@code state} moves by CAS and decides who owns the task's ending:
 *
 * <pre>
 *   QUEUED ──worker claims──▶ RUNNING ──▶ DONE
 *     │                          │  ▲
 *     │ cancel / drop            │  └─ INTERRUPTING ─▶ INTERRUPTED (cancel(true) while running)
 *     ▼                          │
 *   CANCELLED / DROPPED          └ worker's finish waits out an interrupt in progress, then clears
 *                                  the flag, so an interrupt aimed at this task never reaches the
 *                                  next one on the same thread
 * </pre>
 *
 * Exactly one party wins QUEUED → anything, and that party counts the task, so counts never
 * double.
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
  static final int CANCELLED = 5;
  static final int DROPPED = 6;

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
   * The thread running the task. A plain field: written before the claiming CAS publishes
   * RUNNING, and read only by a canceller whose CAS from RUNNING saw that publication.
   */
  Thread runner;

  /** The undecorated task given to {@code execute} (to reach a foreign future); else null. */
  Runnable source;

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

  boolean claim(Thread thread) {
    runner = thread;
    return STATE.compareAndSet(this, QUEUED, RUNNING);
  }

  /** Queued → cancelled; true if this call owns the cancellation. */
  boolean cancelQueued() {
    return STATE.compareAndSet(this, QUEUED, CANCELLED);
  }

  /** Queued → dropped (discard-oldest, shutdownNow, late rejection); true if this call owns it. */
  boolean drop() {
    return STATE.compareAndSet(this, QUEUED, DROPPED);
  }

  /** Called by the future after it was cancelled. */
  void onFutureCancelled(boolean mayInterruptIfRunning) {
    if (cancelQueued()) {
      lane.cancelledWhileQueued(this);
    } else if (mayInterruptIfRunning && STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
      try {
        Thread t = runner;
        if (t != null) {
          t.interrupt();
        }
      } finally {
        state = INTERRUPTED;
      }
    }
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

  @Override
  public String toString() {
    return "task " + id + (label.isEmpty() ? "" : " (" + label + ")") + " of lane \"" + lane.name()
        + '"';
  }
}
