package dev.lanes.bench;

import static dev.lanes.bench.ExecutorFactory.LANES;
import static dev.lanes.bench.ExecutorFactory.LANES_CPU_OFF;
import static dev.lanes.bench.ExecutorFactory.LANES_JFR;
import static dev.lanes.bench.ExecutorFactory.LANES_DEADLOCK_COMPENSATE;
import static dev.lanes.bench.ExecutorFactory.LANES_STATS_READER;
import static dev.lanes.bench.ExecutorFactory.LANES_TASK_LISTENER;
import static dev.lanes.bench.ExecutorFactory.TPE_LBQ;

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
 * What lanes' observation features cost: the throughput batch on {@code lanes} (defaults: health
 * monitoring with deadlock detection on, deadlocks reported) against the same lane with one more
 * feature on or off — CPU timing off ({@code cpuTimeOff()}; default: at most one reading per
 * worker per millisecond), a JFR recording with lanes' task event enabled, a {@code TaskRecord}
 * listener, a thread reading {@code stats()} every 10 ms, {@code compensateOnDeadlock(64)}. Score: tasks per second. Baseline: {@code tpe-lbq} in the same run.
 *
 * <p>Run: {@code ./lanes bench --only health}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public class HealthFeaturesBenchmark {

  /** The executor under test; the names are {@link ExecutorFactory}'s. */
  @State(Scope.Benchmark)
  public static class Variant {
    @Param({
      TPE_LBQ,
      LANES,
      LANES_CPU_OFF,
      LANES_JFR,
      LANES_TASK_LISTENER,
      LANES_STATS_READER,
      LANES_DEADLOCK_COMPENSATE
    })
    public String executor;

    BenchExecutor pool;

    @Setup(Level.Trial)
    public void build() {
      pool = ExecutorFactory.create(executor, ExecutorFactory.WORKERS);
    }

    @TearDown(Level.Trial)
    public void close() {
      pool.close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(ThroughputBenchmark.BATCH)
  public void batch(Variant v) throws InterruptedException {
    Batch.run(v.pool, ThroughputBenchmark.BATCH);
  }
}
