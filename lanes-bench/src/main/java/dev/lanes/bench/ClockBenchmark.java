package dev.lanes.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one {@code System.nanoTime()} costs on this machine: lanes reads it twice per task (the
 * stamp at submission, the end of the run on the worker), which is the floor of exact per-task
 * wait and run times. Read by one thread, and by two at once (a producer and a worker on the two
 * cores of the bench machine). Not part of {@code ./lanes bench}; run it with
 * {@code java -cp lanes-bench/target/lanes-bench.jar org.openjdk.jmh.Main ClockBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ClockBenchmark {

  /** One thread reading the clock back to back. */
  @Benchmark
  @Threads(1)
  public long nanoTimeOneThread() {
    return System.nanoTime();
  }

  /** Two threads reading the clock back to back at once. */
  @Benchmark
  @Threads(2)
  public long nanoTimeTwoThreads() {
    return System.nanoTime();
  }
}
