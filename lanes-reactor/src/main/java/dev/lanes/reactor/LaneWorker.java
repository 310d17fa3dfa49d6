package dev.lanes.reactor;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.Scannable;
import reactor.core.scheduler.Scheduler;

/**
 * A worker of a {@link LaneScheduler}: tracks its tasks so that {@link #dispose()} cancels the ones
 * that have not run. Tasks go to the lane one by one (see {@link LaneScheduler}).
 */
final class LaneWorker implements Scheduler.Worker, Scannable {
  private final LaneScheduler parent;
  private final LaneTasks tasks;
  private final Disposable.Composite pending = Disposables.composite();

  LaneWorker(LaneScheduler parent, LaneTasks tasks) {
    this.parent = parent;
    this.tasks = tasks;
  }

  @Override
  public Disposable schedule(Runnable task) {
    requireRunning();
    return tasks.now(task, pending);
  }

  @Override
  public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
    requireRunning();
    return delay <= 0 ? tasks.now(task, pending) : tasks.later(task, delay, unit, pending);
  }

  @Override
  public Disposable schedulePeriodically(
      Runnable task, long initialDelay, long period, TimeUnit unit) {
    requireRunning();
    return tasks.periodically(task, initialDelay, period, unit, pending);
  }

  private void requireRunning() {
    if (pending.isDisposed() || parent.disposedFlag()) {
      throw new RejectedExecutionException(
          "lane \"" + parent.lane().name() + "\": this Reactor worker or its scheduler is disposed");
    }
  }

  @Override
  public void dispose() {
    pending.dispose();
    parent.workerDisposed(this);
  }

  @Override
  public boolean isDisposed() {
    return pending.isDisposed();
  }

  @Override
  public Object scanUnsafe(Attr key) {
    if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
      return isDisposed();
    }
    if (key == Attr.NAME) {
      return parent + ".worker";
    }
    if (key == Attr.BUFFERED) {
      return pending.size();
    }
    if (key == Attr.PARENT) {
      return parent;
    }
    if (key == Attr.RUN_STYLE) {
      return Attr.RunStyle.ASYNC;
    }
    return null;
  }
}
