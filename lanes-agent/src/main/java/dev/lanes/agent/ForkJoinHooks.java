package dev.lanes.agent;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.lanes.agent.bootstrap.PoolBridge;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.type.TypeDescription;

/**
 * The hooks on {@code java.util.concurrent.ForkJoinPool} (every instance: the common pool, the
 * application's own, a subclass's), written against JDK 25's implementation:
 *
 * <ul>
 *   <li>public constructors: the pool is registered, and named after where it was made (the
 *       common pool, made by the class's private constructor, is named by {@link Pools});
 *   <li><b>submissions are stamped</b>: {@code poolSubmit(signal, task)}, the one door of {@code
 *       execute}, {@code submit}, {@code invoke}, {@code invokeAll} and {@code lazySubmit} (from
 *       any thread, a worker of the pool included), {@code externalSubmit(task)}, {@code
 *       executeEnabledScheduledTask(task)} (a delayed task, stamped when it is due), and {@code
 *       ForkJoinTask.fork()} called outside any fork-join worker (it pushes into the common pool's
 *       submission queues: how a parallel stream hands out its work). The stamp is on the object
 *       the pool queues and later runs: the adapter around a {@code Runnable} or {@code Callable},
 *       or {@code CompletableFuture}'s own {@code AsyncSupply}/{@code AsyncRun}. A submission that
 *       throws ({@code RejectedExecutionException} after shutdown) is unstamped and counted as
 *       rejected;
 *   <li><b>each task a worker takes from a queue is timed</b>: in {@code
 *       WorkQueue.topLevelExec}, the call {@code task.doExec()} becomes {@link
 *       PoolBridge#runForkJoin}. Tasks run while joining or helping ({@code join}, {@code
 *       invoke}, {@code helpJoin}, {@code helpComplete}, a {@code CompletableFuture.join} on a
 *       worker) run inside the task that joins and are part of its run time.
 * </ul>
 *
 * <p><b>What the table counts.</b> A fork-join pool's {@code tasks} are its submissions that a
 * worker took from a queue; their wait is known (unknown_wait stays 0 but for the cases below).
 * A task forked by a worker ({@code fork()} inside a task) is not stamped (one test of the
 * current thread's class, nothing more, per fork): it is part of the work of the task that forked
 * it. When another worker steals it, or it runs from the worker's queue after its parent
 * returned, the agent watches it (the blocking check sees it; a parallel stream's lambda blocking
 * the common pool is reported) but does not count it: no task, no wait, no run sample, so a
 * recursive computation is one task per submission, not thousands with an unknown wait. A task
 * is {@code failed} when it ran and completed abnormally ({@code getException()} set by that
 * run); a {@code CompletableFuture}'s async task keeps its exception in its future, and does not
 * count, as a FutureTask's does not in a thread pool.
 *
 * <p>The failure model, and what is not exact:
 * <ul>
 *   <li>a submitted task that a thread runs while joining it (it took the task back before a
 *       worker did: {@code invoke} from outside the pool often does, so do {@code join} and {@code
 *       CompletableFuture.join} inside a task on a task it just submitted) is not counted: its
 *       stamp is left behind and dropped by the watchdog's sweep once older than the sweep age
 *       and not queued ({@link ForkJoinPoolView#queuedTasks} reads the pool's queues);
 *   <li>a submission the stamp table had no room for, or queued before the agent was attached,
 *       runs unstamped and is then taken for a fork: not counted;
 *   <li>on a JDK whose fork-join pool has other internals, a hook that matches nothing is left
 *       out and the pool goes unmeasured (or its tasks are all taken for forks): the application
 *       is never changed otherwise.
 * </ul>
 *
 * <p><b>Concurrency design.</b> The advice is inlined into the pool's methods and holds no state;
 * it calls {@link PoolBridge} only. A task's stamp is written by the submitting thread before the
 * task is pushed (so before any worker can take it) and taken by the worker that runs it: the
 * stamp table's stripe lock orders the two.
 */
final class ForkJoinHooks {
  static final String POOL = "java.util.concurrent.ForkJoinPool";
  static final String TASK = "java.util.concurrent.ForkJoinTask";
  static final String WORK_QUEUE = POOL + "$WorkQueue";

  private ForkJoinHooks() {}

  /** Adds the hooks; {@code bridge} describes {@link PoolBridge} as found in the agent's jar. */
  static AgentBuilder apply(AgentBuilder builder, TypeDescription bridge) {
    var runForkJoin = bridge.getDeclaredMethods().filter(named("runForkJoin")).getOnly();
    return builder
        .type(named(POOL))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(Created.class).on(isConstructor().and(isPublic())))
            .visit(Advice.to(Submitted.class).on(named("poolSubmit").and(takesArguments(2))
                .and(takesArgument(1, named(TASK)))))
            .visit(Advice.to(SubmittedFirst.class).on(named("externalSubmit")
                .and(takesArguments(1)).and(takesArgument(0, named(TASK)))))
            .visit(Advice.to(SubmittedFirst.class).on(named("executeEnabledScheduledTask")
                .and(takesArguments(1)))))
        .type(named(TASK))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(ForkedOutside.class).on(named("fork").and(takesNoArguments()))))
        .type(named(WORK_QUEUE))
        .transform((b, type, loader, module, domain) -> b
            .visit(MemberSubstitution.strict()
                .method(named("doExec").and(isDeclaredBy(named(TASK))).and(takesNoArguments()))
                .replaceWithChain(MemberSubstitution.Substitution.Chain.Step.ForDelegation.to(runForkJoin))
                .on(named("topLevelExec"))));
  }

  static final class Created {
    @Advice.OnMethodExit
    static void exit(@Advice.This Object pool) {
      PoolBridge.created(pool);
    }
  }

  /** On {@code poolSubmit(boolean signalIfEmpty, ForkJoinTask task)}. */
  static final class Submitted {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object pool, @Advice.Argument(1) Object task) {
      PoolBridge.submitted(pool, task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(1) Object task,
        @Advice.Thrown Throwable thrown) {
      if (thrown != null) {
        PoolBridge.notAccepted(pool, task, thrown);
      }
    }
  }

  /** On a method whose first argument is the task it queues. */
  static final class SubmittedFirst {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object task) {
      PoolBridge.submitted(pool, task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(0) Object task,
        @Advice.Thrown Throwable thrown) {
      if (thrown != null) {
        PoolBridge.notAccepted(pool, task, thrown);
      }
    }
  }

  /** On {@code ForkJoinTask.fork()}: outside a worker, the task goes to the common pool's queues. */
  static final class ForkedOutside {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object task) {
      if (!(Thread.currentThread() instanceof ForkJoinWorkerThread)) {
        PoolBridge.submitted(ForkJoinPool.commonPool(), task);
      }
    }
  }
}
