package dev.lanes.bench.redis;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.harness.RedisServerProcess;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * A virtual lane of cap 20 with a shared cap of 20 on top ({@code shared-cap}) against the same
 * lane alone ({@code lane}, the baseline of the same run): one producer gives a batch of {@value
 * #BATCH} tasks and waits until all ran. Each task waits {@code taskMicros} (0: an empty task; 1000:
 * a 1 ms call's worth of waiting). The shared cap is never the tighter bound here (one instance,
 * the same cap), so the difference is the cost of the permits on loopback: since issue #27 a permit
 * serves queued tasks for a quantum (10 ms or 1,000 tasks by default) before it is released and
 * asked for again (before, one acquire per free slot and one release per task). Score: tasks/s.
 *
 * <p>The set-up starts a private {@code redis-server} per fork ({@link RedisServerProcess}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SharedCapThroughputBenchmark {

  static final int BATCH = 200;
  static final int CAP = 20;

  @Param({"lane", "shared-cap"})
  public String variant;

  @Param({"0", "1000"})
  public long taskMicros;

  private RedisServerProcess redis;
  private Lane lane;
  private SharedCap shared;
  private Executor executor;

  @Setup(Level.Trial)
  public void start() {
    LaneBuilder b = Lane.virtual("bench-shared", CAP).queueCapacity(4 * BATCH);
    if (variant.equals("shared-cap")) {
      redis = RedisServerProcess.start();
      shared = SharedCap.builder("bench-shared", redis.uri()).cap(CAP).build();
      b.gate(shared); // the shared cap is the lane's gate: tasks still go to the lane
    }
    lane = b.build();
    executor = lane;
  }

  @TearDown(Level.Trial)
  public void stop() {
    try {
      lane.close();
      if (shared != null) {
        shared.close(); // after the lane it gates
      }
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void batch() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(BATCH);
    long nanos = TimeUnit.MICROSECONDS.toNanos(taskMicros);
    Runnable task = nanos == 0 ? done::countDown : () -> {
      LockSupport.parkNanos(nanos);
      done.countDown();
    };
    for (int i = 0; i < BATCH; i++) {
      executor.execute(task);
    }
    if (!done.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException(variant + ": a batch did not finish within 60 s");
    }
  }
}
