package dev.lanes.agent;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.lanes.agent.bootstrap.PoolBridge;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/**
 * The hooks on Netty's event loops: every {@code io.netty.util.concurrent.SingleThreadEventExecutor}
 * (NIO, epoll, io_uring loops, {@code DefaultEventLoop}, {@code DefaultEventExecutor}), matched by
 * name, in Netty 4.1 and 4.2 (the methods below are the same in 4.1.118 and 4.2.19):
 *
 * <ul>
 *   <li>{@code execute(Runnable, boolean)}, where {@code execute} and {@code lazyExecute} meet: the
 *       task is stamped on entry, unstamped if it threw (refused, or the loop shut down);
 *   <li>{@code reject(Runnable)}, {@code removeTask(Runnable)}: as for a thread pool;
 *   <li>the loop's methods that run its tasks ({@code runAllTasks}, {@code runAllTasksFrom}, {@code
 *       runExistingTasksFrom}, {@code executeExpiredScheduledTasks}, {@code
 *       runScheduledAndExecutorTasks}, and {@code run()} of {@code DefaultEventLoop} and {@code
 *       DefaultEventExecutor}) mark the thread as running that loop while they run;
 *   <li>the static {@code AbstractEventExecutor.runTask(Runnable)}, which is exactly {@code
 *       task.run()} and is where every one of those methods (through {@code safeExecute}) runs a
 *       task: timed, on a marked thread, with the loop as the pool ({@link LoopTasks});
 *   <li>{@code scheduleFromEventLoop}, {@code removeScheduled}: a scheduled task is stamped at its
 *       due time when it enters the loop's schedule, unstamped when it is cancelled;
 *   <li>{@code processSelectedKeys()} of the NIO loop ({@code NioIoHandler} in 4.2, {@code
 *       NioEventLoop} in 4.1), where the channels' handlers run: an IO turn, timed apart from
 *       the tasks and watched for blocking ({@link LoopTasks}). The epoll, kqueue and io_uring transports' equivalents are not hooked.
 * </ul>
 *
 * <p>The task's run time is how long it held the loop (every channel of that loop waited): its max
 * and p99 are the loop's worst stalls by a task (a handler's stall is in an IO turn, timed apart,
 * and warned about with its stack). A task that throws counts as failed: {@code runTask}'s exit
 * sees the exception before {@code safeExecute} catches and logs it. Not timed: tasks Netty runs
 * outside those methods (its global executor, {@code ManualIoEventLoop} in 4.2, shutdown hooks);
 * tasks of the loop's tail queue ({@code executeAfterEventLoopIteration}) are timed but have no
 * stamp (unknown wait).
 *
 * <p><b>One pool per loop, named after its thread</b> ({@code nioEventLoopGroup-2-1}, {@code
 * reactor-http-nio-3}): a loop has one thread for its life (Netty 4.2's opt-in suspension of idle
 * loops may give it a new one; the name stays the first), and a task that blocks stalls that
 * loop's channels only, while the others run on — so a group's sum would hide a stalled loop (and
 * the group's queue is not one queue). The full thread name is also what the blocking warning and
 * a thread dump show; a suffix {@code #2} in the order loops ran their first task would not match
 * it. A loop is known from its first task on (Netty starts its thread then).
 *
 * <p>The advice is inlined into Netty's methods; only the calls to {@link PoolBridge} remain. When
 * the agent is attached to a running JVM, a {@code DefaultEventLoop} already running stays in the
 * {@code run()} loaded before and is not timed; NIO loops enter {@code runAllTasks} anew each turn.
 */
final class NettyHooks {
  static final String EVENT_EXECUTOR = "io.netty.util.concurrent.SingleThreadEventExecutor";
  static final String SCHEDULED_EXECUTOR = "io.netty.util.concurrent.AbstractScheduledEventExecutor";
  static final String ABSTRACT_EXECUTOR = "io.netty.util.concurrent.AbstractEventExecutor";
  private static final String[] TASK_RUNNING_METHODS = {"runAllTasks", "runAllTasksFrom",
      "runExistingTasksFrom", "executeExpiredScheduledTasks", "runScheduledAndExecutorTasks"};

  private NettyHooks() {}

  static AgentBuilder apply(AgentBuilder builder) {
    return builder
        .type(named(EVENT_EXECUTOR))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(ThreadPoolHooks.Execute.class).on(named("execute")
                .and(takesArguments(2)).and(takesArgument(0, Runnable.class))
                .and(takesArgument(1, boolean.class))))
            .visit(Advice.to(ThreadPoolHooks.Reject.class)
                .on(named("reject").and(takesArguments(Runnable.class))))
            .visit(Advice.to(ThreadPoolHooks.Remove.class)
                .on(named("removeTask").and(takesArguments(Runnable.class))))
            .visit(Advice.to(LoopEntered.class)
                .on(namedOneOf(TASK_RUNNING_METHODS).and(not(isStatic())))))
        .type(namedOneOf("io.netty.channel.DefaultEventLoop", "io.netty.util.concurrent.DefaultEventExecutor"))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(LoopEntered.class).on(named("run").and(takesNoArguments()))))
        .type(namedOneOf("io.netty.channel.nio.NioIoHandler", "io.netty.channel.nio.NioEventLoop"))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(IoTurn.class).on(named("processSelectedKeys").and(takesNoArguments()))))
        .type(named(SCHEDULED_EXECUTOR))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(Scheduled.class).on(named("scheduleFromEventLoop").and(takesArguments(1))))
            .visit(Advice.to(Unscheduled.class).on(named("removeScheduled").and(takesArguments(1)))))
        .type(named(ABSTRACT_EXECUTOR))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(RunTask.class)
                .on(named("runTask").and(isStatic()).and(takesArguments(Runnable.class)))));
  }

  static final class LoopEntered {
    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object loop) {
      return PoolBridge.loopEntered(loop);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object previous) {
      PoolBridge.loopExited(previous);
    }
  }

  static final class RunTask {
    @Advice.OnMethodEnter
    static Object enter(@Advice.Argument(0) Runnable task) {
      return PoolBridge.loopTaskStarted(task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Argument(0) Runnable task, @Advice.Enter Object token,
        @Advice.Thrown Throwable thrown) {
      PoolBridge.loopTaskEnded(token, task, thrown);
    }
  }

  static final class IoTurn {
    @Advice.OnMethodEnter
    static Object enter() {
      return PoolBridge.loopIoStarted();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object token) {
      PoolBridge.loopIoEnded(token);
    }
  }

  static final class Scheduled {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object loop, @Advice.Argument(0) Object task) {
      PoolBridge.scheduled(loop, task);
    }
  }

  static final class Unscheduled {
    @Advice.OnMethodEnter
    static void enter(@Advice.This Object loop, @Advice.Argument(0) Object task) {
      PoolBridge.removed(loop, task, true);
    }
  }
}
