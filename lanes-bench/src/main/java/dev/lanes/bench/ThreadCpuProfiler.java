package dev.lanes.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per task, split by side of the hand-off: the benchmark's own threads (JMH's, named
 * {@code ...-jmh-worker-N}: the producers that submit) against every other Java thread of the JVM
 * (the pool's workers, and whatever else runs: the JIT's and the collector's threads are not Java
 * threads here and are left out). Read per thread from {@link ThreadMXBean#getThreadCpuTime} at
 * the start and end of each iteration, divided by the tasks it ran; a thread that ended during the
 * iteration is not counted, one that started counts from zero. No result where the JVM does not
 * measure threads' CPU time. Reported as {@value #PRODUCERS} and
 * {@value #OTHERS}. Use: {@code ./lanes bench --prof dev.lanes.bench.ThreadCpuProfiler}.
 */
public final class ThreadCpuProfiler implements InternalProfiler {

  static final String PRODUCERS = "producerCpuNanosPerTask";
  static final String OTHERS = "otherThreadsCpuNanosPerTask";

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private Map<Long, Long> atStart;

  @Override
  public String getDescription() {
    return "CPU time per task of the benchmark's threads (producers) and of the other Java threads";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    atStart = THREADS.isThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled()
        ? cpuByThread()
        : null; // else every thread would read -1 and both sides 0: no result instead
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long tasks = result.getMetadata().getMeasuredOps();
    if (atStart == null || tasks <= 0) {
      return List.of();
    }
    long producers = 0;
    long others = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long now = THREADS.getThreadCpuTime(t.threadId());
      if (now < 0) {
        continue; // ended meanwhile, or not measurable
      }
      long spent = now - atStart.getOrDefault(t.threadId(), 0L);
      if (isProducer(t.getName())) {
        producers += spent;
      } else {
        others += spent;
      }
    }
    return List.of(
        new ScalarResult(PRODUCERS, (double) producers / tasks, "ns/task", AggregationPolicy.AVG),
        new ScalarResult(OTHERS, (double) others / tasks, "ns/task", AggregationPolicy.AVG));
  }

  /** JMH names the threads that run a benchmark method {@code <benchmark>-jmh-worker-<n>}. */
  static boolean isProducer(String threadName) {
    return threadName.contains("-jmh-worker-");
  }

  private static Map<Long, Long> cpuByThread() {
    Map<Long, Long> cpu = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long c = THREADS.getThreadCpuTime(t.threadId());
      if (c >= 0) {
        cpu.put(t.threadId(), c);
      }
    }
    return cpu;
  }
}
