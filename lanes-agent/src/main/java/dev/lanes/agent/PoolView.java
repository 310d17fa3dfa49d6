package dev.lanes.agent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How the watchdog reads a pool's public state (queue, thread counts) without knowing its class at
 * compile time. Reads are racy snapshots; every method returns a neutral value (0, empty) rather
 * than throw, because the pool is the application's.
 */
interface PoolView {
  /** Tasks waiting in the pool's queue: due and not started (a scheduled task counts once due). */
  int queued(Object pool);

  /** Tasks in the pool's schedule that are not due yet (a scheduled pool's; 0 for others). */
  default int scheduled(Object pool) {
    return 0;
  }

  /** The task at the head of the queue (the next to start), or null. */
  default Object head(Object pool) {
    return null;
  }

  /** A copy of the queued tasks (for the deadlock check), or an empty list. */
  default Collection<?> queuedTasks(Object pool) {
    return List.of();
  }

  /** Threads the pool has now. */
  int threads(Object pool);

  /** The most threads the pool will start (its bound), or 0 if unknown. */
  int maxThreads(Object pool);

  /** The least threads the pool keeps (its core size), or 0 if unknown. */
  default int coreThreads(Object pool) {
    return 0;
  }

  /** Threads running a task now. */
  int active(Object pool);

  /** True once the pool was shut down. */
  boolean isShutdown(Object pool);

  /** The view for a pool of this kind. */
  static PoolView of(PoolKind kind, Object pool) {
    return switch (kind) {
      case THREAD_POOL, SCHEDULED -> JdkThreadPoolView.INSTANCE;
      case TOMCAT -> TomcatThreadPoolView.forClass(pool.getClass());
      case EVENT_LOOP -> EventLoopView.forClass(pool.getClass());
      case FORK_JOIN, COMMON_POOL -> ForkJoinPoolView.INSTANCE;
      default -> NONE;
    };
  }

  /** Reads nothing (a pool whose state the agent cannot read). */
  PoolView NONE = new PoolView() {
    @Override public int queued(Object pool) { return 0; }
    @Override public int threads(Object pool) { return 0; }
    @Override public int maxThreads(Object pool) { return 0; }
    @Override public int active(Object pool) { return 0; }
    @Override public boolean isShutdown(Object pool) { return false; }
  };

  /** The JDK's ThreadPoolExecutor and its subclasses, through its public methods. */
  final class JdkThreadPoolView implements PoolView {
    static final JdkThreadPoolView INSTANCE = new JdkThreadPoolView();

    @Override public int queued(Object pool) {
      BlockingQueue<Runnable> q = ((ThreadPoolExecutor) pool).getQueue();
      return pool instanceof ScheduledThreadPoolExecutor ? due(q) : q.size();
    }

    @Override public int scheduled(Object pool) {
      if (!(pool instanceof ScheduledThreadPoolExecutor)) {
        return 0;
      }
      BlockingQueue<Runnable> q = ((ThreadPoolExecutor) pool).getQueue();
      return Math.max(0, q.size() - due(q));
    }

    /**
     * The due tasks of a scheduled pool's queue, a heap ordered by due time: none when its head
     * is not due (no copy then), else counted on a copy.
     */
    private static int due(BlockingQueue<Runnable> q) {
      Runnable head = q.peek();
      if (head == null || isNotDue(head)) {
        return 0;
      }
      int n = 0;
      for (Object task : q.toArray()) {
        if (!isNotDue(task)) {
          n++;
        }
      }
      return n;
    }

    private static boolean isNotDue(Object task) {
      return task instanceof Delayed d && d.getDelay(TimeUnit.NANOSECONDS) > 0;
    }

    @Override public Object head(Object pool) {
      return ((ThreadPoolExecutor) pool).getQueue().peek();
    }

    @Override public Collection<?> queuedTasks(Object pool) {
      return List.of(((ThreadPoolExecutor) pool).getQueue().toArray());
    }

    @Override public int threads(Object pool) {
      return ((ThreadPoolExecutor) pool).getPoolSize();
    }

    @Override public int maxThreads(Object pool) {
      return ((ThreadPoolExecutor) pool).getMaximumPoolSize();
    }

    @Override public int coreThreads(Object pool) {
      return ((ThreadPoolExecutor) pool).getCorePoolSize();
    }

    @Override public int active(Object pool) {
      return ((ThreadPoolExecutor) pool).getActiveCount();
    }

    @Override public boolean isShutdown(Object pool) {
      return ((ThreadPoolExecutor) pool).isShutdown();
    }
  }

  /**
   * Tomcat's copy of ThreadPoolExecutor, through the same public methods found by name (its class
   * comes from the application's class loader).
   */
  final class TomcatThreadPoolView implements PoolView {
    private static final ClassValue<PoolView> VIEWS = new ClassValue<>() {
      @Override protected PoolView computeValue(Class<?> type) {
        try {
          return new TomcatThreadPoolView(type);
        } catch (ReflectiveOperationException | RuntimeException e) {
          return NONE;
        }
      }
    };
    private final MethodHandle getQueue;
    private final MethodHandle getPoolSize;
    private final MethodHandle getMaximumPoolSize;
    private final MethodHandle getCorePoolSize;
    private final MethodHandle getActiveCount;
    private final MethodHandle isShutdown;

    static PoolView forClass(Class<?> type) {
      return VIEWS.get(type);
    }

    private TomcatThreadPoolView(Class<?> type) throws ReflectiveOperationException {
      MethodHandles.Lookup l = MethodHandles.publicLookup();
      getQueue = l.findVirtual(type, "getQueue", MethodType.methodType(BlockingQueue.class));
      getPoolSize = l.findVirtual(type, "getPoolSize", MethodType.methodType(int.class));
      getMaximumPoolSize = l.findVirtual(type, "getMaximumPoolSize", MethodType.methodType(int.class));
      getCorePoolSize = l.findVirtual(type, "getCorePoolSize", MethodType.methodType(int.class));
      getActiveCount = l.findVirtual(type, "getActiveCount", MethodType.methodType(int.class));
      isShutdown = l.findVirtual(type, "isShutdown", MethodType.methodType(boolean.class));
    }

    private BlockingQueue<?> queue(Object pool) {
      try {
        return (BlockingQueue<?>) getQueue.invoke(pool);
      } catch (Throwable t) {
        return null;
      }
    }

    private int intOf(MethodHandle h, Object pool) {
      try {
        return (int) h.invoke(pool);
      } catch (Throwable t) {
        return 0;
      }
    }

    @Override public int queued(Object pool) {
      BlockingQueue<?> q = queue(pool);
      return q == null ? 0 : q.size();
    }

    @Override public Object head(Object pool) {
      BlockingQueue<?> q = queue(pool);
      return q == null ? null : q.peek();
    }

    @Override public Collection<?> queuedTasks(Object pool) {
      BlockingQueue<?> q = queue(pool);
      return q == null ? List.of() : List.of(q.toArray());
    }

    @Override public int threads(Object pool) {
      return intOf(getPoolSize, pool);
    }

    @Override public int maxThreads(Object pool) {
      return intOf(getMaximumPoolSize, pool);
    }

    @Override public int coreThreads(Object pool) {
      return intOf(getCorePoolSize, pool);
    }

    @Override public int active(Object pool) {
      return intOf(getActiveCount, pool);
    }

    @Override public boolean isShutdown(Object pool) {
      try {
        return (boolean) isShutdown.invoke(pool);
      } catch (Throwable t) {
        return false;
      }
    }
  }
}
