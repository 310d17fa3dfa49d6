package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * Handoff: one task to an idle executor, wait until it ran. Score: the latency distribution (the
 * runner prints p50, p90, p99). Baseline: {@code tpe-lbq} in the same run.
 *
 * <p>Run: {@code ./lanes bench --only handoff}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
public class HandoffBenchmark {

  @Benchmark
  public void oneTask(ExecutorState s) throws InterruptedException {
    Batch.handoff(s.pool);
  }
}
