package dev.lanes.agent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * The agent's one thread, {@code lanes-agent} (a daemon): every tick it drains each pool's
 * finished tasks, judges its health, looks for a starvation deadlock in each thread pool and for
 * blocking calls on the threads that must not block, and now and then drops the stamps of tasks
 * that left a queue unseen.
 *
 * <p><b>A starvation deadlock in a plain pool</b> is reported when every thread of the pool runs
 * a task that waits, with no timeout, on a task queued in the same pool ({@code
 * submit(..).get()}: the FutureTask is the waiting thread's park blocker; {@code
 * CompletableFuture.runAsync(.., pool).join()}: the thread is among the waiters of the queued
 * task's future), and the same threads still wait on the same tasks one detection period later. A
 * thread that is idle, runs, sleeps, waits with a timeout or waits on anything else means no
 * deadlock. Evidence: each thread's stack.
 *
 * <p><b>Concurrency design.</b> Only this thread judges health and runs the checks, so their
 * state needs no lock; it reads the pools' slots and queues as racy snapshots and asks for every
 * finding to hold twice before it speaks.
 */
final class Watchdog implements Runnable {
  private final Pools pools;
  private final StampTable stamps;
  private final AgentOptions options;
  private final Warnings warnings;
  private final long tickNanos;
  /** Per pool: the deadlock evidence seen at the last tick, and since when. */
  private final Map<PoolRecord, Suspect> suspects = new IdentityHashMap<>();
  private long lastSweep = System.nanoTime();
  private volatile boolean stopped;
  /** Serves /metrics between ticks when the option {@code port} asks for it; else null. */
  private volatile MetricsEndpoint endpoint;
  /** The live page's time series, sampled by this thread while the endpoint serves; else null. */
  private volatile LiveSeries live;
  /** Answers {@code ./lanes attach} after each tick; null if it could not open. */
  private volatile ControlChannel control;

  Watchdog(Pools pools, StampTable stamps, AgentOptions options, Warnings warnings) {
    this.pools = pools;
    this.stamps = stamps;
    this.options = options;
    this.warnings = warnings;
    this.tickNanos = Math.max(10_000_000L, Math.min(100_000_000L, options.deadlockCheckNanos / 2));
  }

  Thread start() {
    Thread t = new Thread(this, "lanes-agent");
    t.setDaemon(true);
    t.start();
    return t;
  }

  void stop() {
    stopped = true;
  }

  /** Answers {@code ./lanes attach}'s requests after each tick. */
  void answer(ControlChannel c) {
    this.control = c;
  }

  void serve(MetricsEndpoint e, LiveSeries series) {
    this.endpoint = e;
    this.live = series;
  }

  @Override public void run() {
    while (!stopped) {
      try {
        tick(System.nanoTime());
        ControlChannel c = control;
        if (c != null) {
          c.answerWaiting();
        }
      } catch (Throwable t) {
        // A bug of ours must not end the checks, nor reach the application.
        warnings.warnOnce(Warnings.Kind.INSTRUMENTATION, "watchdog", "",
            "the watchdog met an internal error and goes on (please report it): " + t, "");
      }
      MetricsEndpoint e = endpoint;
      if (e != null) {
        e.serveUntil(System.nanoTime() + tickNanos);
      } else {
        java.util.concurrent.locks.LockSupport.parkNanos(tickNanos);
      }
    }
  }

  void tick(long now) {
    PoolHealth.State[] from = new PoolHealth.State[1];
    for (Map.Entry<Object, PoolRecord> e : pools.livePools()) {
      Object pool = e.getKey();
      PoolRecord r = e.getValue();
      long[] sums = r.sums();
      long oldest = oldestQueuedNanos(r, pool, now);
      from[0] = null;
      PoolHealth.State before = r.health.state();
      boolean busyKnown = r.kind.isThreadPool();
      PoolHealth.State state = r.health.judge(now, sums[0], sums[1], sums[2], sums[3],
          r.rejected.sum(), oldest,
          busyKnown ? endedRunNanos(sums) + runningNanos(r, pool, now) : PoolHealth.BUSY_UNKNOWN,
          busyKnown ? r.view.threads(pool) : 0, from);
      if (from[0] != null) {
        AgentEvents.health(r.name(), from[0].name(), state.name(), r.health.why);
      }
      if (r.kind.isThreadPool()) {
        checkDeadlock(pool, r, now);
      }
      if (r.kind.mustNotBlock()) {
        checkBlocking(r, now);
      }
      if (state != PoolHealth.State.OK && state != PoolHealth.State.DEADLOCKED
          && before == state && r.health.inStateNanos(now) > options.saturatedWarnNanos) {
        warnSaturated(r, now);
      }
    }
    LiveSeries series = live;
    if (series != null) {
      series.tick(now, pools.livePools(), this::oldestQueuedNanos);
    }
    if (now - lastSweep > options.sweepAgeNanos) {
      lastSweep = now;
      sweep(now);
    }
  }

  /**
   * The run time of the tasks that ended, from {@link PoolRecord#sums()}: the timed tasks' sum,
   * scaled to every task that ended when only some were timed (sampled mode: an estimate).
   */
  static long endedRunNanos(long[] sums) {
    long timed = sums[2];
    long runSum = sums[3];
    long ended = sums[4];
    if (timed == ended) {
      return runSum;
    }
    return timed == 0 ? 0 : (long) (runSum * ((double) ended / timed));
  }

  /**
   * How long the tasks of {@code pool} running now have run so far (the timed ones: a task that
   * sampled mode left untimed has no start; the ended ones' estimate stands for it).
   */
  private static long runningNanos(PoolRecord r, Object pool, long now) {
    long sum = 0;
    for (RunSlot s : r.slots) {
      if (s.pool == pool && s.current() != null) {
        long start = s.currentStart();
        if (start != RunSlot.START_UNKNOWN) {
          sum += Math.max(0, now - start);
        }
      }
    }
    return sum;
  }

  /** How old the task at the head of a pool's queue is (for the live page). */
  interface OldestQueued {
    long nanos(PoolRecord r, Object pool, long now);
  }

  /**
   * The age of the task at the head of the queue, from its stamp (0 if none or unknown). In
   * sampled mode a head without a stamp is as old as the time this thread has seen it at the head
   * with no task of the pool ending meanwhile (at least; 0 at first sight): a stuck queue's age
   * still grows, tick by tick.
   */
  long oldestQueuedNanos(PoolRecord r, Object pool, long now) {
    Object head;
    try {
      head = r.view.head(pool);
    } catch (RuntimeException e) {
      return 0;
    }
    if (head == null) {
      r.seenHead = null;
      return 0;
    }
    long stamp = stamps.peek(head);
    if (stamp != StampTable.NONE && stamp != StampTable.BLANK) {
      return Math.max(0, now - stamp);
    }
    if (head instanceof java.util.concurrent.Delayed d
        && head.getClass().getName().endsWith("ScheduledThreadPoolExecutor$ScheduledFutureTask")) {
      long delay = d.getDelay(TimeUnit.NANOSECONDS);
      return delay < 0 ? -delay : 0;
    }
    if (r.timedOneIn > 1) {
      long ended = r.endedSoFar();
      if (r.seenHead == null || r.seenHead.get() != head || r.seenHeadEnded != ended) {
        r.seenHead = new java.lang.ref.WeakReference<>(head);
        r.seenHeadEnded = ended;
        r.seenHeadSince = now;
      }
      return Math.max(0, now - r.seenHeadSince);
    }
    return 0;
  }

  // --- starvation deadlock in a plain pool ---------------------------------------------------

  private record Suspect(Map<Thread, Object> waits, long since) {}

  private void checkDeadlock(Object pool, PoolRecord r, long now) {
    Map<Thread, Object> waits = proveStuck(pool, r);
    if (waits == null) {
      suspects.remove(r);
      if (r.health.state() == PoolHealth.State.DEADLOCKED) {
        PoolHealth.State[] from = new PoolHealth.State[1];
        r.health.deadlocked(false, now, from);
        AgentEvents.health(r.name(), "DEADLOCKED", r.health.state().name(), "no longer stuck");
      }
      return;
    }
    Suspect s = suspects.get(r);
    if (s == null || !s.waits.equals(waits)) {
      suspects.put(r, new Suspect(waits, now));
      return;
    }
    if (now - s.since < options.deadlockCheckNanos || r.health.state() == PoolHealth.State.DEADLOCKED) {
      return;
    }
    PoolHealth.State[] from = new PoolHealth.State[1];
    r.health.deadlocked(true, now, from);
    AgentEvents.health(r.name(), from[0] == null ? "?" : from[0].name(), "DEADLOCKED", "");
    int queued = r.view.queued(pool);
    String message = String.format(Locale.ROOT,
        "starvation deadlock in pool \"%s\" (%s): all %d of its threads wait, with no timeout,"
            + " on tasks queued behind them in the same pool (%d queued); nothing will run"
            + " again. Give the nested tasks their own pool, or do not wait inside a task.",
        r.name(), r.kind.label, waits.size(), queued);
    warnings.warnOnce(Warnings.Kind.DEADLOCK, key(r), r.name(), message, stacks(waits.keySet()));
  }

  /**
   * The pool's threads mapped to the queued task each waits on, if every thread of the pool waits
   * on one; null otherwise.
   */
  private static Map<Thread, Object> proveStuck(Object pool, PoolRecord r) {
    int threads = r.view.threads(pool);
    if (threads <= 0 || r.view.queued(pool) == 0) {
      return null;
    }
    List<RunSlot> busy = new ArrayList<>();
    for (RunSlot s : r.slots) {
      if (s.pool == pool && s.owner.isAlive() && s.current() != null) {
        busy.add(s);
      }
    }
    if (busy.size() < threads) {
      return null; // an idle or starting thread will take the queued work
    }
    Map<Thread, Object> waits = new HashMap<>();
    List<Thread> onCompletableFutures = new ArrayList<>();
    for (RunSlot s : busy) {
      FutureTask<?> f = JdkFutureWaits.awaitedFutureTask(s.owner);
      if (f != null) {
        waits.put(s.owner, f);
      } else if (JdkFutureWaits.parkedOnCompletableFuture(s.owner)) {
        onCompletableFutures.add(s.owner);
      } else {
        return null; // runs, sleeps, waits with a timeout or on something else
      }
    }
    Collection<?> queued = r.view.queuedTasks(pool);
    Set<Object> queuedSet = Collections.newSetFromMap(new IdentityHashMap<>());
    queuedSet.addAll(queued);
    for (Object f : waits.values()) {
      if (!queuedSet.contains(f)) {
        return null; // waits on a task that runs elsewhere, or is not queued here
      }
    }
    if (!onCompletableFutures.isEmpty()) {
      for (Object task : queued) {
        Set<Thread> waiters = Collections.newSetFromMap(new IdentityHashMap<>());
        JdkFutureWaits.waitersOfAsyncTask(task, waiters);
        for (Thread t : waiters) {
          if (onCompletableFutures.remove(t)) {
            waits.put(t, task);
          }
        }
      }
      if (!onCompletableFutures.isEmpty()) {
        return null; // waits on a future that is not a task queued here (or unreadable)
      }
    }
    // The pool must not have gained a thread meanwhile (one that would take the queued work).
    return r.view.threads(pool) == threads ? waits : null;
  }

  // --- blocking on threads that must not block -------------------------------------------------

  private void checkBlocking(PoolRecord r, long now) {
    for (RunSlot s : r.slots) {
      Object task = s.current();
      if (task == null) {
        continue;
      }
      long running = now - s.currentStart();
      if (running < options.blockingWarnNanos) {
        continue;
      }
      Thread t = s.owner;
      Thread.State st = t.getState();
      StackTraceElement[] stack = t.getStackTrace();
      if (s.current() != task) {
        continue; // moved on while we looked
      }
      boolean blocked = st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING
          || st == Thread.State.BLOCKED || (st == Thread.State.RUNNABLE && inNativeIo(stack));
      if (!blocked || joiningForkJoinTask(stack)) {
        continue;
      }
      String site = firstApplicationFrame(stack);
      String message = String.format(Locale.ROOT,
          "blocking call on %s \"%s\": a task has been %s for %d ms (thread %s, at %s); every task"
              + " queued behind it waits. Move blocking work to a pool of its own.",
          r.kind.label, r.name(), describe(st, stack), running / 1_000_000, t.getName(), site);
      warnings.warnOnce(Warnings.Kind.BLOCKING, key(r) + "@" + site, r.name(), message,
          format(t, stack));
    }
  }

  /**
   * True when the thread is parked in a fork-join task's join (the fork/join a fork-join pool is
   * made for: it waits for a subtask another worker computes, and the pool may add a thread
   * meanwhile), not parked by a task that blocks. A task blocking inside a task run while joining
   * has its own frames on top, and is not excused.
   */
  private static boolean joiningForkJoinTask(StackTraceElement[] stack) {
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      if (c.equals("jdk.internal.misc.Unsafe") || c.equals("java.util.concurrent.locks.LockSupport")) {
        continue;
      }
      return c.equals("java.util.concurrent.ForkJoinTask") && f.getMethodName().equals("awaitDone");
    }
    return false;
  }

  private static boolean inNativeIo(StackTraceElement[] stack) {
    if (stack.length == 0 || !stack[0].isNativeMethod()) {
      return false;
    }
    String c = stack[0].getClassName();
    return c.startsWith("sun.nio.") || c.startsWith("java.net.") || c.startsWith("java.io.")
        || c.startsWith("sun.net.");
  }

  private static String describe(Thread.State st, StackTraceElement[] stack) {
    return switch (st) {
      case WAITING, TIMED_WAITING -> "parked";
      case BLOCKED -> "blocked on a lock";
      default -> "in IO (" + (stack.length > 0 ? stack[0].getClassName() + "." + stack[0].getMethodName() : "?") + ")";
    };
  }

  private static String firstApplicationFrame(StackTraceElement[] stack) {
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      if (!c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("sun.")
          && !Pools.isAgentClass(c)) {
        return f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber();
      }
    }
    return stack.length > 0 ? stack[0].toString() : "?";
  }

  // --- saturated for too long ----------------------------------------------------------------

  private void warnSaturated(PoolRecord r, long now) {
    List<Thread> workers = new ArrayList<>();
    for (RunSlot s : r.slots) {
      if (s.owner.isAlive()) {
        workers.add(s.owner);
      }
    }
    String message = String.format(Locale.ROOT,
        "pool \"%s\" (%s) has been %s for %d s: %s. Its workers' stacks, taken once, follow.",
        r.name(), r.kind.label, r.health.state(), r.health.inStateNanos(now) / 1_000_000_000L,
        r.health.why);
    warnings.warnOnce(Warnings.Kind.SATURATED, key(r), r.name(), message, stacks(workers));
  }

  // --- evidence ------------------------------------------------------------------------------

  private static final int MAX_THREADS_SHOWN = 16;
  private static final int MAX_FRAMES = 24;

  private static String stacks(Collection<Thread> threads) {
    StringBuilder b = new StringBuilder();
    int n = 0;
    for (Thread t : threads) {
      if (n++ == MAX_THREADS_SHOWN) {
        b.append("  ... and ").append(threads.size() - MAX_THREADS_SHOWN).append(" more threads\n");
        break;
      }
      b.append(format(t, t.getStackTrace()));
    }
    return b.toString();
  }

  private static String format(Thread t, StackTraceElement[] stack) {
    StringBuilder b = new StringBuilder();
    b.append("  \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
    for (int i = 0; i < stack.length && i < MAX_FRAMES; i++) {
      b.append("      at ").append(stack[i]).append('\n');
    }
    if (stack.length > MAX_FRAMES) {
      b.append("      ... ").append(stack.length - MAX_FRAMES).append(" more\n");
    }
    return b.toString();
  }

  private static String key(PoolRecord r) {
    return Integer.toHexString(System.identityHashCode(r));
  }

  // --- stamps of tasks that left a queue unseen ----------------------------------------------

  private void sweep(long now) {
    // A stamp does not say which pool it was for: keep it if any pool still holds its task, or
    // if some pool's queue cannot be read (the table's bound still holds). A pool the agent has
    // not registered yet (made before an attach, no task started since) is not looked at: its
    // tasks' stamps older than the sweep age go, and those waits count as unknown.
    Set<Object> queued = Collections.newSetFromMap(new IdentityHashMap<>());
    boolean unreadable = false;
    for (Map.Entry<Object, PoolRecord> e : pools.livePools()) {
      if (e.getValue().view == PoolView.NONE || !ForkJoinPoolView.listsQueues(e.getValue().view)) {
        unreadable = true;
        continue;
      }
      try {
        queued.addAll(e.getValue().view.queuedTasks(e.getKey()));
      } catch (RuntimeException ex) {
        unreadable = true;
      }
    }
    if (unreadable) {
      return;
    }
    stamps.sweep(now - options.sweepAgeNanos, queued::contains);
  }
}
