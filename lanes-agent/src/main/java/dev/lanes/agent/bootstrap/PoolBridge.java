package dev.lanes.agent.bootstrap;

import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import net.bytebuddy.asm.MemberSubstitution;

/**
 * The only lanes code the instrumented pools call. It lives in the bootstrap class loader (the
 * agent injects it there before anything loads it), uses {@code java.base} only, and forwards to
 * the agent's {@link PoolSink}.
 *
 * <p><b>Never change the application.</b> Each call into the sink is wrapped: if the agent throws
 * (a bug of ours), the sink is replaced by {@link PoolSink#OFF}, one line goes to stderr, and the
 * application's call goes on as if the agent were absent. {@link #run} runs the task itself in
 * the worker's own frame: its exceptions and interrupts reach the pool unchanged (same objects).
 *
 * <p><b>Concurrency design.</b> {@link #sink} is volatile and written twice in a JVM's life (agent
 * ready, agent off); each call reads it once, so a call that began with the agent's sink ends with
 * it.
 */
public final class PoolBridge {
  /** Where the hooks report; {@link PoolSink#OFF} until the agent is ready. */
  public static volatile PoolSink sink = PoolSink.OFF;
  /**
   * The running agent's commands ({@code "table"} → the table's text), reachable from any copy of
   * the agent loaded later by attach; null until the agent runs.
   */
  public static volatile java.util.function.Function<String, String> controller;
  /** Set once, by the first failure of the sink. */
  private static volatile boolean failed;

  private PoolBridge() {}

  public static void created(Object pool) {
    try {
      sink.created(pool);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void submitted(Object pool, Object task) {
    try {
      sink.submitted(pool, task);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void notAccepted(Object pool, Object task, Throwable thrown) {
    try {
      sink.notAccepted(pool, task, thrown);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static long rejecting(Object pool, Object task) {
    try {
      return sink.rejecting(pool, task);
    } catch (Throwable t) {
      fail(t);
      return Long.MIN_VALUE;
    }
  }

  public static void rejected(Object pool, Object task, long stamp, Throwable thrown) {
    try {
      sink.rejected(pool, task, stamp, thrown);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void removed(Object pool, Object task, boolean wasRemoved) {
    if (!wasRemoved) {
      return;
    }
    try {
      sink.removed(pool, task);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void drained(Object pool, List<?> tasks) {
    try {
      sink.drained(pool, tasks);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /**
   * Replaces the worker's {@code task.run()} call: runs it, timed. The agent's substitution passes
   * the pool whose {@code runWorker} made the call. (The annotations are read by the agent from
   * this class's file; the bootstrap loader, which cannot see Byte Buddy, ignores them.)
   */
  public static void run(@MemberSubstitution.This Runnable task,
      @MemberSubstitution.This(source = MemberSubstitution.Source.ENCLOSING_METHOD) Object pool) {
    PoolSink s = sink;
    Object token = null;
    try {
      token = s.started(pool, task);
    } catch (Throwable t) {
      fail(t);
    }
    Throwable failure = null;
    try {
      task.run();
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      if (token != null) {
        try {
          s.ended(token, failure);
        } catch (Throwable t) {
          fail(t);
        }
      }
    }
  }

  /**
   * Replaces a fork-join worker's {@code task.doExec()} call in {@code
   * ForkJoinPool.WorkQueue.topLevelExec} (the one call that runs a task the worker took from a
   * queue, not one it runs while joining another): runs it, timed, for the worker's pool. {@code
   * doExec} is the replaced method's handle, resolved in the pool's own class (the method is
   * package-private: the bridge cannot name it); {@code doExec} keeps the task's exceptions in the
   * task, as without the agent, so a task counts as failed when it ran and completed abnormally (a
   * task cancelled before it ran does not; a CompletableFuture's async task keeps its exception in
   * its future and never fails here, as a FutureTask's does not in a thread pool).
   */
  public static void runForkJoin(@MemberSubstitution.This ForkJoinTask<?> task,
      @MemberSubstitution.SelfCallHandle(bound = false) MethodHandle doExec) throws Throwable {
    PoolSink s = sink;
    Object token = null;
    if (s != PoolSink.OFF && Thread.currentThread() instanceof ForkJoinWorkerThread worker) {
      try {
        token = s.started(worker.getPool(), task);
      } catch (Throwable t) {
        fail(t);
      }
    }
    Throwable failure = null;
    boolean doneBefore = token != null && task.isDone();
    try {
      doExec.invokeExact(task);
      if (token != null && !doneBefore) {
        failure = task.getException();
      }
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      if (token != null) {
        try {
          s.ended(token, failure);
        } catch (Throwable t) {
          fail(t);
        }
      }
    }
  }

  public static void workerEntered() {
    try {
      sink.workerEntered();
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void beforeExecute(Object pool, Object task) {
    try {
      sink.beforeExecute(pool, task);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void afterExecute(Object pool, Object task, Throwable failure) {
    try {
      sink.afterExecute(pool, task, failure);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /** Around a call that runs one task directly (an event loop's or a fork-join pool's). */
  public static Object started(Object pool, Object task) {
    try {
      return sink.started(pool, task);
    } catch (Throwable t) {
      fail(t);
      return null;
    }
  }

  /** Ends what {@link #started(Object, Object)} began; does nothing for a null token. */
  public static void ended(Object token, Throwable failure) {
    if (token == null) {
      return;
    }
    try {
      sink.ended(token, failure);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /** A Netty event loop's task-running method is entered; see {@link PoolSink#loopEntered}. */
  public static Object loopEntered(Object loop) {
    try {
      return sink.loopEntered(loop);
    } catch (Throwable t) {
      fail(t);
      return null;
    }
  }

  public static void loopExited(Object previous) {
    try {
      sink.loopExited(previous);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /** Around Netty's {@code runTask(task)} (the task's {@code run()} and nothing else). */
  public static Object loopTaskStarted(Object task) {
    try {
      return sink.loopTaskStarted(task);
    } catch (Throwable t) {
      fail(t);
      return null;
    }
  }

  /** Ends what {@link #loopTaskStarted} began; does nothing for a null token (no loop). */
  public static void loopTaskEnded(Object token, Object task, Throwable failure) {
    if (token == null) {
      return;
    }
    try {
      sink.loopTaskEnded(token, task, failure);
    } catch (Throwable t) {
      fail(t);
    }
  }

  public static void scheduled(Object pool, Object task) {
    try {
      sink.scheduled(pool, task);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /** Around an event loop's handling of its selected IO events; see {@link PoolSink#loopIoStarted}. */
  public static Object loopIoStarted() {
    try {
      return sink.loopIoStarted();
    } catch (Throwable t) {
      fail(t);
      return null;
    }
  }

  public static void loopIoEnded(Object token) {
    if (token == null) {
      return;
    }
    try {
      sink.loopIoEnded(token);
    } catch (Throwable t) {
      fail(t);
    }
  }

  /** Tomcat begins to serve a request on the current thread; see {@link PoolSink#requestStarted}. */
  public static void requestStarted() {
    try {
      sink.requestStarted();
    } catch (Throwable t) {
      fail(t);
    }
  }

  private static void fail(Throwable t) {
    sink = PoolSink.OFF;
    if (!failed) {
      failed = true;
      System.err.println("lanes-agent: turned off after an internal error (the application is not"
          + " affected; please report it): " + t);
    }
  }
}
