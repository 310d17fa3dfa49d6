package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * How long one work-sized task takes when simply called (no executor): the calibration of {@link
 * Work#TEN_MICROS_TOKENS}. Run with the work-sized benchmark ({@code ./lanes bench --only work}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
public class TaskSizeBenchmark {

  @Benchmark
  public void workSizedTask() {
    Work.spin(Work.TEN_MICROS_TOKENS);
  }
}
