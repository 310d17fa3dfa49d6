package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * Throughput: one producer submits a batch of {@value #BATCH} tiny tasks (each counts a latch
 * down) to a 2-worker executor and waits for all. Score: tasks per second. Baseline: {@code
 * tpe-lbq} in the same run.
 *
 * <p>Run: {@code ./lanes bench --only throughput}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class ThroughputBenchmark {

  public static final int BATCH = 10_000;

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void batch(ExecutorState s) throws InterruptedException {
    Batch.run(s.pool, BATCH);
  }
}
