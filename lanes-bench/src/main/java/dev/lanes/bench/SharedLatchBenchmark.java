package dev.lanes.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The shared-latch workload (issue #27): every task is <b>the same {@code Runnable} instance</b>,
 * spins {@code Blackhole.consumeCPU(}{@value #TOKENS}{@code )} and counts down <b>one {@link
 * CountDownLatch} shared by its batch</b>, so every task writes one line every other task writes.
 * The producers are JMH's own threads ({@code @Threads}), each submitting its own batch through
 * {@code Executor.execute} to the one executor of the trial and waiting for it: 1 producer × {@value
 * #BATCH_1}, 2 × {@value #BATCH_2}, 4 × {@value #BATCH_4} and 8 × {@value #BATCH_8} tasks, so
 * that at most 16,000 tasks are queued at once, below every executor's bound of {@link
 * ExecutorFactory#QUEUE_CAPACITY} (nobody blocks for room). {@link #runAsync1} is one producer
 * going through {@code CompletableFuture.runAsync(task, executor)}, as application code often
 * does. Score: tasks per second, summed over the producers. Baseline: {@code tpe-abq} in the same
 * run.
 *
 * <p>Run: {@code ./lanes bench --only shared-latch}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class SharedLatchBenchmark {

  /** {@code Blackhole.consumeCPU} tokens each task spins (a few tens of nanoseconds). */
  public static final long TOKENS = 10;

  public static final int BATCH_1 = 10_000;
  public static final int BATCH_2 = 8_000;
  public static final int BATCH_4 = 4_000;
  public static final int BATCH_8 = 2_000;

  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH_1)
  public void producers1(ExecutorState s) throws InterruptedException {
    Batch.runWork(s.pool, BATCH_1, TOKENS);
  }

  @Benchmark
  @Threads(2)
  @OperationsPerInvocation(BATCH_2)
  public void producers2(ExecutorState s) throws InterruptedException {
    Batch.runWork(s.pool, BATCH_2, TOKENS);
  }

  @Benchmark
  @Threads(4)
  @OperationsPerInvocation(BATCH_4)
  public void producers4(ExecutorState s) throws InterruptedException {
    Batch.runWork(s.pool, BATCH_4, TOKENS);
  }

  @Benchmark
  @Threads(8)
  @OperationsPerInvocation(BATCH_8)
  public void producers8(ExecutorState s) throws InterruptedException {
    Batch.runWork(s.pool, BATCH_8, TOKENS);
  }

  /** One producer, each task handed over by {@code CompletableFuture.runAsync(task, executor)}. */
  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH_1)
  public void runAsync1(ExecutorState s) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(BATCH_1);
    Runnable task =
        () -> {
          Blackhole.consumeCPU(TOKENS);
          done.countDown();
        };
    BenchExecutor pool = s.pool;
    java.util.concurrent.Executor executor = pool::execute;
    for (int i = 0; i < BATCH_1; i++) {
      CompletableFuture.runAsync(task, executor);
    }
    Batch.await(done, pool, BATCH_1);
  }
}
