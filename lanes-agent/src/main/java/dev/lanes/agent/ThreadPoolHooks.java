package dev.lanes.agent;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.lanes.agent.bootstrap.PoolBridge;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.method.MethodDescription;

/**
 * The hooks on {@code java.util.concurrent.ThreadPoolExecutor} (so on every subclass, the
 * scheduled one included, whatever their {@code beforeExecute}/{@code afterExecute} do) and on
 * Tomcat's copy of it, {@code org.apache.tomcat.util.threads.ThreadPoolExecutor}, which has the
 * same methods:
 *
 * <ul>
 *   <li>constructors: the pool is registered, and named after where it was made;
 *   <li>{@code execute(Runnable)}: the task is stamped on entry, and unstamped if execute threw;
 *   <li>{@code reject(Runnable)}: a rejection is counted, the stamp dropped unless the handler
 *       threw (the caller may still queue the task, as Tomcat does);
 *   <li>{@code remove(Runnable)}, {@code shutdownNow()}: tasks that leave the queue unstarted are
 *       unstamped;
 *   <li>in {@code runWorker}, the one call {@code task.run()} becomes {@link PoolBridge#run}, which
 *       times that call alone and runs the task in the worker's own frame.
 * </ul>
 *
 * The advice is inlined into the pool's methods; only the calls to {@link PoolBridge} remain.
 */
final class ThreadPoolHooks {
  static final String JDK_POOL = "java.util.concurrent.ThreadPoolExecutor";
  static final String TOMCAT_POOL = "org.apache.tomcat.util.threads.ThreadPoolExecutor";

  private ThreadPoolHooks() {}

  /**
   * Adds the hooks; {@code attached}: the agent was loaded into a running JVM, whose existing
   * workers stay in the {@code runWorker} loaded before (a running method is not replaced), so
   * those are timed between the pool's {@code beforeExecute} and {@code afterExecute} hooks (not
   * where a subclass overrides them without calling super), and workers started later mark
   * themselves on entering the new {@code runWorker} so that they are not timed twice.
   */
  static AgentBuilder apply(AgentBuilder builder, MethodDescription.InDefinedShape bridgeRun,
      boolean attached) {
    AgentBuilder withHooks = builder
        .type(named(JDK_POOL).or(named(TOMCAT_POOL)))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(Created.class).on(isConstructor()))
            .visit(Advice.to(Execute.class).on(named("execute").and(takesArguments(Runnable.class))))
            .visit(Advice.to(Reject.class).on(named("reject").and(takesArguments(Runnable.class))))
            .visit(Advice.to(Remove.class).on(named("remove").and(takesArguments(Runnable.class))))
            .visit(Advice.to(ShutdownNow.class)
                .on(named("shutdownNow").and(takesNoArguments()).and(returns(List.class))))
            .visit(MemberSubstitution.strict()
                .method(named("run").and(isDeclaredBy(Runnable.class)).and(takesNoArguments()))
                .replaceWithChain(MemberSubstitution.Substitution.Chain.Step.ForDelegation.to(bridgeRun))
                .on(named("runWorker").and(takesArguments(1)).and(takesArgument(0, named(type.getName() + "$Worker"))))));
    if (!attached) {
      return withHooks;
    }
    return withHooks
        .type(named(JDK_POOL).or(named(TOMCAT_POOL)))
        .transform((t, type, loader, module, domain) -> t
            .visit(Advice.to(WorkerEntered.class).on(named("runWorker").and(takesArguments(1))))
            .visit(Advice.to(BeforeExecute.class).on(named("beforeExecute").and(takesArguments(2))))
            .visit(Advice.to(AfterExecute.class).on(named("afterExecute").and(takesArguments(2)))));
  }

  static final class WorkerEntered {
    @Advice.OnMethodEnter
    static void enter() {
      PoolBridge.workerEntered();
    }
  }

  static final class BeforeExecute {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object pool, @Advice.Argument(1) Runnable task) {
      PoolBridge.beforeExecute(pool, task);
    }
  }

  static final class AfterExecute {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Runnable task,
        @Advice.Argument(1) Throwable failure) {
      PoolBridge.afterExecute(pool, task, failure);
    }
  }

  static final class Created {
    @Advice.OnMethodExit
    static void exit(@Advice.This Object pool) {
      PoolBridge.created(pool);
    }
  }

  static final class Execute {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Runnable task) {
      PoolBridge.submitted(pool, task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(0) Runnable task,
        @Advice.Thrown Throwable thrown) {
      if (thrown != null) {
        PoolBridge.notAccepted(pool, task, thrown);
      }
    }
  }

  static final class Reject {
    @Advice.OnMethodEnter
    static long enter(@Advice.This Object pool, @Advice.Argument(0) Runnable task) {
      return PoolBridge.rejecting(pool, task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(0) Runnable task,
        @Advice.Enter long stamp, @Advice.Thrown Throwable thrown) {
      PoolBridge.rejected(pool, task, stamp, thrown);
    }
  }

  static final class Remove {
    @Advice.OnMethodExit
    static void exit(@Advice.This Object pool, @Advice.Argument(0) Runnable task,
        @Advice.Return boolean removed) {
      PoolBridge.removed(pool, task, removed);
    }
  }

  static final class ShutdownNow {
    @Advice.OnMethodExit
    static void exit(@Advice.This Object pool, @Advice.Return List<?> tasks) {
      PoolBridge.drained(pool, tasks);
    }
  }
}
