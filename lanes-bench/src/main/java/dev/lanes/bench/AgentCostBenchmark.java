package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * What the lanes agent costs when each task is its own object: {@link ThroughputBenchmark}'s
 * tiny-task batch and {@link WorkSizedBenchmark}'s work-sized batch, same sizes, same 2 workers
 * and one producer, but one new {@code Runnable} per task instead of one shared per batch. The
 * agent stamps each task by identity at {@code execute}; a batch of one shared object is every
 * stamp on one key, which real applications (a lambda or a {@code FutureTask} per call) rarely
 * do. Score: tasks per second. Baseline: the same benchmark in a JVM without the agent, in the
 * same run (the {@code agent} suite alternates the two JVMs fork by fork).
 *
 * <p>Run: {@code ./lanes bench --only agent}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class AgentCostBenchmark {

  @Benchmark
  @OperationsPerInvocation(ThroughputBenchmark.BATCH)
  public void tinyDistinct(ExecutorState s) throws InterruptedException {
    Batch.runDistinct(s.pool, ThroughputBenchmark.BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(WorkSizedBenchmark.BATCH)
  public void workDistinct(ExecutorState s) throws InterruptedException {
    Batch.runWorkDistinct(s.pool, WorkSizedBenchmark.BATCH, Work.TEN_MICROS_TOKENS);
  }
}
