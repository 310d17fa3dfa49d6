package dev.lanes.bench.redis;

import dev.lanes.redis.RedisPermits;
import dev.lanes.redis.harness.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a global permit of lanes-redis costs on loopback, one caller: {@link #acquireRelease} is one
 * acquire script call that is granted plus one release script call, awaited one after the other
 * (two round trips, as a task pays them). Baseline in the same run: {@link #twoPings}, two PINGs
 * awaited one after the other on a Lettuce connection to the same server (the same two round
 * trips with no script). Score: the latency distribution (p50, p99 in the JMH output).
 *
 * <p>The benchmark's set-up starts a private {@code redis-server} (7.0 or newer, found as the
 * lanes-redis tests find it: {@link RedisServerProcess}) per fork, and stops it at the end.
 *
 * <p>Run: {@code java -cp lanes-bench/target/lanes-bench.jar org.openjdk.jmh.Main
 * 'dev.lanes.bench.redis' -f 3} (see BENCHMARKS.md, "Issue #15").
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class PermitBenchmark {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private RedisServerProcess redis;
  private RedisPermits permits;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisAsyncCommands<String, String> async;
  private long next;

  @Setup(Level.Trial)
  public void start() {
    redis = RedisServerProcess.start();
    permits = new RedisPermits(redis.uri(), "bench-permits", Duration.ofSeconds(2));
    permits.connect(id -> {});
    client = RedisClient.create(redis.uri());
    connection = client.connect();
    async = connection.async();
  }

  @TearDown(Level.Trial)
  public void stop() {
    try {
      connection.close();
      client.shutdown();
      permits.close();
    } finally {
      redis.close();
    }
  }

  @Benchmark
  public long acquireRelease() throws Exception {
    String id = "p" + next++;
    if (!permits.acquire(id, 1_000, LEASE, LEASE).toCompletableFuture().get(5, TimeUnit.SECONDS)) {
      throw new IllegalStateException("permit " + id + " was not granted");
    }
    return permits.release(List.of(id)).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Benchmark
  public String twoPings() throws Exception {
    async.ping().get(5, TimeUnit.SECONDS);
    return async.ping().get(5, TimeUnit.SECONDS);
  }
}
