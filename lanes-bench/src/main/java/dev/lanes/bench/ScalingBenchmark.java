package dev.lanes.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Scaling: does the per-task cost stay flat as the batch grows from 1,000 to 10,000,000 tasks, and
 * what do 1, 2 and 4 producers do to it? Score: tasks per second (per-task cost = 1 / score).
 * Baseline: {@code tpe-lbq} in the same run.
 *
 * <p>Queues are bounded at {@link ExecutorFactory#QUEUE_CAPACITY}; a larger batch makes the
 * producer block until there is room (never a 10M-entry queue). The uncapped thread-per-task
 * executors would start one virtual thread per task (10M threads), so the runner leaves them out.
 *
 * <p>Run: {@code ./lanes bench --only scaling}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class ScalingBenchmark {

  public static final int PRODUCERS_BATCH = 100_000;

  /** Extra producer threads for the multi-producer case. */
  @State(Scope.Benchmark)
  public static class Producers {
    @Param({"1", "2", "4"})
    public int producers;

    ExecutorService helpers;

    @Setup(Level.Trial)
    public void start() {
      helpers =
          Executors.newFixedThreadPool(
              Math.max(1, producers - 1),
              Thread.ofPlatform().name("bench-producer-", 1).daemon(true).factory());
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
      helpers.shutdown();
      helpers.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  @Benchmark
  @OperationsPerInvocation(1_000)
  public void tasks1k(ExecutorState s) throws InterruptedException {
    Batch.run(s.pool, 1_000);
  }

  @Benchmark
  @OperationsPerInvocation(100_000)
  public void tasks100k(ExecutorState s) throws InterruptedException {
    Batch.run(s.pool, 100_000);
  }

  @Benchmark
  @OperationsPerInvocation(10_000_000)
  public void tasks10m(ExecutorState s) throws InterruptedException {
    Batch.run(s.pool, 10_000_000);
  }

  @Benchmark
  @OperationsPerInvocation(PRODUCERS_BATCH)
  public void producers100k(ExecutorState s, Producers p) throws InterruptedException {
    Batch.runFromProducers(s.pool, PRODUCERS_BATCH, p.producers, p.helpers);
  }
}
