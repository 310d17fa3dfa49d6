package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A lane's lifecycle: shutdown, shutdown-now, termination and waiting for it.
 *
 * <p><b>Concurrency design.</b> The lane's {@link RunState} (a volatile read on every
 * submission and by every worker loop) only moves forward — RUNNING → SHUTDOWN →
 * STOP → TERMINATED — and only here. Submitters never take its lock: a
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
 * <p><b>Invariants.</b> The run state never decreases; its waiters are woken exactly when
 * TERMINATED is set, after the lane's last act ({@code onTerminated}: the health thread stops
 * watching it).
 *
 * <p><b>Failure model.</b> The only user code run here is what cancelling a handed-back task's
 * future runs (its dependent stages, whose failures stay in their own futures) and the task
 * listeners told of it (a listener that throws is logged, the next task is still handed back).
 */
final class Lifecycle {
  private final LaneContext ctx;
  private final RunState run;
  private final LaneBooks books;
  private final Admission admission;
  private final WorkerPool pool;
  /** The lane's last act, run once as it terminates, before its waiters wake. */
  private final Runnable onTerminated;

  Lifecycle(LaneContext ctx, LaneBooks books, Admission admission, WorkerPool pool,
      Runnable onTerminated) {
    this.ctx = ctx;
    this.admission = admission;
    this.run = ctx.run;
    this.books = books;
    this.pool = pool;
    this.onTerminated = onTerminated;
  }

  /** {@code ExecutorService.shutdown()}: refuses new tasks, lets queued ones run, then ends. */
  void shutdown() {
    run.advanceTo(RunState.SHUTDOWN);
    admission.wakeAllWaiting();
    pool.wakeAll(); // idle workers (and those at the gate) drain what is left and leave
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
    run.advanceTo(RunState.STOP);
    admission.wakeAllWaiting();
    pool.interruptAll();
    pool.wakeAll();
    List<Runnable> never = new ArrayList<>();
    Taken tk = new Taken();
    Object x;
    while ((x = ctx.ring.pollClaimed(tk)) != null) {
      LaneFuture<?> t = books.ownedEnvelope(x, tk);
      if (t == null) {
        continue; // a dead entry
      }
      never.add(t.handedOut ? t : t.source);
      books.endUnrun(t, TaskOutcome.RETURNED);
    }
    // entries a racing submitter took back for another submitter that left before the stop
    for (LaneFuture<?> t : books.claimOrphans()) {
      never.add(t.source);
      books.endUnrun(t, TaskOutcome.RETURNED);
    }
    tryTerminate();
    return never;
  }

  /**
   * Sets TERMINATED if the lane is shut down and done (see the class comment); otherwise makes
   * sure someone will drain what is queued: a platform lane left with no worker starts one, a
   * virtual lane dispatches.
   */
  void tryTerminate() {
    int rs = run.get();
    if (rs == RunState.RUNNING || rs == RunState.TERMINATED) {
      return;
    }
    if (rs == RunState.SHUTDOWN && ctx.gate != null && !ctx.ring.hasClaimed()) {
      pool.wakeGateWaiters(); // nothing left to pass the gate for: workers waiting there leave
    }
    if (rs == RunState.SHUTDOWN && ctx.ring.hasClaimed()) {
      if (!ctx.elastic) {
        if (pool.liveWorkers.get() == 0) {
          // an entry appended as the last worker left: start one to drain it
          pool.startCoreWorker();
        }
        return; // core workers drain it, and try again when they leave
      }
      pool.dispatch();
      if (ctx.ring.hasClaimed() || pool.permits.held() != 0) {
        return; // a worker will drain it and try again when it leaves
      }
      // the ring emptied meanwhile and nobody runs: terminate
    }
    if (!nobodyRuns()) {
      return; // a worker, or a caller running a task (caller-runs), tries again as it ends
    }
    // Shut down (not now): every accepted task has ended, including one a submitter holds
    // between its admission and its append.
    run.terminateIf(() -> nobodyRuns()
        && (run.get() == RunState.STOP
            || (!ctx.ring.hasClaimed() && admission.unfinished() == 0)), onTerminated);
  }

  /** No worker is alive, no virtual-lane permit held, no caller runs a task. */
  private boolean nobodyRuns() {
    return pool.liveWorkers.get() == 0 && (!ctx.elastic || pool.permits.held() == 0)
        && books.callersRunning() == 0;
  }

  /** Waits up to {@code nanos} for termination; true if the lane terminated. */
  boolean awaitTermination(long nanos) throws InterruptedException {
    return run.awaitTermination(nanos);
  }

  /**
   * {@code ExecutorService.close()}: shuts down and waits for termination; an interrupt while it
   * waits shuts the lane down now, and the interrupt status is restored before it returns.
   */
  void close() {
    boolean interrupted = false;
    shutdown();
    while (run.get() != RunState.TERMINATED) {
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
