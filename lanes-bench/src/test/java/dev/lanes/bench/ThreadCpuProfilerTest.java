package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.IterationResultMetaData;
import org.openjdk.jmh.results.Result;

/** The per-side CPU profiler: which threads count as producers, and that it sees their CPU. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadCpuProfilerTest {

  private static final long BURN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  @Test
  void jmhsBenchmarkThreadsAreTheProducers() {
    assertThat(ThreadCpuProfiler.isProducer(
        "dev.lanes.bench.ThroughputBenchmark.batch-jmh-worker-1")).isTrue();
    assertThat(ThreadCpuProfiler.isProducer("bench-lane-1")).isFalse();
    assertThat(ThreadCpuProfiler.isProducer("pool-1-thread-2")).isFalse();
  }

  @Test
  void jmhMakesItFromTheNameTheHelpGives() throws Exception {
    assertThat(org.openjdk.jmh.profile.ProfilerFactory.getProfilerOrException(
            new org.openjdk.jmh.runner.options.ProfilerConfig("dev.lanes.bench.ThreadCpuProfiler")))
        .isInstanceOf(ThreadCpuProfiler.class);
  }

  @Test
  void chargesEachThreadsCpuToItsSide() throws Exception {
    ThreadCpuProfiler profiler = new ThreadCpuProfiler();
    profiler.beforeIteration(null, null);
    CountDownLatch burnt = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    Runnable burn = () -> {
      var me = ManagementFactory.getThreadMXBean();
      long start = me.getCurrentThreadCpuTime();
      long x = 0;
      while (me.getCurrentThreadCpuTime() - start < BURN_NANOS) {
        x += System.nanoTime() & 1; // CPU work, measured by the thread's own CPU clock
      }
      burnt.countDown();
      try {
        release.await(); // alive while it is read
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (x < 0) {
        throw new AssertionError();
      }
    };
    Thread producer = Thread.ofPlatform().name("t.Bench.batch-jmh-worker-1").start(burn);
    Thread worker = Thread.ofPlatform().name("bench-lane-1").start(burn);
    try {
      assertThat(burnt.await(30, TimeUnit.SECONDS)).isTrue();
      Map<String, Double> r = profiler.afterIteration(null, null,
              new IterationResult(null, null, new IterationResultMetaData(1000, 1000)))
          .stream().collect(Collectors.toMap(Result::getLabel, Result::getScore));
      // 20 ms over 1,000 tasks: at least 20,000 ns a task on each side
      assertThat(r.get(ThreadCpuProfiler.PRODUCERS)).isGreaterThanOrEqualTo(20_000.0);
      assertThat(r.get(ThreadCpuProfiler.OTHERS)).isGreaterThanOrEqualTo(20_000.0);
    } finally {
      release.countDown();
      producer.join();
      worker.join();
    }
  }
}
