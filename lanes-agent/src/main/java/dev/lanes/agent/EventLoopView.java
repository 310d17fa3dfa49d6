package dev.lanes.agent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;

/**
 * A Netty event loop ({@code SingleThreadEventExecutor}) as the watchdog and the table see it:
 * one thread until it terminates (a 4.2 loop suspended while idle still shows 1), its pending tasks from its public {@code pendingTasks()} (in
 * Netty 4.1.118 and 4.2.19 a read of its queues' sizes, never a task handed to the loop).
 *
 * <p>{@link #queuedTasks} lists the loop's queue and its schedule, read from Netty's private
 * fields {@code taskQueue} and {@code scheduledTaskQueue} (the agent's unnamed module may read
 * the application's unnamed one): the stamp sweep keeps a stamp only while its task is listed
 * there. The task queue is Netty's lock-free queue, whose iterator is weakly consistent; the
 * schedule is the loop thread's own array heap, copied racily (a task being moved may be missed,
 * and its stamp then dropped if it is older than the sweep age — its wait then counts as
 * unknown). If the fields cannot be read (a Netty without them, Netty as a named module), the
 * list is empty and stamps of loop tasks older than the sweep age are dropped the same way.
 *
 * <p>{@link #head} is null (the task queue's head may be read by the loop's thread only), so the
 * loop's health does not see the age of its oldest queued task; {@link #active} is 0 (the loop's
 * running task is in its slot, which the blocking check reads).
 */
final class EventLoopView implements PoolView {
  private static final ClassValue<PoolView> VIEWS = new ClassValue<>() {
    @Override protected PoolView computeValue(Class<?> type) {
      try {
        return new EventLoopView(type);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return NONE;
      }
    }
  };
  private final MethodHandle pendingTasks;
  private final MethodHandle isShutdown;
  private final MethodHandle isTerminated;
  /** The loop's task queue and schedule, or null when unreadable. */
  private final MethodHandle taskQueue;
  private final MethodHandle scheduledTaskQueue;

  static PoolView forClass(Class<?> type) {
    return VIEWS.get(type);
  }

  private EventLoopView(Class<?> type) throws ReflectiveOperationException {
    MethodHandles.Lookup l = MethodHandles.publicLookup();
    pendingTasks = l.findVirtual(type, "pendingTasks", MethodType.methodType(int.class));
    isShutdown = l.findVirtual(type, "isShutdown", MethodType.methodType(boolean.class));
    isTerminated = l.findVirtual(type, "isTerminated", MethodType.methodType(boolean.class));
    MethodHandle tasks = null;
    MethodHandle scheduled = null;
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        if (c.getName().equals(NettyHooks.EVENT_EXECUTOR)) {
          tasks = MethodHandles.privateLookupIn(c, MethodHandles.lookup())
              .findGetter(c, "taskQueue", Queue.class);
        } else if (c.getName().equals(NettyHooks.SCHEDULED_EXECUTOR)) {
          MethodHandles.Lookup p = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
          var field = c.getDeclaredField("scheduledTaskQueue");
          scheduled = p.unreflectGetter(field);
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not readable here: the list goes without it (see the class comment)
      }
    }
    taskQueue = tasks;
    scheduledTaskQueue = scheduled;
  }

  @Override public int queued(Object pool) {
    try {
      return (int) pendingTasks.invoke(pool);
    } catch (Throwable t) {
      return 0;
    }
  }

  @Override public Collection<?> queuedTasks(Object pool) {
    List<Object> out = new ArrayList<>();
    addAll(taskQueue, pool, out);
    addAll(scheduledTaskQueue, pool, out);
    return out;
  }

  private static void addAll(MethodHandle getter, Object pool, List<Object> out) {
    if (getter == null) {
      return;
    }
    try {
      Object q = getter.invoke(pool);
      if (q instanceof Collection<?> c) {
        for (Object task : c.toArray()) {
          if (task != null) {
            out.add(task);
          }
        }
      }
    } catch (Throwable t) {
      // read while the loop changed it: what was listed so far stands
    }
  }

  @Override public int threads(Object pool) {
    try {
      return (boolean) isTerminated.invoke(pool) ? 0 : 1;
    } catch (Throwable t) {
      return 0;
    }
  }

  @Override public int maxThreads(Object pool) {
    return 1;
  }

  @Override public int coreThreads(Object pool) {
    return 1;
  }

  @Override public int active(Object pool) {
    return 0;
  }

  @Override public boolean isShutdown(Object pool) {
    try {
      return (boolean) isShutdown.invoke(pool);
    } catch (Throwable t) {
      return false;
    }
  }
}
