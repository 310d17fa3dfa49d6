package dev.lanes.bench;

import static dev.lanes.bench.ExecutorFactory.FJP;
import static dev.lanes.bench.ExecutorFactory.DROPWIZARD;
import static dev.lanes.bench.ExecutorFactory.LANES;
import static dev.lanes.bench.ExecutorFactory.LANES_CPU_EVERY_TASK;
import static dev.lanes.bench.ExecutorFactory.LANES_VIRTUAL;
import static dev.lanes.bench.ExecutorFactory.MICROMETER;
import static dev.lanes.bench.ExecutorFactory.R4J_SEMAPHORE_VTHREADS;
import static dev.lanes.bench.ExecutorFactory.R4J_THREADPOOL;
import static dev.lanes.bench.ExecutorFactory.SPRING_VTHREADS_LIMIT;
import static dev.lanes.bench.ExecutorFactory.TPE_ABQ;
import static dev.lanes.bench.ExecutorFactory.TPE_LBQ;
import static dev.lanes.bench.ExecutorFactory.VTHREADS;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The executor under test, built once per fork from the {@code executor} and {@code cap}
 * parameters. {@code cap} applies to the capped virtual executors only ({@link
 * ExecutorFactory#CAPPED_VIRTUAL}); the runner passes a second cap only for them.
 */
@State(Scope.Benchmark)
public class ExecutorState {

  @Param({
    TPE_LBQ,
    TPE_ABQ,
    LANES,
    LANES_CPU_EVERY_TASK,
    MICROMETER,
    DROPWIZARD,
    R4J_THREADPOOL,
    LANES_VIRTUAL,
    VTHREADS,
    R4J_SEMAPHORE_VTHREADS,
    SPRING_VTHREADS_LIMIT,
    FJP
  })
  public String executor;

  @Param({"2", "64"})
  public int cap;

  public BenchExecutor pool;

  @Setup(Level.Trial)
  public void build() {
    pool = ExecutorFactory.create(executor, cap);
  }

  @TearDown(Level.Trial)
  public void close() {
    pool.close();
  }
}
