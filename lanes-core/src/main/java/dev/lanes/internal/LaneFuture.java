package dev.lanes.internal;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a task submitted to a lane: a {@link CompletableFuture} that also runs the task.
 *
 * <p><b>Concurrency design.</b> Completion is CompletableFuture's own (a CAS on its result), so
 * whoever completes first wins: the task, a canceller, or a deadlock breaker. {@code cancel}
 * additionally tells the envelope, which removes a queued task or interrupts a running one
 * (only while that task is still running, see {@link TaskEnvelope}). {@code get}/{@code join}
 * register the waiting thread with the {@link WaitTracker} so the lane can see a thread of its own
 * waiting on a task still in its own queue (the nested-submission deadlock).
 */
final class LaneFuture<T> extends CompletableFuture<T> implements RunnableFuture<T> {
  private final LaneExecutor lane;
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
  volatile TaskEnvelope envelope;

  LaneFuture(LaneExecutor lane, Callable<? extends T> callable) {
    this.lane = lane;
    this.callable = callable;
  }

  LaneFuture(LaneExecutor lane, Runnable runnable, T result) {
    this.lane = lane;
    this.runnable = runnable;
    this.result = result;
  }

  LaneExecutor lane() {
    return lane;
  }

  /**
   * Runs the task. Inside a lane (the future was submitted, so it has an envelope) it only keeps
   * the result, and {@link #completeFromRun()} publishes it after the lane has counted and timed
   * the task, so whoever sees this future complete also sees the task in the lane's stats. A
   * future made by {@code newTaskFor} and run by someone else (e.g. the JDK's {@code
   * ExecutorCompletionService}) completes itself, like a {@code FutureTask}. Does nothing if
   * already done (cancelled).
   */
  @Override
  public void run() {
    runAndKeep();
    if (envelope == null) {
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
    return f != null ? completeExceptionally(f) : complete(r);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    TaskEnvelope e = envelope;
    if (cancelled && e != null) {
      e.onFutureCancelled(mayInterruptIfRunning);
    }
    return cancelled;
  }

  @Override
  public T get() throws InterruptedException, ExecutionException {
    if (isDone()) {
      return super.get();
    }
    WaitTracker.Registration r = WaitTracker.beforeWait(this, false);
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
    WaitTracker.Registration r = WaitTracker.beforeWait(this, false);
    try {
      return super.join();
    } finally {
      WaitTracker.afterWait(r);
    }
  }

  /** Dependent stages without an explicit executor run on the same lane. */
  @Override
  public Executor defaultExecutor() {
    return lane;
  }

  /**
   * Dependent stages run no task of their own; they are {@link LaneStage}s, so an async stage
   * without an executor further down the chain still runs on this lane.
   */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    dependentsMade = true;
    return new LaneStage<>(lane);
  }

  /**
   * A stage that depends on a lane's future: a plain {@link CompletableFuture} (it is completed by
   * the stage before it, not by a task) whose default executor is the lane, down the whole chain:
   * in {@code lane.submit(a).thenApply(b).thenApplyAsync(c)}, {@code c} runs on the lane, not on
   * the common pool.
   */
  static final class LaneStage<T> extends CompletableFuture<T> {
    private final LaneExecutor lane;

    LaneStage(LaneExecutor lane) {
      this.lane = lane;
    }

    @Override
    public Executor defaultExecutor() {
      return lane;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      return new LaneStage<>(lane);
    }
  }

  @Override
  public String toString() {
    TaskEnvelope e = envelope;
    return (e == null ? "lane future" : e.toString()) + " " + super.toString();
  }
}
