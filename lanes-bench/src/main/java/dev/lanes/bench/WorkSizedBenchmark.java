package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * Work-sized tasks: the throughput benchmark with tasks of 10–14 µs of CPU ({@link
 * Work#TEN_MICROS_TOKENS}; {@code TaskSizeBenchmark} measures it in each run), where an executor's
 * own overhead should vanish. With 2 workers the ceiling is 2 ÷ the task's time, e.g. 2 / 14 µs ≈
 * 143,000 tasks/s. Score: tasks per second. Baseline: {@code tpe-lbq}
 * in the same run.
 *
 * <p>Run: {@code ./lanes bench --only work}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class WorkSizedBenchmark {

  public static final int BATCH = 1_000;

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void batch(ExecutorState s) throws InterruptedException {
    Batch.runWork(s.pool, BATCH, Work.TEN_MICROS_TOKENS);
  }
}
