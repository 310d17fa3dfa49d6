package dev.lanes.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per task: the CPU time the operating system charged to the benchmark's JVM (all its
 * threads: producer, workers, the JIT and the collector) during a measurement iteration, divided by
 * the tasks the iteration ran (JMH's operations, with {@code @OperationsPerInvocation} = tasks per
 * batch). On a shared machine it moves far less than throughput: time spent waiting for a core is
 * not CPU time. Reported as the secondary result {@value #KEY}.
 */
public final class CpuTimeProfiler implements InternalProfiler {

  static final String KEY = "cpuNanosPerTask";

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private long cpuAtStart;

  @Override
  public String getDescription() {
    return "process CPU time (all threads, from the OS) per task";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuAtStart = OS.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = OS.getProcessCpuTime() - cpuAtStart;
    long tasks = result.getMetadata().getMeasuredOps();
    if (cpuAtStart < 0 || cpu < 0 || tasks <= 0) {
      return List.of(); // no process CPU time on this platform, or nothing measured
    }
    return List.of(new ScalarResult(KEY, (double) cpu / tasks, "ns/task", AggregationPolicy.AVG));
  }
}
