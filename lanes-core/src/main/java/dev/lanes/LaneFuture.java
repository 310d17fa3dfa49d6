package dev.lanes;

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
 *
 * <p>Only the lane completes it: the public completion methods refuse (see {@link LaneStage}).
 */
final class LaneFuture<T> extends LaneStage<T> implements RunnableFuture<T> {
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
    super(lane);
    this.callable = callable;
  }

  LaneFuture(LaneExecutor lane, Runnable runnable, T result) {
    super(lane);
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
    return f != null ? fail(f) : succeed(r);
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
    WaitTracker.Registration r = WaitTracker.beforeWait(this, timed);
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
    WaitTracker.Registration r = WaitTracker.beforeWait(this, timed);
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

  @Override
  public String toString() {
    TaskEnvelope e = envelope;
    return (e == null ? "lane future" : e.toString()) + " " + super.toString();
  }
}

/**
 * A future of a lane, or a stage that depends on one: a {@link CompletableFuture} that only lanes
 * complete, and whose default executor is the lane down the whole chain: in {@code
 * lane.submit(a).thenApply(b).thenApplyAsync(c)}, {@code c} runs on the lane, not on the common
 * pool.
 *
 * <p>{@code complete}, {@code completeExceptionally}, {@code completeAsync} and the {@code
 * obtrude} methods throw {@link UnsupportedOperationException}: a caller cannot make a task's
 * future say something the task did not do. The JDK completes dependent stages through its own
 * internal methods, so chains work as usual; {@code cancel} works as on any future. {@link
 * #orTimeout} and {@link #completeOnTimeout} work, on lanes' own timer thread, and mark the future
 * timed, so a wait on it never counts as a deadlock.
 */
class LaneStage<T> extends CompletableFuture<T> {
  private static final java.util.concurrent.ScheduledThreadPoolExecutor TIMER = timer();

  final LaneExecutor lane;

  /** A timeout was set on this future: waits on it end by themselves. */
  volatile boolean timed;

  LaneStage(LaneExecutor lane) {
    this.lane = lane;
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
    timed = true;
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
    timed = true;
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
