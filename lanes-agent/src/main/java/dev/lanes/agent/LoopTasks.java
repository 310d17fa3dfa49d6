package dev.lanes.agent;

import java.util.concurrent.Delayed;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The agent's side of {@link NettyHooks}: which event loop the current thread is running tasks
 * for, the timing of each task the loop runs (through {@link AgentSink#started}/{@link
 * AgentSink#ended}, the loop being the pool), and the stamps of scheduled tasks.
 *
 * <p>Netty runs a loop's task through the static {@code AbstractEventExecutor.runTask(task)}, which
 * does not know its loop; the loop's own methods that call it (its {@code runAllTasks} family,
 * {@code DefaultEventLoop.run}) mark the thread as running that loop on entry and restore the
 * previous mark on exit. A {@code runTask} outside such a method (Netty's global executor, a
 * non-sticky executor on a plain pool) is not timed here.
 *
 * <p><b>Scheduled tasks</b> ({@code schedule(..)}) wait from their due time: a task entering a
 * loop's schedule ({@code scheduleFromEventLoop}, also where a periodic task files itself again
 * after a run) is stamped at now plus its delay (so from the moment it entered, if that was
 * already past its due time); a periodic task that did not file itself that way is stamped after
 * its run at its next due time. A task scheduled from outside its loop first passes
 * through the loop's queue (Netty hands it over as a task, which then files itself in the
 * schedule): that pass is counted as a task of its own. A finished or cancelled scheduled task
 * leaves no stamp behind.
 *
 * <p><b>IO turns</b> (the loop handling the events its selector returned: its channels' handlers
 * run then, not as tasks) are watched and timed apart: while one runs, the loop's slot shows it
 * as its running work, so the watchdog's blocking check warns, with the stack, about a handler
 * that parks or blocks; each is counted and timed in the loop's IO-turn distribution, never as a
 * task. The select itself (the loop waiting for IO, rightly) is outside the turn.
 *
 * <p><b>Concurrency design.</b> The mark is a thread-local, written and read by its own thread
 * only. Stamps go through the striped {@link StampTable}. Nothing here blocks or calls the
 * application, except {@code getDelay} and {@code isDone} on Netty's scheduled task (plain reads).
 */
final class LoopTasks {
  private static final String SCHEDULED_TASK = "io.netty.util.concurrent.ScheduledFutureTask";
  /** What a loop's slot runs while its thread handles selected IO events (no task of its own). */
  static final Object IO_TURN = new Object() {
    @Override public String toString() {
      return "IO events";
    }
  };
  /** True for the classes that are Netty single-thread event executors (event loops). */
  private static final ClassValue<Boolean> IS_EVENT_LOOP = new ClassValue<>() {
    @Override protected Boolean computeValue(Class<?> type) {
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        if (c.getName().equals(NettyHooks.EVENT_EXECUTOR)) {
          return true;
        }
      }
      return false;
    }
  };

  private final AgentSink sink;
  private final StampTable stamps;
  /** The loop the current thread runs tasks for now, or null. */
  private final ThreadLocal<Object> currentLoop = new ThreadLocal<>();

  LoopTasks(AgentSink sink, StampTable stamps) {
    this.sink = sink;
    this.stamps = stamps;
  }

  Object entered(Object loop) {
    Object previous = currentLoop.get();
    if (previous != loop) {
      currentLoop.set(loop);
    }
    return previous;
  }

  void exited(Object previous) {
    if (currentLoop.get() != previous) {
      currentLoop.set(previous); // set, not remove: the next entry then allocates nothing
    }
  }

  Object taskStarted(Object task) {
    Object loop = currentLoop.get();
    return loop == null || task == null ? null : sink.started(loop, task);
  }

  void taskEnded(Object token, Object task, Throwable failure) {
    sink.ended(token, failure);
    if (task instanceof Delayed d && task instanceof Future<?> f
        && task.getClass().getName().equals(SCHEDULED_TASK)) {
      if (f.isDone()) {
        stamps.take(task); // ran, or cancelled (its pass removed it): drop a stamp left for its due time
      } else {
        Object loop = currentLoop.get();
        if (loop != null && stamps.peek(task) == StampTable.NONE
            && !stamps.put(task, dueAt(d))) { // periodic: due again
          sink.unstamped.increment();
        }
      }
    }
  }

  void scheduled(Object pool, Object task) {
    if (pool != null && task instanceof Delayed d && IS_EVENT_LOOP.get(pool.getClass())) {
      if (!stamps.put(task, dueAt(d))) {
        sink.unstamped.increment();
      }
    }
  }

  /**
   * Marks the slot of the loop this thread ran its last task for as running {@link #IO_TURN}
   * (unless a task runs now), for the watchdog's blocking check; returns the slot, or null.
   */
  Object ioStarted(RunSlot slot) {
    if (slot == null || slot.record.kind != PoolKind.EVENT_LOOP || slot.depth > 0) {
      return null;
    }
    long now = System.nanoTime();
    slot.ioStarted = now;
    slot.begin(IO_TURN, now);
    return slot;
  }

  /**
   * The IO turn ended: its time joins the loop's IO-turn distribution (not its tasks' count, waits
   * or run times), so a handler that holds the loop shows as the loop's longest IO turn.
   */
  void ioEnded(Object token) {
    if (token instanceof RunSlot slot && slot.current() == IO_TURN) {
      slot.clear();
      slot.append(RunSlot.NOT_QUEUED, System.nanoTime() - slot.ioStarted, false);
    }
  }

  private static long dueAt(Delayed task) {
    return System.nanoTime() + Math.max(0, task.getDelay(TimeUnit.NANOSECONDS));
  }
}
