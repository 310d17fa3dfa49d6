package dev.lanes.reactor;

import dev.lanes.Lane;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.Scannable;
import reactor.core.scheduler.Scheduler;

/**
 * A Reactor {@link Scheduler} over a {@link Lane}: every task Reactor schedules runs as a lane
 * task, so its queue wait and run time show in {@link Lane#stats()}, and the lane's bound and
 * overflow policy apply to it.
 *
 * <pre>{@code
 * Lane db = Lane.blocking("db", 8).queueCapacity(500).build();
 * Scheduler dbScheduler = LaneScheduler.of(db);
 * Mono.fromCallable(() -> repository.load(id)).subscribeOn(dbScheduler);
 * Flux.interval(Duration.ofSeconds(1), dbScheduler);     // time operators work
 * }</pre>
 *
 * <p><b>Time operators</b> ({@code Mono.delay}, {@code delayElements}, {@code timeout}, {@code
 * Flux.interval}) work without a thread per timer: one daemon thread shared by every {@code
 * LaneScheduler} in the JVM ({@code lanes-reactor-timer}) waits for due times and hands each due
 * task to the lane; the task then waits in the lane's queue like any other and runs on a lane
 * thread. Timed tasks pending at once are bounded by the lane's queue capacity (beyond it, {@code
 * schedule} throws {@link RejectedExecutionException}). A periodic task never runs twice at once:
 * a tick that comes while the previous run is still queued or running is skipped, not queued.
 *
 * <p><b>Rejection.</b> An immediate task the lane refuses makes {@code schedule} throw the lane's
 * {@link dev.lanes.LaneRejectedException} (a {@link RejectedExecutionException}), which Reactor's
 * operators turn into an error signal. A timed task that the lane refuses when it is due (or drops
 * with {@code discardOldest}) cannot throw to anyone: the refusal goes to the uncaught-exception
 * handler of the thread that handed it over (what Reactor's schedulers do when no {@code
 * Schedulers.onHandleError} hook is set) and the lane counts it. What a task throws goes to the
 * lane thread's uncaught-exception handler and counts as failed in the lane.
 * A due task is handed to a {@code reject} lane on the timer thread, and to a lane with any other
 * overflow policy from a short-lived virtual thread ({@code blockCaller} blocks the submitter,
 * {@code callerRuns} runs the task on it, {@code discardOldest} completes a dropped task's future
 * on it), so the shared timer thread is never blocked and never runs a task.
 *
 * <p><b>Lifecycle.</b> {@link #dispose()} stops this adapter only: it refuses new tasks and cancels
 * its timed and periodic tasks (those still waiting for their time, and those handed to the lane
 * that have not started) and disposes its workers; immediate tasks already handed to the lane by
 * the scheduler itself run. The lane belongs to
 * whoever built it and keeps running (unlike {@code Schedulers.fromExecutorService}, whose {@code
 * dispose()} shuts the executor down); close the lane yourself.
 *
 * <p><b>Workers</b> ({@link #createWorker()}) submit their tasks to the lane one by one, as
 * Reactor's own {@code Schedulers.fromExecutorService} does: on a lane with more than one thread,
 * two tasks of one worker are not guaranteed to run in order or apart (Reactor's operators do not
 * rely on it). Disposing a worker cancels its tasks that have not run.
 *
 * <p><b>Scannable.</b> {@code CAPACITY} is the lane's queue capacity, {@code BUFFERED} the tasks
 * queued in the lane now (Reactor's and any other), {@code NAME} {@code lane("<name>")}.
 *
 * <p><b>Concurrency design.</b> {@code disposed} is volatile and only goes from false to true;
 * pending timers are counted in an atomic and tracked in a Reactor {@code Disposable.Composite}
 * (thread-safe); each task's state lives in its own {@link LaneTasks} object.
 */
public final class LaneScheduler implements Scheduler, Scannable {

  private final Lane lane;
  private final LaneTasks tasks;
  private final Disposable.Composite timers = Disposables.composite();
  private final Disposable.Composite workers = Disposables.composite();
  private volatile boolean disposed;

  private LaneScheduler(Lane lane) {
    this.lane = Objects.requireNonNull(lane, "lane");
    this.tasks = new LaneTasks(lane, new AtomicInteger());
  }

  /** A scheduler over {@code lane}; disposing it does not shut the lane down. */
  public static LaneScheduler of(Lane lane) {
    return new LaneScheduler(lane);
  }

  /** The lane the tasks run in. */
  public Lane lane() {
    return lane;
  }

  @Override
  public Disposable schedule(Runnable task) {
    requireRunning();
    return tasks.now(task, null);
  }

  @Override
  public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
    requireRunning();
    if (delay <= 0) {
      return tasks.now(task, null);
    }
    return tasks.later(task, delay, unit, timers);
  }

  @Override
  public Disposable schedulePeriodically(
      Runnable task, long initialDelay, long period, TimeUnit unit) {
    requireRunning();
    return tasks.periodically(task, initialDelay, period, unit, timers);
  }

  @Override
  public Worker createWorker() {
    LaneWorker worker = new LaneWorker(this, tasks);
    if (!workers.add(worker)) {
      worker.dispose(); // created after dispose(): refuses every task
    }
    return worker;
  }

  void workerDisposed(LaneWorker worker) {
    workers.remove(worker);
  }

  /** Timed and periodic tasks waiting on the shared timer (package-private, for tests). */
  int pendingTimers() {
    return tasks.pendingTimers();
  }

  boolean disposedFlag() {
    return disposed;
  }

  /** Refuses new tasks and cancels pending timers, its own and its workers'; the lane keeps running. */
  @Override
  public void dispose() {
    disposed = true;
    timers.dispose();
    workers.dispose();
  }

  @Override
  public boolean isDisposed() {
    return disposed;
  }

  @Override
  public Object scanUnsafe(Attr key) {
    if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
      return disposed;
    }
    if (key == Attr.NAME) {
      return toString();
    }
    if (key == Attr.CAPACITY) {
      return lane.queueCapacity();
    }
    if (key == Attr.BUFFERED) {
      return lane.stats().queued();
    }
    if (key == Attr.RUN_STYLE) {
      return Attr.RunStyle.ASYNC;
    }
    return null;
  }

  private void requireRunning() {
    if (disposed) {
      throw new RejectedExecutionException(
          "lane \"" + lane.name() + "\": its Reactor scheduler is disposed");
    }
  }

  @Override
  public String toString() {
    return "lane(\"" + lane.name() + "\")";
  }
}
