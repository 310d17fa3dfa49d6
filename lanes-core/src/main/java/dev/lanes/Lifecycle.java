package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lane's lifecycle: shutdown, shutdown-now, termination and waiting for it.
 *
 * <p><b>Concurrency design.</b> The lane's {@link #runState} (a volatile read on every
 * submission and by every worker loop) only moves forward — RUNNING → SHUTDOWN →
 * STOP → TERMINATED — and only here, under {@link #lock}. Submitters never take the lock: a
 * submitter re-checks the state after it appends (see {@link LaneExecutor}), so a task accepted
 * while a shutdown races it is either run or taken back and ended. TERMINATED is set once, under
 * the lock, when no worker is alive, no caller runs a task (caller-runs), and either STOP, or the ring is empty and every accepted task
 * has ended ({@code unfinished == 0}); whoever might be the last to make that true calls {@link
 * #tryTerminate()}: a worker as it exits, whoever gives back the last slot of a shutting-down
 * lane, a cancel of a queued task, and the shutdown calls themselves.
 *
 * <p>With a gate, {@code shutdown} still lets queued tasks pass it as it opens; once a shut-down
 * lane's ring is empty, {@link #tryTerminate()} unparks the workers still waiting at the gate so
 * they leave; {@code shutdownNow} interrupts them like every worker.
 *
 * <p><b>Invariants.</b> {@code runState} never decreases; {@link #terminated} is signalled
 * exactly when TERMINATED is set; the health thread stops watching the lane then.
 *
 * <p><b>Failure model.</b> The only user code run here is what cancelling a handed-back task's
 * future runs (its dependent stages, whose failures stay in their own futures) and the task
 * listeners told of it (a listener that throws is logged, the next task is still handed back).
 */
final class Lifecycle {
  static final int RUNNING = 0;
  static final int SHUTDOWN = 1;
  static final int STOP = 2;
  static final int TERMINATED = 3;

  /**
   * The lane's state, read on every submission and by every worker loop; moves only forward and
   * only here, under {@link #lock}.
   */
  volatile int runState = RUNNING;

  private final LaneContext ctx;
  /** Guards writes of {@code runState} and the TERMINATED transition. */
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled, under {@link #lock}, when the lane terminates. */
  private final Condition terminated = lock.newCondition();

  Lifecycle(LaneContext ctx) {
    this.ctx = ctx;
  }

  /** {@code ExecutorService.shutdown()}: refuses new tasks, lets queued ones run, then ends. */
  void shutdown() {
    advanceState(Lifecycle.SHUTDOWN);
    ctx.admission.wakeAllWaiting();
    ctx.pool.wakeAll(); // idle workers (and those at the gate) drain what is left and leave
    tryTerminate();
  }

  /**
   * Returns the tasks that never started, as objects the caller can act on: for a task given to
   * {@code submit}, the {@code Future} lanes returned (already cancelled); for a task given to
   * {@code execute}, the {@code Runnable} that was given (not decorated). A future that {@code
   * CompletableFuture.runAsync/supplyAsync(.., lane)} made for such a task is cancelled where lanes
   * can reach it.
   */
  List<Runnable> shutdownNow() {
    advanceState(Lifecycle.STOP);
    ctx.admission.wakeAllWaiting();
    for (Worker w : ctx.pool.workers) {
      w.interruptNow();
    }
    ctx.pool.wakeAll();
    List<Runnable> never = new ArrayList<>();
    Taken tk = new Taken();
    Object x;
    while ((x = ctx.ring.pollClaimed(tk)) != null) {
      LaneFuture<?> t = ctx.books.ownedEnvelope(x, tk);
      if (t == null) {
        continue; // a dead entry
      }
      never.add(t.handedOut ? t : t.source);
      ctx.books.endUnrun(t, TaskOutcome.RETURNED);
    }
    // entries a racing submitter took back for another submitter that left before the stop
    for (LaneFuture<?> t : ctx.books.claimOrphans()) {
      never.add(t.source);
      ctx.books.endUnrun(t, TaskOutcome.RETURNED);
    }
    tryTerminate();
    return never;
  }

  private void advanceState(int target) {
    lock.lock();
    try {
      if (runState < target) {
        runState = target;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sets TERMINATED if the lane is shut down and done (see the class comment); otherwise makes
   * sure someone will drain what is queued: a platform lane left with no worker starts one, a
   * virtual lane dispatches.
   */
  void tryTerminate() {
    int rs = runState;
    if (rs == Lifecycle.RUNNING || rs == Lifecycle.TERMINATED) {
      return;
    }
    if (rs == Lifecycle.SHUTDOWN && ctx.gate != null && !ctx.ring.hasClaimed()) {
      ctx.pool.wakeGateWaiters(); // nothing left to pass the gate for: workers waiting there leave
    }
    if (rs == Lifecycle.SHUTDOWN && ctx.ring.hasClaimed()) {
      if (!ctx.elastic) {
        if (ctx.pool.liveWorkers.get() == 0) {
          // an entry appended as the last worker left: start one to drain it
          ctx.pool.startCoreWorker();
        }
        return; // core workers drain it, and try again when they leave
      }
      ctx.pool.dispatch();
      if (ctx.ring.hasClaimed() || ctx.pool.permits.held() != 0) {
        return; // a worker will drain it and try again when it leaves
      }
      // the ring emptied meanwhile and nobody runs: terminate
    }
    if (ctx.pool.liveWorkers.get() != 0 || (ctx.elastic && ctx.pool.permits.held() != 0)
        || ctx.books.callersRunning() != 0) {
      return; // a worker, or a caller running a task (caller-runs), tries again as it ends
    }
    lock.lock();
    try {
      // Shut down (not now): every accepted task has ended, including one a submitter holds
      // between its admission and its append.
      if (runState != Lifecycle.TERMINATED
          && ctx.pool.liveWorkers.get() == 0
          && (!ctx.elastic || ctx.pool.permits.held() == 0)
          && ctx.books.callersRunning() == 0
          && (runState == Lifecycle.STOP
              || (!ctx.ring.hasClaimed() && ctx.admission.unfinished() == 0))) {
        runState = Lifecycle.TERMINATED;
        terminated.signalAll();
        ctx.health.unregister();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} for termination; true if the lane terminated. */
  boolean awaitTermination(long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (runState != Lifecycle.TERMINATED) {
        if (nanos <= 0) {
          return false;
        }
        nanos = terminated.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code ExecutorService.close()}: shuts down and waits for termination; an interrupt while it
   * waits shuts the lane down now, and the interrupt status is restored before it returns.
   */
  void close() {
    boolean interrupted = false;
    shutdown();
    while (runState != Lifecycle.TERMINATED) {
      try {
        awaitTermination(TimeUnit.DAYS.toNanos(1));
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
}
