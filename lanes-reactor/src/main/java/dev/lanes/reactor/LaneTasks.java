package dev.lanes.reactor;

import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;

/**
 * How Reactor's tasks become lane tasks: immediately, after a delay, or periodically.
 *
 * <p><b>State.</b> Each task object owns its state: a volatile {@code disposed} flag that only goes
 * from false to true, the lane's future once it was handed over (volatile), and for timed tasks an
 * {@link AtomicBoolean} that decides once whether the timer fired or was cancelled, so the count of
 * pending timers ({@code pendingTimers}) is decremented exactly once per timed task. A periodic
 * task's {@code busy} flag is set by the tick that hands a run to the lane and cleared when that
 * run's future completes (ran, failed, cancelled or discarded), so runs never overlap.
 *
 * <p><b>Failure model.</b> What a task throws goes to the running thread's uncaught-exception
 * handler (what Reactor's own schedulers do without an {@code onHandleError} hook) and is rethrown,
 * so the lane counts it failed. A due task the lane refuses or drops goes to the handler of the
 * thread that handed it over. What the hook itself throws does not kill the shared timer thread: every timer
 * callback catches and reports.
 */
final class LaneTasks {

  /** One daemon timer thread for every LaneScheduler in the JVM, created on first use. */
  private static final class Timer {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "lanes-reactor-timer");
                t.setDaemon(true);
                return t;
              });
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }

  private final Lane lane;
  private final AtomicInteger pendingTimers;
  private final int timerBound;

  LaneTasks(Lane lane, AtomicInteger pendingTimers) {
    this.lane = lane;
    this.pendingTimers = pendingTimers;
    this.timerBound = lane.queueCapacity();
  }

  /** Pending timed and periodic tasks of the scheduler that owns this (for tests and scans). */
  int pendingTimers() {
    return pendingTimers.get();
  }

  /** Hands {@code task} to the lane now; the lane's rejection is thrown. */
  Disposable now(Runnable task, Disposable.Composite track) {
    Immediate t = new Immediate(task, track, null);
    if (track != null && !track.add(t)) {
      throw disposed();
    }
    try {
      t.submit();
    } catch (RuntimeException e) {
      if (track != null) {
        track.remove(t);
      }
      throw e;
    }
    return t;
  }

  Disposable later(Runnable task, long delay, TimeUnit unit, Disposable.Composite track) {
    Delayed d = new Delayed(task, track);
    reserveTimer();
    if (!track.add(d)) {
      pendingTimers.decrementAndGet();
      throw disposed();
    }
    d.timer = Timer.INSTANCE.schedule(d, delay, unit);
    if (d.disposed) {
      d.timer.cancel(false);
    }
    return d;
  }

  Disposable periodically(
      Runnable task, long initialDelay, long period, TimeUnit unit, Disposable.Composite track) {
    if (period <= 0) {
      throw new IllegalArgumentException(
          "lane \"" + lane.name() + "\": a periodic task needs a period > 0, was " + period + " " + unit);
    }
    Periodic p = new Periodic(task, track);
    reserveTimer();
    if (!track.add(p)) {
      pendingTimers.decrementAndGet();
      throw disposed();
    }
    p.timer = Timer.INSTANCE.scheduleAtFixedRate(p, Math.max(0, initialDelay), period, unit);
    if (p.disposed) {
      p.timer.cancel(false);
    }
    return p;
  }

  private void reserveTimer() {
    int n = pendingTimers.incrementAndGet();
    if (n > timerBound) {
      pendingTimers.decrementAndGet();
      throw new RejectedExecutionException(
          "lane \"" + lane.name() + "\": " + timerBound + " timed tasks already pending in its "
              + "Reactor scheduler (bound = the lane's queue capacity, " + timerBound + ")");
    }
  }

  private RejectedExecutionException disposed() {
    return new RejectedExecutionException(
        "lane \"" + lane.name() + "\": this Reactor worker or its scheduler is disposed");
  }

  /**
   * Hands a due task to the lane. A {@code reject} lane is handed it on the timer thread itself
   * (it either queues the task or refuses it at once); for any other policy the hand-off runs on a
   * short-lived virtual thread, so the shared timer thread is never blocked ({@code blockCaller}),
   * never runs a task ({@code callerRuns}) and never completes a dropped task's future, which may
   * run that future's dependent stages ({@code discardOldest}).
   */
  private void handOff(Runnable handOff) {
    OverflowPolicy policy = lane.overflow();
    if (policy.equals(OverflowPolicy.reject())) {
      handOff.run();
      return;
    }
    Thread.ofVirtual().name("lanes-reactor-handoff-" + lane.name()).start(handOff);
  }

  /**
   * Tells the current thread's uncaught-exception handler, as Reactor's schedulers do when no
   * {@code Schedulers.onHandleError} hook is set (Reactor offers no public way to call its hook).
   */
  private static void report(Throwable t) {
    Thread current = Thread.currentThread();
    try {
      current.getUncaughtExceptionHandler().uncaughtException(current, t);
    } catch (RuntimeException | Error ignored) {
      // A handler that throws must not kill the shared timer thread; it was called.
    }
  }

  /** A task handed to the lane. */
  private final class Immediate implements Disposable {
    private final Runnable task;
    private final Disposable.Composite track;
    private final Runnable onDone;
    private volatile CompletableFuture<?> future;
    private volatile boolean disposed;

    Immediate(Runnable task, Disposable.Composite track, Runnable onDone) {
      this.task = task;
      this.track = track;
      this.onDone = onDone;
    }

    void submit() {
      CompletableFuture<?> f = lane.submit(this::run);
      future = f;
      f.whenComplete((v, e) -> done(e));
      if (disposed) {
        f.cancel(true);
      }
    }

    private void run() {
      if (disposed) {
        return;
      }
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        report(e);
        throw e;
      }
    }

    private void done(Throwable e) {
      if (track != null) {
        track.remove(this);
      }
      if (e instanceof CancellationException && !disposed) {
        // The lane dropped it (discardOldest or shutdownNow): Reactor must hear, or an operator waits forever.
        report(new CancellationException(
            "lane \"" + lane.name() + "\" dropped a Reactor task before it ran"));
      }
      if (onDone != null) {
        onDone.run();
      }
    }

    @Override
    public void dispose() {
      disposed = true;
      CompletableFuture<?> f = future;
      if (f != null) {
        f.cancel(true);
      }
    }

    @Override
    public boolean isDisposed() {
      CompletableFuture<?> f = future;
      return disposed || (f != null && f.isDone());
    }
  }

  /** Hands the task to the lane when due; the lane's refusal goes to Reactor's error hook. */
  private Immediate submitOrReport(Runnable task, Disposable.Composite track, Runnable onDone) {
    Immediate t = new Immediate(task, track, onDone);
    if (track != null && !track.add(t)) {
      if (onDone != null) {
        onDone.run();
      }
      return null;
    }
    try {
      t.submit();
      return t;
    } catch (RuntimeException e) {
      if (track != null) {
        track.remove(t);
      }
      if (onDone != null) {
        onDone.run();
      }
      report(e);
      return null;
    }
  }

  /** A task that waits for its due time on the shared timer, then goes to the lane. */
  private final class Delayed implements Disposable, Runnable {
    private final Runnable task;
    private final Disposable.Composite track;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile ScheduledFuture<?> timer;
    private volatile Immediate handed;
    private volatile boolean disposed;

    Delayed(Runnable task, Disposable.Composite track) {
      this.task = task;
      this.track = track;
    }

    @Override
    public void run() {
      if (!settled.compareAndSet(false, true)) {
        return;
      }
      pendingTimers.decrementAndGet();
      try {
        handOff(
            () -> {
              track.remove(this);
              if (!disposed) {
                handed = submitOrReport(task, track, null);
                if (disposed && handed != null) {
                  handed.dispose();
                }
              }
            });
      } catch (RuntimeException | Error e) {
        report(e);
      }
    }

    @Override
    public void dispose() {
      disposed = true;
      if (settled.compareAndSet(false, true)) {
        pendingTimers.decrementAndGet();
        ScheduledFuture<?> t = timer;
        if (t != null) {
          t.cancel(false);
        }
        track.remove(this);
      } else {
        Immediate h = handed;
        if (h != null) {
          h.dispose();
        }
      }
    }

    @Override
    public boolean isDisposed() {
      Immediate h = handed;
      return disposed || (h != null && h.isDisposed());
    }
  }

  /** A task run at a fixed rate; a tick while the previous run is queued or running is skipped. */
  private final class Periodic implements Disposable, Runnable {
    private final Runnable task;
    private final Disposable.Composite track;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile ScheduledFuture<?> timer;
    private volatile Immediate current;
    private volatile boolean disposed;

    Periodic(Runnable task, Disposable.Composite track) {
      this.task = task;
      this.track = track;
    }

    @Override
    public void run() {
      try {
        if (disposed || !busy.compareAndSet(false, true)) {
          return;
        }
        handOff(
            () -> {
              if (disposed) {
                busy.set(false);
                return;
              }
              current = submitOrReport(this::runOnce, null, () -> busy.set(false));
            });
      } catch (RuntimeException | Error e) {
        busy.set(false);
        report(e);
      }
    }

    private void runOnce() {
      if (disposed) {
        return;
      }
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        // As a ScheduledExecutorService does: a periodic task that throws is not run again.
        dispose();
        throw e;
      }
    }

    @Override
    public void dispose() {
      disposed = true;
      if (settled.compareAndSet(false, true)) {
        pendingTimers.decrementAndGet();
        ScheduledFuture<?> t = timer;
        if (t != null) {
          t.cancel(false);
        }
        track.remove(this);
      }
      Immediate c = current;
      if (c != null) {
        c.dispose();
      }
    }

    @Override
    public boolean isDisposed() {
      return disposed;
    }
  }
}
