package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads what the JDK keeps private in a {@link CompletableFuture}, where {@code
 * java.base/java.util.concurrent} is open to lanes ({@code --add-opens
 * java.base/java.util.concurrent=ALL-UNNAMED}, or {@code Add-Opens} in an executable jar's
 * manifest):
 *
 * <ul>
 *   <li>the future behind a task that {@code CompletableFuture.runAsync} or {@code supplyAsync}
 *       handed to a lane's {@code execute}, so that lanes can end it when the task will never run
 *       (dropped, unstartable, returned by {@code shutdownNow}, failed by the deadlock policy);
 *   <li>the threads blocked in {@code join()}/{@code get()} on a future (its waiting "signallers"),
 *       with whether their wait can end by itself (a timed {@code get}, an {@code orTimeout}), so
 *       that the deadlock detector can prove which queued task a worker waits on.
 * </ul>
 *
 * Where the package is not open, {@link #isAvailable()} is false: such a future cannot be ended
 * by lanes (the task is reported to the lane's exception handler instead), and which future a
 * thread waits on cannot be read (a deadlock through them is at most suspected, from {@link
 * #parkedOnFutureUntimed}, which needs no access). Each of the two is explained once per JVM, the
 * first time it happens ({@link #explainUnreachableOnce}, {@link #explainSuspicionOnce}), never
 * at start-up: an application that never meets either hears nothing of the flag.
 */
final class ForeignFutures {
  private static final System.Logger LOG = System.getLogger("dev.lanes");
  private static final String CF = "java.util.concurrent.CompletableFuture";
  private static final Class<?> ASYNC_RUN = load(CF + "$AsyncRun");
  private static final Class<?> ASYNC_SUPPLY = load(CF + "$AsyncSupply");
  private static final Class<?> SIGNALLER = load(CF + "$Signaller");
  private static final Class<?> UNI_COMPLETION = load(CF + "$UniCompletion");
  private static final Class<?> UNI_WHEN_COMPLETE = load(CF + "$UniWhenComplete");
  private static final Class<?> CANCELLER = load(CF + "$Canceller");
  private static final VarHandle RUN_DEP = handle(ASYNC_RUN, "dep", CompletableFuture.class);
  private static final VarHandle SUPPLY_DEP = handle(ASYNC_SUPPLY, "dep", CompletableFuture.class);
  private static final VarHandle STACK = handle(CompletableFuture.class, "stack", load(CF + "$Completion"));
  private static final VarHandle NEXT = handle(load(CF + "$Completion"), "next", load(CF + "$Completion"));
  private static final VarHandle SIGNALLER_THREAD = handle(SIGNALLER, "thread", Thread.class);
  private static final VarHandle SIGNALLER_DEADLINE = handle(SIGNALLER, "deadline", long.class);
  private static final VarHandle UNI_DEP = handle(UNI_COMPLETION, "dep", CompletableFuture.class);
  private static final VarHandle WHEN_COMPLETE_FN =
      handle(UNI_WHEN_COMPLETE, "fn", java.util.function.BiConsumer.class);
  private static final boolean AVAILABLE =
      RUN_DEP != null && SUPPLY_DEP != null && STACK != null && NEXT != null
          && SIGNALLER_THREAD != null && SIGNALLER_DEADLINE != null && UNI_DEP != null
          && WHEN_COMPLETE_FN != null && CANCELLER != null;
  /** How deep the waiter search follows dependent stages ({@code f.thenApply(..).join()}). */
  private static final int MAX_DEPTH = 4;
  /** Bound on the completions read per future (a future with more is treated as unreadable). */
  private static final int MAX_COMPLETIONS = 10_000;

  private static final java.util.concurrent.atomic.AtomicBoolean EXPLAINED_UNREACHABLE =
      new java.util.concurrent.atomic.AtomicBoolean();
  private static final java.util.concurrent.atomic.AtomicBoolean EXPLAINED_SUSPICION =
      new java.util.concurrent.atomic.AtomicBoolean();

  private ForeignFutures() {}

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
      return null; // package not open to us, or the JDK changed its insides
    }
  }

  /** True where lanes can read the JDK's futures (the package is open to it). */
  static boolean isAvailable() {
    return AVAILABLE;
  }

  /** True for the task objects of {@code CompletableFuture.runAsync/supplyAsync}. */
  static boolean isJdkAsyncTask(Object task) {
    return task != null && (task.getClass() == ASYNC_RUN || task.getClass() == ASYNC_SUPPLY);
  }

  /**
   * Logs once per JVM, the first time a runAsync/supplyAsync task that will never run could not
   * have its future completed, why and what flag would let lanes complete it.
   */
  static void explainUnreachableOnce() {
    if (AVAILABLE || !EXPLAINED_UNREACHABLE.compareAndSet(false, true)) {
      return;
    }
    LOG.log(System.Logger.Level.WARNING,
        "lanes: java.util.concurrent is not open to lanes, so the future that"
            + " CompletableFuture.runAsync/supplyAsync(..., lane) made for a task that will never run"
            + " cannot be completed; the task goes to the lane's exception handler instead (lanes'"
            + " own futures are not affected). Add --add-opens java.base/java.util.concurrent"
            + "=ALL-UNNAMED (or Add-Opens in an executable jar's manifest) to complete such futures.");
  }

  /**
   * Logs once per JVM, at the first suspected deadlock, that it could be proven (and acted on)
   * with the package open.
   */
  static void explainSuspicionOnce() {
    if (AVAILABLE || !EXPLAINED_SUSPICION.compareAndSet(false, true)) {
      return;
    }
    LOG.log(System.Logger.Level.WARNING,
        "lanes: a starvation deadlock through CompletableFuture.runAsync/supplyAsync(..., lane)"
            + " futures is suspected but cannot be proven, because java.util.concurrent is not open"
            + " to lanes: it is reported as suspected and no deadlock policy acts on it. Add"
            + " --add-opens java.base/java.util.concurrent=ALL-UNNAMED (or Add-Opens in an"
            + " executable jar's manifest) to prove such deadlocks and let the policy act.");
  }

  /**
   * True if {@code t} is parked with no timeout in {@code join()} or {@code get()} of a {@link
   * CompletableFuture} (its park blocker is the future's waiter node, whose class needs no access
   * to compare). Which future cannot be told without the package open. Racy: a snapshot.
   */
  static boolean parkedOnFutureUntimed(Thread t) {
    Object blocker = java.util.concurrent.locks.LockSupport.getBlocker(t);
    return SIGNALLER != null && blocker != null && blocker.getClass() == SIGNALLER
        && t.getState() == Thread.State.WAITING;
  }

  /** The future behind a runAsync/supplyAsync task, or null (not such a task, or unreadable). */
  static CompletableFuture<?> futureOf(Object task) {
    if (!AVAILABLE || task == null) {
      return null;
    }
    if (task.getClass() == ASYNC_RUN) {
      return (CompletableFuture<?>) RUN_DEP.getVolatile(task);
    }
    if (task.getClass() == ASYNC_SUPPLY) {
      return (CompletableFuture<?>) SUPPLY_DEP.getVolatile(task);
    }
    return null;
  }

  static boolean completeExceptionally(Object task, Throwable ex) {
    CompletableFuture<?> f = futureOf(task);
    if (f == null && isJdkAsyncTask(task)) {
      explainUnreachableOnce();
    }
    return f != null && f.completeExceptionally(ex);
  }

  static boolean cancel(Object task) {
    CompletableFuture<?> f = futureOf(task);
    return f != null && f.cancel(false);
  }

  /**
   * Adds to {@code out} every thread blocked without a timeout on {@code f}, or on a stage that
   * depends on it (up to {@value #MAX_DEPTH} stages down), whose wait can only end when {@code f}
   * completes. A stage with a timeout attached ({@code orTimeout}) adds none of its waiters. Does
   * nothing where the JDK's futures cannot be read.
   */
  static void untimedWaiters(CompletableFuture<?> f, List<Thread> out) {
    if (AVAILABLE && f != null) {
      collect(f, out, 0);
    }
  }

  private static void collect(CompletableFuture<?> f, List<Thread> out, int depth) {
    if (f.isDone() || hasTimeout(f)) {
      return;
    }
    int seen = 0;
    for (Object c = STACK.getVolatile(f); c != null && seen < MAX_COMPLETIONS;
        c = NEXT.getVolatile(c), seen++) {
      if (c.getClass() == SIGNALLER) {
        Thread t = (Thread) SIGNALLER_THREAD.getVolatile(c);
        long deadline = (long) SIGNALLER_DEADLINE.get(c);
        if (t != null && deadline == 0L) {
          out.add(t);
        }
      } else if (depth + 1 < MAX_DEPTH && UNI_COMPLETION.isInstance(c)) {
        Object dep = UNI_DEP.getVolatile(c);
        if (dep instanceof CompletableFuture<?> d) {
          collect(d, out, depth + 1);
        }
      }
    }
  }

  /**
   * True if {@code orTimeout} (or {@code completeOnTimeout}) attached a timeout to {@code f}, so
   * its waiters will wake by themselves; false where the JDK's futures cannot be read.
   */
  static boolean hasTimeout(CompletableFuture<?> f) {
    if (f instanceof LaneStage<?> s && s.hasTimeout) {
      return true; // lanes' own orTimeout / completeOnTimeout (not the JDK's Canceller)
    }
    if (!AVAILABLE) {
      return false;
    }
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
