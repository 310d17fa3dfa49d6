package dev.lanes.agent;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

/**
 * A {@code ForkJoinPool}'s state for the watchdog and the table: counts through the pool's public
 * methods; the queued tasks themselves through its internals ({@code queues}, each queue's {@code
 * array} and {@code base}, JDK 25's names), which the agent can read because it opened {@code
 * java.util.concurrent} to itself at start. The pool has no public snapshot of its queues.
 *
 * <p>What the figures mean:
 * <ul>
 *   <li>{@link #queued}: submissions not yet taken ({@code getQueuedSubmissionCount}) plus the
 *       tasks in the workers' own queues ({@code getQueuedTaskCount}: forked subtasks, and tasks
 *       submitted from inside the pool);
 *   <li>{@link #maxThreads}: the parallelism; the pool may run more threads for a while, to make
 *       up for workers blocked in a join or a managed blocker;
 *   <li>{@link #head}: the task at the front of the first non-empty queue, not necessarily the
 *       oldest of all (each queue is ordered, the queues are not);
 *   <li>{@link #queuedTasks}: every task in a queue, forks included.
 * </ul>
 *
 * <p><b>Concurrency design.</b> No lock: the pool's queues are read racily, as plain fields and
 * array slots the pool writes with CAS and release stores. A snapshot may miss a task pushed while
 * it is taken or still show one just taken; its only user, the stamp sweep, looks only at stamps
 * older than its sweep age, which a task just pushed or taken does not have. When the internals
 * cannot be read (another JDK, or the package not opened), {@link #listsQueues} is false and the
 * sweep keeps the pool's stamps (the stamp table's bound still holds).
 */
final class ForkJoinPoolView implements PoolView {
  static final ForkJoinPoolView INSTANCE = new ForkJoinPoolView();

  private ForkJoinPoolView() {}

  /** False for a fork-join view that cannot list its pool's queues; true for any other view. */
  static boolean listsQueues(PoolView view) {
    return !(view instanceof ForkJoinPoolView) || Internals.READABLE;
  }

  @Override public int queued(Object pool) {
    ForkJoinPool p = (ForkJoinPool) pool;
    long n = p.getQueuedSubmissionCount() + p.getQueuedTaskCount();
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  @Override public Object head(Object pool) {
    if (!Internals.READABLE) {
      return null;
    }
    try {
      Object[] queues = (Object[]) Internals.QUEUES.get(pool);
      if (queues == null) {
        return null;
      }
      for (Object q : queues) {
        if (q == null) {
          continue;
        }
        Object[] a = (Object[]) Internals.ARRAY.get(q);
        if (a != null && a.length > 0) {
          Object t = a[Internals.BASE.getInt(q) & (a.length - 1)];
          if (t != null) {
            return t;
          }
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // unreadable now: as if empty
    }
    return null;
  }

  @Override public Collection<?> queuedTasks(Object pool) {
    if (!Internals.READABLE) {
      return List.of();
    }
    List<Object> tasks = new ArrayList<>();
    try {
      Object[] queues = (Object[]) Internals.QUEUES.get(pool);
      if (queues != null) {
        for (Object q : queues) {
          Object[] a = q == null ? null : (Object[]) Internals.ARRAY.get(q);
          if (a != null) {
            for (Object t : a) {
              if (t != null) {
                tasks.add(t);
              }
            }
          }
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // unreadable now (not expected once the fields were opened): what was read so far
    }
    return tasks;
  }

  @Override public int threads(Object pool) {
    return ((ForkJoinPool) pool).getPoolSize();
  }

  @Override public int maxThreads(Object pool) {
    return ((ForkJoinPool) pool).getParallelism();
  }

  @Override public int active(Object pool) {
    return ((ForkJoinPool) pool).getActiveThreadCount();
  }

  @Override public boolean isShutdown(Object pool) {
    return ((ForkJoinPool) pool).isShutdown();
  }

  /** The pool's internal fields, found once; {@link #READABLE} false if any is missing or closed. */
  private static final class Internals {
    static final Field QUEUES;
    static final Field ARRAY;
    static final Field BASE;
    static final boolean READABLE;

    static {
      Field queues = null;
      Field array = null;
      Field base = null;
      boolean readable = false;
      try {
        queues = ForkJoinPool.class.getDeclaredField("queues");
        Class<?> queueType = queues.getType().getComponentType();
        if (queueType != null) {
          array = queueType.getDeclaredField("array");
          base = queueType.getDeclaredField("base");
          queues.setAccessible(true);
          array.setAccessible(true);
          base.setAccessible(true);
          readable = array.getType().isArray() && base.getType() == int.class;
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        readable = false; // another JDK's layout, or java.util.concurrent not opened to the agent
      }
      QUEUES = queues;
      ARRAY = array;
      BASE = base;
      READABLE = readable;
    }
  }
}
