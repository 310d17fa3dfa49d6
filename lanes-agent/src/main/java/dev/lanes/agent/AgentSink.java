package dev.lanes.agent;

import dev.lanes.agent.bootstrap.PoolSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The agent's side of the hooks: stamps a task when it is handed to a pool, and times it when a
 * worker runs it.
 *
 * <p>Queue wait is start minus stamp, exact for every task stamped by {@code execute}; a
 * scheduled pool's task counts from its due time (it was not late before it was due); a task
 * queued before the agent was attached, or past the stamp table's bound, has an unknown wait and
 * is counted as such. Run time is the task's {@code run()} call alone, whatever the pool's
 * {@code beforeExecute}/{@code afterExecute} do. CPU time is read on one task in each {@value
 * RunSlot#CPU_SAMPLE_INTERVAL_NANOS} ns per thread at most (a thread-CPU read costs about a
 * microsecond: per task, it would cost more than a tiny task). In a fork-join pool a task
 * without a stamp is a fork (see {@link ForkJoinHooks}): it is watched while it runs (the blocking
 * check sees it) but not counted, neither as a task nor as an unknown wait.
 *
 * <p><b>Sampled mode</b> ({@code sample=N} &gt; 1, thread pools only: in a fork-join pool the
 * stamp tells a submitted task from a fork, and event loops stamp their own way): a handover is
 * stamped with probability 1/N ({@link ThreadLocalRandom}, no shared state), else it leaves at
 * most a blank in the stamp table (see {@link StampTable}). The worker times a task (wait, run,
 * CPU) only when it takes its stamp; any other task is counted, with its failure, and published as
 * running (for the deadlock check) without a clock read. A scheduled pool's task, never stamped,
 * is timed with probability 1/N by its worker. A task queued before the agent attached, or past
 * the table's bound, is counted untimed (not as an unknown wait).
 *
 * <p><b>Concurrency design.</b> No lock is held across a call into the application. The stamp
 * table locks one stripe per call (in sampled mode, none for a task whose hash bucket holds no
 * entry); a worker's {@link RunSlot} is its own (see there); the pools'
 * registry is locked only when a pool is made or a thread runs its first task for a pool.
 */
final class AgentSink implements PoolSink {
  private static final String SCHEDULED_TASK =
      "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask";
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final boolean CPU = cpuSupported();

  final StampTable stamps;
  final Pools pools;
  private final ThreadLocal<RunSlot> slots = new ThreadLocal<>();
  /** Attached only: {@link #NEW_WORKER}, or the token of the task a hook-timed worker runs. */
  private final ThreadLocal<Object> hookTokens = new ThreadLocal<>();
  private static final Object NEW_WORKER = new Object();
  /** A slot's or nested token's wait when the task is watched but not counted (a fork). */
  private static final long NOT_COUNTED = Long.MIN_VALUE;
  private static final String CARRIER_THREAD = "jdk.internal.misc.CarrierThread";
  /** The JDK's scheduler of virtual threads, once a carrier thread showed it; never measured. */
  private volatile Object virtualThreadScheduler;
  /** Tasks not stamped because the table was full. */
  final java.util.concurrent.atomic.LongAdder unstamped = new java.util.concurrent.atomic.LongAdder();

  private final LoopTasks loops;
  /** About one task in this many is timed in a thread pool (1: every task). */
  private final int sample;

  AgentSink(StampTable stamps, Pools pools) {
    this(stamps, pools, 1);
  }

  AgentSink(StampTable stamps, Pools pools, int sample) {
    this.stamps = stamps;
    this.pools = pools;
    this.sample = sample;
    this.loops = new LoopTasks(this, stamps);
  }

  private static boolean cpuSupported() {
    try {
      if (!THREADS.isCurrentThreadCpuTimeSupported()) {
        return false;
      }
      if (!THREADS.isThreadCpuTimeEnabled()) {
        THREADS.setThreadCpuTimeEnabled(true);
      }
      return THREADS.getCurrentThreadCpuTime() >= 0;
    } catch (UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  @Override public void created(Object pool) {
    pools.recordFor(pool, true);
  }

  @Override public void submitted(Object pool, Object task) {
    if (task == null || pool == virtualThreadScheduler) {
      return; // execute throws NullPointerException itself; a virtual thread is no pool's task
    }
    if (sample > 1 && !(pool instanceof ForkJoinPool)
        && ThreadLocalRandom.current().nextInt(sample) != 0) {
      stamps.blankIfHeld(task);
      return;
    }
    if (!stamps.put(task, System.nanoTime())) {
      unstamped.increment();
    }
  }

  @Override public void notAccepted(Object pool, Object task, Throwable thrown) {
    if (task == null) {
      return;
    }
    stamps.take(task);
    PoolKind kind = PoolKind.of(pool);
    // Tomcat retries a refused task on its own queue; only what reaches the caller is refused. A
    // fork-join pool has no rejection handler: it throws.
    if (kind == PoolKind.TOMCAT || isForkJoin(kind)
        && thrown instanceof java.util.concurrent.RejectedExecutionException) {
      pools.recordFor(pool, false).rejected.increment();
    }
  }

  @Override public long rejecting(Object pool, Object task) {
    return task == null ? StampTable.NONE : stamps.take(task);
  }

  @Override public void rejected(Object pool, Object task, long stamp, Throwable thrown) {
    boolean tomcat = PoolKind.of(pool) == PoolKind.TOMCAT;
    if (thrown != null && stamp != StampTable.NONE && task != null) {
      stamps.put(task, stamp); // the caller may still queue it (Tomcat); execute's exit drops it
    }
    if (thrown == null || !tomcat) {
      pools.recordFor(pool, false).rejected.increment();
    }
  }

  @Override public void removed(Object pool, Object task) {
    if (task != null) {
      stamps.take(task);
    }
  }

  @Override public void drained(Object pool, List<?> tasks) {
    for (Object t : tasks) {
      if (t != null) {
        stamps.take(t);
      }
    }
  }

  @Override public Object started(Object pool, Object task) {
    if (pool == virtualThreadScheduler) {
      return null;
    }
    RunSlot slot = slots.get();
    if (slot == null || slot.pool != pool) {
      slot = bind(pool);
      if (slot == null) {
        return null;
      }
    }
    if (sample > 1 && slot.record.kind.isThreadPool()) {
      return startSampled(slot, task);
    }
    long stamp = stamps.take(task);
    return startTimed(slot, task, stamp);
  }

  /** A thread pool's task in sampled mode: timed if it was stamped, else counted only. */
  private Object startSampled(RunSlot slot, Object task) {
    long stamp = stamps.takeIfHeld(task);
    if (stamp == StampTable.NONE && slot.record.kind == PoolKind.SCHEDULED
        && task.getClass().getName().equals(SCHEDULED_TASK)
        && ThreadLocalRandom.current().nextInt(sample) == 0) {
      return startTimed(slot, task, StampTable.NONE); // waits from its due time
    }
    if (stamp == StampTable.NONE || stamp == StampTable.BLANK) {
      if (slot.depth++ > 0) {
        return new Untimed(slot);
      }
      slot.timed = false;
      slot.requestsInTask = 0;
      slot.begin(task, RunSlot.START_UNKNOWN);
      return slot;
    }
    return startTimed(slot, task, stamp);
  }

  private Object startTimed(RunSlot slot, Object task, long stamp) {
    long now = System.nanoTime();
    long wait = stamp == StampTable.BLANK ? RunSlot.UNKNOWN // not sampled at its handover
        : stamp != StampTable.NONE ? Math.max(0, now - stamp) : scheduledWait(task);
    if (wait == RunSlot.UNKNOWN && isForkJoin(slot.record.kind)) {
      wait = NOT_COUNTED;
    }
    if (slot.depth++ > 0) {
      return new Nested(slot, task, now, wait);
    }
    slot.timed = true;
    slot.started = now;
    slot.waited = wait;
    slot.requestsInTask = 0;
    if (wait == NOT_COUNTED) {
      slot.cpuStart = RunSlot.UNKNOWN;
    } else if (CPU && now - slot.lastCpuSample >= RunSlot.CPU_SAMPLE_INTERVAL_NANOS) {
      slot.lastCpuSample = now;
      slot.cpuStart = THREADS.getCurrentThreadCpuTime();
    } else {
      slot.cpuStart = RunSlot.UNKNOWN;
    }
    slot.begin(task, now);
    return slot;
  }

  @Override public void ended(Object token, Throwable failure) {
    if (token instanceof RunSlot slot) {
      slot.clear();
      slot.depth--;
      if (!slot.timed) {
        slot.countUntimed(failure != null);
        return;
      }
      if (slot.waited == NOT_COUNTED) {
        return;
      }
      long end = System.nanoTime();
      if (slot.cpuStart != RunSlot.UNKNOWN) {
        long cpu = THREADS.getCurrentThreadCpuTime() - slot.cpuStart;
        slot.cpuNanos = slot.cpuNanos + Math.max(0, cpu);
        slot.cpuTasks = slot.cpuTasks + 1;
      }
      slot.append(slot.waited, end - slot.started, failure != null);
    } else if (token instanceof Nested n) {
      long end = System.nanoTime();
      n.slot.depth--;
      if (n.waited() != NOT_COUNTED) {
        n.slot.append(n.waited(), end - n.start(), failure != null);
      }
    } else if (token instanceof Untimed u) {
      u.slot().depth--;
      u.slot().countUntimed(failure != null);
    }
  }

  @Override public void workerEntered() {
    hookTokens.set(NEW_WORKER);
  }

  @Override public void beforeExecute(Object pool, Object task) {
    if (hookTokens.get() != NEW_WORKER) {
      hookTokens.set(started(pool, task));
    }
  }

  @Override public void afterExecute(Object pool, Object task, Throwable failure) {
    Object token = hookTokens.get();
    if (token != null && token != NEW_WORKER) {
      hookTokens.remove();
      ended(token, failure);
    }
  }

  @Override public Object loopEntered(Object loop) {
    return loops.entered(loop);
  }

  @Override public void loopExited(Object previous) {
    loops.exited(previous);
  }

  @Override public Object loopTaskStarted(Object task) {
    return loops.taskStarted(task);
  }

  @Override public void loopTaskEnded(Object token, Object task, Throwable failure) {
    loops.taskEnded(token, task, failure);
  }

  @Override public void scheduled(Object pool, Object task) {
    loops.scheduled(pool, task);
  }

  @Override public Object loopIoStarted() {
    return loops.ioStarted(slots.get());
  }

  @Override public void loopIoEnded(Object token) {
    loops.ioEnded(token);
  }

  /**
   * A request is served by the task this thread runs now (none: not counted). The first request
   * of a task waited the task's queue wait; a later one was read by this worker, already running
   * (a kept-alive connection's next request, or one pipelined behind the first): it waited for no
   * thread. So the requests' wait sum equals the wait sum of the tasks that served requests. In
   * sampled mode every request is counted, but only those of timed tasks carry a wait: the
   * requests' wait figures are over the requests of the timed tasks.
   */
  @Override public void requestStarted() {
    RunSlot slot = slots.get();
    if (slot == null || slot.depth == 0 || slot.timed && slot.waited == NOT_COUNTED) {
      return;
    }
    boolean first = slot.requestsInTask++ == 0;
    slot.appendRequest(!slot.timed ? RunSlot.UNKNOWN : first ? slot.waited : 0, first);
  }

  /** A scheduled pool's task waits from its due time; any other unstamped task's wait is unknown. */
  private static long scheduledWait(Object task) {
    if (task.getClass().getName().equals(SCHEDULED_TASK)) {
      long delay = ((java.util.concurrent.Delayed) task).getDelay(TimeUnit.NANOSECONDS);
      return delay < 0 ? -delay : 0;
    }
    return RunSlot.UNKNOWN;
  }

  private static boolean isForkJoin(PoolKind kind) {
    return kind == PoolKind.FORK_JOIN || kind == PoolKind.COMMON_POOL;
  }

  /**
   * The current thread's slot for {@code pool}, made if new; null if {@code pool} is the JDK's
   * scheduler of virtual threads (a fork-join pool whose threads are carriers), which the agent
   * leaves alone: its "tasks" are virtual threads mounting, not work handed to a pool, and timing
   * each mount would cost virtual-thread-heavy applications dearly.
   */
  private RunSlot bind(Object pool) {
    Thread me = Thread.currentThread();
    if (me.getClass().getName().equals(CARRIER_THREAD)) {
      virtualThreadScheduler = pool;
      pools.forget(pool);
      return null;
    }
    PoolRecord record = pools.recordFor(pool, false);
    for (RunSlot s : record.slots) {
      if (s.owner == me && s.pool == pool) {
        slots.set(s);
        return s;
      }
    }
    pools.nameAfterThread(record, me.getName());
    RunSlot s = new RunSlot(me, pool, record);
    record.slots.add(s);
    slots.set(s);
    return s;
  }

  /** A task run inside another task on the same thread (a pool whose tasks help run others). */
  private record Nested(RunSlot slot, Object task, long start, long waited) {}

  /** As {@link Nested}, for a task that is not timed (sampled mode). */
  private record Untimed(RunSlot slot) {}
}
