package dev.lanes.agent;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Every pool the agent has seen, each with a stable, readable name:
 *
 * <ol>
 *   <li>the framework's name where it has one (the common pool);
 *   <li>else its threads' name without the trailing number ({@code http-nio-8080-exec-3} → {@code
 *       http-nio-8080-exec}; a name without one as it is, {@code HikariPool-1:housekeeper}), taken
 *       when its first task runs, unless the threads have the JDK's default names ({@code
 *       pool-7-thread-1}), which say nothing; a Netty event loop, which has one thread for its
 *       life, takes that thread's full name ({@code nioEventLoopGroup-2-1});
 *   <li>else where it was made: the first caller outside the JDK and outside the constructors of
 *       the pool's own classes ({@code OrderService.init:42}, also for an anonymous subclass made
 *       there, {@code new ThreadPoolExecutor(..) { .. }}).
 * </ol>
 *
 * The threads' name comes first because it is the same however the agent was loaded: attached to
 * a running JVM, the agent never saw the pools made before, so it cannot know where they were
 * made, but it sees their threads. A pool of the JDK's own (its thread factory is a JDK class,
 * as the process reaper's) is named {@code jdk:} and its threads' name, spaces as
 * dashes ({@code jdk:process-reaper}), or {@code jdk:} and the class that made it until a thread
 * ran, never after the application code that happened to make the JDK start it. (The factories
 * the JDK offers applications, {@code Executors}' and {@code Thread.ofPlatform().factory()}, do
 * not make a pool the JDK's.)
 *
 * <p>
 * A name already taken by another live pool gets {@code #2}, {@code #3}. At most {@code maxPools}
 * records exist: further pools are added up under one record named {@value #OTHER}. A pool that
 * the application dropped (garbage collected) leaves its figures under its name: the next pool
 * made at the same place continues that record's counts, so a pool made per request is one row.
 *
 * <p><b>Concurrency design.</b> Every structure here is guarded by this object's monitor; lookups
 * happen when a pool is made, when a thread runs its first task for a pool, on a rejection, and on
 * the watchdog's tick, never per task.
 */
final class Pools {
  static final String OTHER = "other";
  private static final Pattern JDK_DEFAULT_THREAD = Pattern.compile("pool-\\d+-thread-\\d+");
  static final String JDK_PREFIX = "jdk:";
  private static final StackWalker WALKER =
      StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private final int maxPools;
  private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
  private final Map<Key, PoolRecord> live = new HashMap<>();
  /** Figures of collected pools, by name (a record with no pool). */
  private final Map<String, PoolRecord> retired = new LinkedHashMap<>();
  private final Map<String, Integer> namesInUse = new HashMap<>();
  private PoolRecord other;

  /** Agent option {@code sample}: a thread pool's record times about one task in this many. */
  private final int sampleEvery;

  Pools(int maxPools) {
    this(maxPools, 1);
  }

  Pools(int maxPools, int sampleEvery) {
    this.maxPools = maxPools;
    this.sampleEvery = sampleEvery;
  }

  /** The record of {@code pool}, made (and named) if new; {@code atCreation} from its constructor. */
  synchronized PoolRecord recordFor(Object pool, boolean atCreation) {
    expunge();
    PoolRecord r = live.get(new Key(pool, null));
    if (r != null) {
      return r;
    }
    if (live.size() + retired.size() >= maxPools) {
      return other();
    }
    PoolKind kind = PoolKind.of(pool);
    String jdkMaker = jdkMaker(pool);
    String site = kind == PoolKind.COMMON_POOL || !atCreation ? null : siteOfCaller(pool);
    String base = kind == PoolKind.COMMON_POOL ? "ForkJoinPool.commonPool"
        : jdkMaker != null ? JDK_PREFIX + jdkMaker
        : site != null ? site
        : pool.getClass().getName().replaceAll("^.*[.$]", "") + "@" + Integer.toHexString(System.identityHashCode(pool));
    r = new PoolRecord(kind, pool, unique(base), site, System.nanoTime());
    r.timedOneIn = kind.isThreadPool() ? sampleEvery : 1;
    if (kind == PoolKind.COMMON_POOL) {
      r.nameSettled = true;
    }
    PoolRecord old = retired.remove(r.name());
    if (old != null) {
      r.absorb(old);
    }
    live.put(new Key(pool, collected), r);
    return r;
  }

  /** Forgets a pool the agent made for itself. */
  synchronized void forget(Object pool) {
    PoolRecord r = live.remove(new Key(pool, null));
    if (r != null) {
      release(r.name());
    }
  }

  /** Names the record after its threads, the first time one of them runs a task. */
  synchronized void nameAfterThread(PoolRecord r, String threadName) {
    if (r.nameSettled || r.kind == PoolKind.OTHER) {
      return;
    }
    r.nameSettled = true;
    if (JDK_DEFAULT_THREAD.matcher(threadName).matches()) {
      return; // "pool-7-thread-1" says nothing: keep where it was made
    }
    Object pool = r.pool.get();
    boolean jdk = pool != null && jdkMaker(pool) != null;
    String bare = jdk ? threadName.replaceFirst("\\s*\\(.*\\)$", "") : threadName; // "(pid 42)"
    // An event loop has one thread for its life: its full name is the loop's (see NettyHooks).
    String prefix = r.kind == PoolKind.EVENT_LOOP ? threadName
        : bare.replaceAll("[-_#. ]*\\d+$", "");
    if (prefix.isEmpty()) {
      return;
    }
    release(r.name());
    r.rename(unique(jdk ? JDK_PREFIX + prefix.replace(' ', '-') : prefix), true);
  }

  /**
   * The simple name of the JDK class that made {@code pool}'s thread factory (so the pool) when it
   * is one of the JDK's own pools; null for the application's.
   */
  static String jdkMaker(Object pool) {
    if (!(pool instanceof java.util.concurrent.ThreadPoolExecutor tpe)) {
      return null;
    }
    String c;
    try {
      c = tpe.getThreadFactory().getClass().getName();
    } catch (RuntimeException e) {
      return null; // a subclass's own getThreadFactory
    }
    if (!isJdkClass(c) || c.startsWith("java.util.concurrent.")
        || c.startsWith("java.lang.ThreadBuilders")) {
      return null; // Executors' factories, Thread.ofPlatform().factory(): the application's choice
    }
    String outer = c.replaceAll("\\$.*$", "");
    return outer.substring(outer.lastIndexOf('.') + 1);
  }

  private static boolean isJdkClass(String className) {
    return className.startsWith("java.") || className.startsWith("jdk.")
        || className.startsWith("sun.") || className.startsWith("com.sun.");
  }

  /** The live records and the retired ones, the live first; {@code other} last. */
  synchronized List<PoolRecord> all() {
    expunge();
    List<PoolRecord> out = new ArrayList<>(live.values());
    out.addAll(retired.values());
    if (other != null) {
      out.add(other);
    }
    return out;
  }

  /** The live pools with their records (the watchdog's checks). */
  synchronized List<Map.Entry<Object, PoolRecord>> livePools() {
    expunge();
    List<Map.Entry<Object, PoolRecord>> out = new ArrayList<>(live.size());
    for (Map.Entry<Key, PoolRecord> e : live.entrySet()) {
      Object pool = e.getKey().get();
      if (pool != null) {
        out.add(Map.entry(pool, e.getValue()));
      }
    }
    return out;
  }

  synchronized Optional<PoolRecord> byName(String name) {
    return all().stream().filter(r -> r.name().equals(name)).findFirst();
  }

  private PoolRecord other() {
    if (other == null) {
      other = new PoolRecord(PoolKind.OTHER, null, OTHER, null, System.nanoTime());
      other.nameSettled = true;
    }
    return other;
  }

  private String unique(String base) {
    int n = namesInUse.merge(base, 1, Integer::sum);
    return n == 1 ? base : base + "#" + n;
  }

  private void release(String name) {
    namesInUse.computeIfPresent(name, (k, v) -> v <= 1 ? null : v - 1);
  }

  /** Moves the records of collected pools to {@link #retired}; call under the monitor. */
  private void expunge() {
    for (Reference<?> ref; (ref = collected.poll()) != null; ) {
      PoolRecord r = live.remove((Key) ref);
      if (r == null) {
        continue;
      }
      release(r.name());
      String name = r.name().replaceAll("#\\d+$", "");
      PoolRecord keep = retired.get(name);
      if (keep == null) {
        keep = new PoolRecord(r.kind, null, name, r.site, System.nanoTime());
        keep.nameSettled = true;
        retired.put(name, keep);
      }
      keep.absorb(r);
    }
  }

  /**
   * The first caller outside the JDK, the agent and the constructors of {@code pool}'s classes,
   * as {@code Class.method:line}, or null.
   */
  static String siteOfCaller(Object pool) {
    return WALKER.walk(frames -> frames
        .filter(f -> !isPlumbing(f.getClassName()) && !constructs(f, pool))
        .findFirst()
        .map(f -> simpleName(f.getClassName()) + "." + f.getMethodName() + ":" + f.getLineNumber())
        .orElse(null));
  }

  /** True for a constructor of {@code pool}'s class or a superclass (an anonymous subclass's). */
  private static boolean constructs(StackWalker.StackFrame f, Object pool) {
    return f.getMethodName().equals("<init>") && f.getDeclaringClass().isInstance(pool);
  }

  private static boolean isPlumbing(String className) {
    return className.startsWith("java.") || className.startsWith("jdk.")
        || className.startsWith("sun.") || isAgentClass(className)
        || className.startsWith("org.apache.tomcat.util.threads.")
        || className.startsWith("io.netty.util.concurrent.");
  }

  /** The agent's own classes (not an application's that happens to share the prefix). */
  static boolean isAgentClass(String className) {
    String own = "dev.lanes.agent.";
    return className.startsWith(own) && (className.indexOf('.', own.length()) < 0
        || className.startsWith(own + "bootstrap.") || className.startsWith(own + "shaded."));
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  /**
   * A pool's key: weak, compared by identity (a pool class may override {@code equals}). A probe
   * key (no queue) is made for lookups.
   */
  private static final class Key extends WeakReference<Object> {
    private final int hash;

    Key(Object pool, ReferenceQueue<Object> queue) {
      super(pool, queue);
      this.hash = System.identityHashCode(pool);
    }

    @Override public int hashCode() {
      return hash;
    }

    @Override public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof Key k)) {
        return false;
      }
      Object mine = get();
      return mine != null && mine == k.get();
    }
  }
}
