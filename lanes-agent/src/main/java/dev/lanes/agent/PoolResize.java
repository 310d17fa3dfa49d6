package dev.lanes.agent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.stream.Collectors;

/**
 * {@code ./lanes attach <pid> --set <pool> core=N max=N queue-capacity=N}: changes the size of a
 * running thread pool (the JDK's ThreadPoolExecutor or Tomcat's copy), or refuses with the reason
 * when the pool cannot take the change: a ForkJoinPool or an event loop is no ThreadPoolExecutor;
 * a ScheduledThreadPoolExecutor never uses its max (its queue is unbounded) and has no queue
 * capacity; a queue's capacity can change only when its class has a public {@code
 * setCapacity(int)} (the JDK's queues fix it at construction); core may not exceed max.
 *
 * <p>Core and max are set in the order that never throws: when max grows, max first; otherwise
 * core first. Raising core starts threads for tasks already queued (as ThreadPoolExecutor does).
 *
 * <p><b>Concurrency design.</b> The control channel asks from the watchdog thread, one request at
 * a time; the methods are synchronized all the same, so that a check-then-set of core and max never
 * interleaves with another change whoever calls. {@link #changes} is guarded by the same monitor.
 * The pool's own setters are thread-safe against its workers and submitters: between reading the
 * old sizes and setting the new ones only the application could change them.
 */
final class PoolResize {
  static final String CORE = "core";
  static final String MAX = "max";
  static final String QUEUE_CAPACITY = "queue-capacity";
  /** Bounds of each setting (ThreadPoolExecutor's own upper bound for threads is about 2^29). */
  static final int MAX_THREADS = 100_000;

  private final Pools pools;
  private final List<String> changes = new ArrayList<>();

  PoolResize(Pools pools) {
    this.pools = pools;
  }

  /** A refusal: its message says why, naming the pool and the setting. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  /**
   * Parses {@code core=N max=N queue-capacity=N} (any of them, at least one); throws {@link
   * Refused} naming the setting, its bounds and the value for a bad one.
   */
  static Map<String, Integer> settings(List<String> words) throws Refused {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String w : words) {
      int eq = w.indexOf('=');
      String name = eq < 0 ? w : w.substring(0, eq);
      if (!name.equals(CORE) && !name.equals(MAX) && !name.equals(QUEUE_CAPACITY)) {
        throw new Refused("unknown setting \"" + w + "\"; --set takes core=N, max=N,"
            + " queue-capacity=N");
      }
      String value = eq < 0 ? "" : w.substring(eq + 1);
      int min = name.equals(CORE) ? 0 : 1;
      int max = name.equals(QUEUE_CAPACITY) ? Integer.MAX_VALUE : MAX_THREADS;
      int n;
      try {
        n = Integer.parseInt(value.replace("_", ""));
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < min || n > max) {
        throw new Refused(name + " must be a whole number between " + min + " and " + max
            + ", was \"" + value + "\"");
      }
      out.put(name, n);
    }
    if (out.isEmpty()) {
      throw new Refused("--set <pool> needs core=N, max=N or queue-capacity=N");
    }
    return out;
  }

  /** Applies {@code settings} to the live pool named {@code name}; returns the line it logged. */
  synchronized String apply(String name, Map<String, Integer> settings, String by) throws Refused {
    Object pool = null;
    PoolRecord record = null;
    for (Map.Entry<Object, PoolRecord> e : pools.livePools()) {
      if (e.getValue().name().equals(name)) {
        pool = e.getKey();
        record = e.getValue();
      }
    }
    if (pool == null) {
      String known = pools.livePools().stream().map(e -> e.getValue().name()).sorted()
          .map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
      throw new Refused("no live pool named \"" + name + "\"; the pools: "
          + (known.isEmpty() ? "none yet" : known));
    }
    Setters setters = setters(record.kind, pool, name);
    if (record.kind == PoolKind.SCHEDULED) {
      if (settings.containsKey(MAX)) {
        throw new Refused("pool \"" + name + "\" is a ScheduledThreadPoolExecutor: it never uses"
            + " its max (it runs at most core threads on an unbounded queue); set core instead");
      }
      if (settings.containsKey(QUEUE_CAPACITY)) {
        throw new Refused("pool \"" + name + "\" is a ScheduledThreadPoolExecutor: its queue is"
            + " unbounded, it has no capacity to set");
      }
    }
    int oldCore = setters.core();
    int oldMax = setters.max();
    int core = settings.getOrDefault(CORE, oldCore);
    int max = settings.getOrDefault(MAX, oldMax);
    if (core > max) {
      throw new Refused("pool \"" + name + "\": core (" + core + ") may not exceed max (" + max
          + ")" + (!settings.containsKey(MAX) ? "; raise max too"
          : !settings.containsKey(CORE) ? "; lower core too" : ""));
    }
    MethodHandle setCapacity = null;
    int oldCapacity = 0;
    BlockingQueue<?> queue = setters.queue();
    if (settings.containsKey(QUEUE_CAPACITY)) {
      setCapacity = capacitySetter(queue);
      if (setCapacity == null) {
        throw new Refused("pool \"" + name + "\": its queue, a " + queue.getClass().getName()
            + ", fixes its capacity when it is made; core and max can change");
      }
      oldCapacity = queue.size() + queue.remainingCapacity();
    }
    StringBuilder line = new StringBuilder("lanes-agent: pool \"" + name + "\"");
    try {
      if (max >= oldMax) {
        setters.setMax(max);
        setters.setCore(core);
      } else {
        setters.setCore(core);
        setters.setMax(max);
      }
      if (setCapacity != null) {
        setCapacity.invoke(queue, settings.get(QUEUE_CAPACITY));
      }
    } catch (Throwable t) {
      throw new Refused("pool \"" + name + "\" refused the change: " + t);
    }
    if (settings.containsKey(CORE)) {
      line.append(" core ").append(oldCore).append(" → ").append(core);
    }
    if (settings.containsKey(MAX)) {
      line.append(" max ").append(oldMax).append(" → ").append(max);
    }
    if (setCapacity != null) {
      line.append(" queue-capacity ").append(oldCapacity).append(" → ")
          .append(settings.get(QUEUE_CAPACITY));
    }
    String text = line.append(" (by ").append(by).append(')').toString();
    changes.add(text);
    System.err.println(text);
    return text;
  }

  /** The changes made so far, oldest first, as logged. */
  synchronized List<String> changes() {
    return List.copyOf(changes);
  }

  /** A queue's public {@code setCapacity(int)}, or null. */
  private static MethodHandle capacitySetter(BlockingQueue<?> queue) {
    try {
      return MethodHandles.publicLookup().findVirtual(queue.getClass(), "setCapacity",
          MethodType.methodType(void.class, int.class));
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  private static Setters setters(PoolKind kind, Object pool, String name) throws Refused {
    if (!kind.isThreadPool()) {
      throw new Refused("pool \"" + name + "\" is a " + kind.label + ", not a ThreadPoolExecutor:"
          + " --set changes the JDK's and Tomcat's ThreadPoolExecutors only");
    }
    try {
      return new Setters(pool);
    } catch (ReflectiveOperationException e) {
      throw new Refused("pool \"" + name + "\" (" + pool.getClass().getName() + ") has no public"
          + " core and max setters: " + e);
    }
  }

  /** A ThreadPoolExecutor's (the JDK's or Tomcat's) size, through its public methods. */
  private static final class Setters {
    private final Object pool;
    private final MethodHandle getCore;
    private final MethodHandle getMax;
    private final MethodHandle setCore;
    private final MethodHandle setMax;
    private final MethodHandle getQueue;

    Setters(Object pool) throws ReflectiveOperationException {
      this.pool = pool;
      MethodHandles.Lookup l = MethodHandles.publicLookup();
      Class<?> type = threadPoolClass(pool.getClass());
      MethodType getter = MethodType.methodType(int.class);
      MethodType setter = MethodType.methodType(void.class, int.class);
      getCore = l.findVirtual(type, "getCorePoolSize", getter);
      getMax = l.findVirtual(type, "getMaximumPoolSize", getter);
      setCore = l.findVirtual(type, "setCorePoolSize", setter);
      setMax = l.findVirtual(type, "setMaximumPoolSize", setter);
      getQueue = l.findVirtual(type, "getQueue", MethodType.methodType(BlockingQueue.class));
    }

    int core() throws Refused {
      return read(getCore);
    }

    int max() throws Refused {
      return read(getMax);
    }

    BlockingQueue<?> queue() throws Refused {
      try {
        return (BlockingQueue<?>) getQueue.invoke(pool);
      } catch (Throwable t) {
        throw new Refused("could not read the pool's queue: " + t);
      }
    }

    void setCore(int n) throws Throwable {
      setCore.invoke(pool, n);
    }

    void setMax(int n) throws Throwable {
      setMax.invoke(pool, n);
    }

    /** The JDK's or Tomcat's ThreadPoolExecutor among {@code type}'s classes (a subclass may be private). */
    private static Class<?> threadPoolClass(Class<?> type) {
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        if (c == java.util.concurrent.ThreadPoolExecutor.class
            || c.getName().equals("org.apache.tomcat.util.threads.ThreadPoolExecutor")) {
          return c;
        }
      }
      return type;
    }

    private int read(MethodHandle h) throws Refused {
      try {
        return (int) h.invoke(pool);
      } catch (Throwable t) {
        throw new Refused("could not read the pool's size: " + t);
      }
    }
  }
}
