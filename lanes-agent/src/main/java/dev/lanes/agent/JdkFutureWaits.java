package dev.lanes.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.locks.LockSupport;

/**
 * Which queued task a blocked thread waits on, read from the JDK's futures: a thread in {@code
 * FutureTask.get()} parks with the FutureTask itself as its blocker; a thread in {@code
 * CompletableFuture.join()/get()} parks on a waiter node pushed on the future's stack, found from
 * the queued {@code runAsync/supplyAsync} task's future (and the stages that depend on it). The
 * second needs {@code java.base/java.util.concurrent} open to the agent, which the agent opens to
 * itself at start ({@link #isAvailable()} says whether that worked). Reads are racy snapshots; the
 * deadlock check asks for the same answer twice, a detection period apart.
 */
final class JdkFutureWaits {
  private static final String CF = "java.util.concurrent.CompletableFuture";
  private static final Class<?> ASYNC_RUN = load(CF + "$AsyncRun");
  private static final Class<?> ASYNC_SUPPLY = load(CF + "$AsyncSupply");
  private static final Class<?> SIGNALLER = load(CF + "$Signaller");
  private static final Class<?> COMPLETION = load(CF + "$Completion");
  private static final Class<?> UNI_COMPLETION = load(CF + "$UniCompletion");
  private static final VarHandle RUN_DEP = handle(ASYNC_RUN, "dep", CompletableFuture.class);
  private static final VarHandle SUPPLY_DEP = handle(ASYNC_SUPPLY, "dep", CompletableFuture.class);
  private static final VarHandle STACK = handle(CompletableFuture.class, "stack", COMPLETION);
  private static final VarHandle NEXT = handle(COMPLETION, "next", COMPLETION);
  private static final VarHandle SIGNALLER_THREAD = handle(SIGNALLER, "thread", Thread.class);
  private static final VarHandle SIGNALLER_DEADLINE = handle(SIGNALLER, "deadline", long.class);
  private static final VarHandle UNI_DEP = handle(UNI_COMPLETION, "dep", CompletableFuture.class);
  private static final Class<?> UNI_WHEN_COMPLETE = load(CF + "$UniWhenComplete");
  private static final Class<?> CANCELLER = load(CF + "$Canceller");
  private static final VarHandle WHEN_COMPLETE_FN =
      handle(UNI_WHEN_COMPLETE, "fn", java.util.function.BiConsumer.class);
  private static final boolean AVAILABLE = RUN_DEP != null && SUPPLY_DEP != null && STACK != null
      && NEXT != null && SIGNALLER_THREAD != null && SIGNALLER_DEADLINE != null && UNI_DEP != null
      && WHEN_COMPLETE_FN != null && CANCELLER != null;
  private static final int MAX_DEPTH = 4;
  private static final int MAX_COMPLETIONS = 10_000;

  private JdkFutureWaits() {}

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static VarHandle handle(Class<?> c, String field, Class<?> type) {
    if (c == null || type == null) {
      return null;
    }
    try {
      return MethodHandles.privateLookupIn(c, MethodHandles.lookup()).findVarHandle(c, field, type);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // not open to the agent, or the JDK changed its insides
    }
  }

  static boolean isAvailable() {
    return AVAILABLE;
  }

  /**
   * The not-done FutureTask {@code t} waits on with no timeout, or null. A thread waiting with a
   * timeout ({@code TIMED_WAITING}) can wake by itself and never counts.
   */
  static FutureTask<?> awaitedFutureTask(Thread t) {
    Object blocker = LockSupport.getBlocker(t);
    if (blocker instanceof FutureTask<?> f && !f.isDone() && t.getState() == Thread.State.WAITING) {
      return f;
    }
    return null;
  }

  /** True if {@code t} is parked with no timeout in a CompletableFuture's join/get. */
  static boolean parkedOnCompletableFuture(Thread t) {
    Object blocker = LockSupport.getBlocker(t);
    return SIGNALLER != null && blocker != null && blocker.getClass() == SIGNALLER
        && t.getState() == Thread.State.WAITING;
  }

  /** Adds the threads waiting with no timeout on the future of a queued runAsync/supplyAsync task. */
  static void waitersOfAsyncTask(Object task, Set<Thread> out) {
    if (!AVAILABLE || task == null) {
      return;
    }
    CompletableFuture<?> f = null;
    if (task.getClass() == ASYNC_RUN) {
      f = (CompletableFuture<?>) RUN_DEP.getVolatile(task);
    } else if (task.getClass() == ASYNC_SUPPLY) {
      f = (CompletableFuture<?>) SUPPLY_DEP.getVolatile(task);
    }
    if (f != null) {
      collect(f, out, 0);
    }
  }

  private static void collect(CompletableFuture<?> f, Set<Thread> out, int depth) {
    if (f.isDone() || hasTimeout(f)) {
      return; // an orTimeout wakes its waiters by itself
    }
    int seen = 0;
    for (Object c = STACK.getVolatile(f); c != null && seen < MAX_COMPLETIONS;
        c = NEXT.getVolatile(c), seen++) {
      if (c.getClass() == SIGNALLER) {
        Thread t = (Thread) SIGNALLER_THREAD.getVolatile(c);
        if (t != null && (long) SIGNALLER_DEADLINE.get(c) == 0L) {
          out.add(t);
        }
      } else if (depth + 1 < MAX_DEPTH && UNI_COMPLETION.isInstance(c)) {
        if (UNI_DEP.getVolatile(c) instanceof CompletableFuture<?> d) {
          collect(d, out, depth + 1);
        }
      }
    }
  }

  /** True if {@code orTimeout}/{@code completeOnTimeout} attached a timeout to {@code f}. */
  private static boolean hasTimeout(CompletableFuture<?> f) {
    int seen = 0;
    for (Object c = STACK.getVolatile(f); c != null && seen < MAX_COMPLETIONS;
        c = NEXT.getVolatile(c), seen++) {
      if (c.getClass() == UNI_WHEN_COMPLETE) {
        Object fn = WHEN_COMPLETE_FN.getVolatile(c);
        if (fn != null && fn.getClass() == CANCELLER) {
          return true;
        }
      }
    }
    return false;
  }
}
