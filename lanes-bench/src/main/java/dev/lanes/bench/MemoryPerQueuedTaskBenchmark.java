package dev.lanes.bench;

import static dev.lanes.bench.ExecutorFactory.DROPWIZARD;
import static dev.lanes.bench.ExecutorFactory.LANES;
import static dev.lanes.bench.ExecutorFactory.LANES_VIRTUAL;
import static dev.lanes.bench.ExecutorFactory.MICROMETER;
import static dev.lanes.bench.ExecutorFactory.R4J_SEMAPHORE_VTHREADS;
import static dev.lanes.bench.ExecutorFactory.R4J_THREADPOOL;
import static dev.lanes.bench.ExecutorFactory.TPE_ABQ;
import static dev.lanes.bench.ExecutorFactory.TPE_LBQ;
import static dev.lanes.bench.ExecutorFactory.VTHREADS;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Memory per queued task, from heap deltas: the executor's workers (or its {@code cap} = 2
 * permits) are held busy by tasks that wait on a gate; {@value #TASKS} more tasks are submitted and
 * left waiting; the heap in use after a full GC, before and after, divided by {@value #TASKS} is
 * the cost of one waiting task. All tasks are one shared {@code Runnable}, so the figure is the
 * executor's own bookkeeping (lanes: its task envelope; a TPE: a queue node or nothing; a
 * thread-per-task executor: a parked virtual thread with its stack). Queue arrays allocated when
 * the executor is built ({@code ArrayBlockingQueue}'s, 4 bytes a slot) are not in the delta; a
 * lane's ring starts at 64 slots and grows with what is queued (issue #27), so its growth is.
 * Spring's executor is absent: it has no queue (its limit blocks the producer).
 *
 * <p>The score is the time to submit {@value #TASKS} tasks (single shot, not the point); the
 * figure is the secondary result {@code bytesPerQueuedTask}, one value per iteration (JMH's own
 * score for it is the sum over the iterations; the runner prints the mean).
 *
 * <p>Run: {@code ./lanes bench --only memory}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MemoryPerQueuedTaskBenchmark {

  public static final int TASKS = 100_000;

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  /** The executor, held busy so that what is submitted waits. */
  @State(Scope.Thread)
  public static class Held {
    @Param({
      TPE_LBQ,
      TPE_ABQ,
      LANES,
      MICROMETER,
      DROPWIZARD,
      R4J_THREADPOOL,
      LANES_VIRTUAL,
      VTHREADS,
      R4J_SEMAPHORE_VTHREADS
    })
    public String executor;

    BenchExecutor pool;
    CountDownLatch gate;
    AtomicInteger arrived;
    Runnable waiter;

    @Setup(Level.Iteration)
    public void holdBusy() throws InterruptedException {
      pool = ExecutorFactory.create(executor, ExecutorFactory.WORKERS, TASKS + 16);
      gate = new CountDownLatch(1);
      arrived = new AtomicInteger();
      CountDownLatch g = gate;
      AtomicInteger a = arrived;
      waiter =
          () -> {
            a.incrementAndGet();
            try {
              g.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          };
      for (int i = 0; i < ExecutorFactory.WORKERS; i++) {
        pool.execute(waiter);
      }
      awaitArrivals(ExecutorFactory.WORKERS);
    }

    void awaitArrivals(int expected) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (arrived.get() < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              executor + ": only " + arrived.get() + " of " + expected + " tasks started");
        }
        Thread.sleep(1);
      }
    }

    @TearDown(Level.Iteration)
    public void release() {
      gate.countDown();
      pool.close();
    }
  }

  /** The measured figure, reported next to the score. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Bytes {
    public double bytesPerQueuedTask;
  }

  @Benchmark
  public void queue(Held h, Bytes out) throws InterruptedException {
    long before = usedAfterGc();
    for (int i = 0; i < TASKS; i++) {
      h.pool.execute(h.waiter);
    }
    if (h.pool.threadPerTask()) {
      if (ExecutorFactory.R4J_SEMAPHORE_VTHREADS.equals(h.executor)) {
        // Tasks beyond the cap park inside the bulkhead before they reach the waiter, so they
        // cannot be counted: give the virtual threads time to start and park.
        Thread.sleep(2_000);
      } else {
        h.awaitArrivals(ExecutorFactory.WORKERS + TASKS);
      }
    }
    long after = usedAfterGc();
    out.bytesPerQueuedTask = (double) (after - before) / TASKS;
  }

  private static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return MEMORY.getHeapMemoryUsage().getUsed();
  }
}
