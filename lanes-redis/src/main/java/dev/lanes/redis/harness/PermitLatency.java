package dev.lanes.redis.harness;

import dev.lanes.Lane;
import dev.lanes.redis.RedisPermits;
import dev.lanes.redis.SharedCap;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Measures what a global permit costs on loopback, one caller at a time, and prints the
 * distribution (HdrHistogram) in microseconds:
 *
 * <ul>
 *   <li>{@code acquire+release}: one acquire script call that is granted plus one release script
 *       call, awaited one after the other ({@link RedisPermits}; two round trips);
 *   <li>{@code shared-cap task}: submitting an empty task to a lane gated by a {@link SharedCap} and waiting for its
 *       future (acquire, handing to the lane, run, release sent), beside
 *   <li>{@code lane task}: the same empty task on the lane alone, for the difference.
 * </ul>
 *
 * <pre>
 * java -cp &lt;lanes-redis and its dependencies&gt; dev.lanes.redis.harness.PermitLatency [iterations] [redis-uri]
 * </pre>
 *
 * Without a URI it starts a private redis-server ({@link RedisServerProcess}). The first fifth of
 * the iterations warm up and are not counted. Figures depend on the machine and its load: this
 * prints them, it asserts nothing.
 */
public final class PermitLatency {

  private PermitLatency() {}

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    RedisServerProcess own = args.length > 1 ? null : RedisServerProcess.start();
    String uri = own != null ? own.uri() : args[1];
    try {
      System.out.println("redis " + (own != null ? own.version() : uri) + ", " + iterations
          + " iterations each, one caller, microseconds");
      System.out.println(line("acquire+release", permits(uri, iterations)));
      try (Lane lane = Lane.virtual("latency", 4).queueCapacity(10).build()) {
        System.out.println(line("lane task", laneTasks(lane, iterations)));
      }
      try (SharedCap shared = SharedCap.builder("latency", uri).cap(4).build();
          Lane gated = Lane.virtual("latency", 4).queueCapacity(10).gate(shared).build()) {
        System.out.println(line("shared-cap task", laneTasks(gated, iterations)));
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** Acquire (granted) then release, one after the other. */
  public static Histogram permits(String uri, int iterations) throws Exception {
    Histogram h = histogram();
    Duration lease = Duration.ofSeconds(30);
    try (RedisPermits p = new RedisPermits(uri, "latency-permits", Duration.ofSeconds(2))) {
      p.connect(id -> {});
      for (int i = 0; i < iterations; i++) {
        String id = "p" + i;
        long t0 = System.nanoTime();
        if (!p.acquire(id, 1_000, lease, lease).toCompletableFuture().get(5, TimeUnit.SECONDS)) {
          throw new IllegalStateException("permit " + id + " not granted: is another run using it?");
        }
        p.release(List.of(id)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        record(h, i, iterations, System.nanoTime() - t0);
      }
    }
    return h;
  }

  static Histogram laneTasks(Lane lane, int iterations) throws Exception {
    Histogram h = histogram();
    for (int i = 0; i < iterations; i++) {
      long t0 = System.nanoTime();
      lane.submit(() -> 1).get(5, TimeUnit.SECONDS);
      record(h, i, iterations, System.nanoTime() - t0);
    }
    return h;
  }

  private static Histogram histogram() {
    return new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
  }

  private static void record(Histogram h, int i, int iterations, long nanos) {
    if (i >= iterations / 5) {
      h.recordValue(Math.min(nanos, h.getHighestTrackableValue()));
    }
  }

  static String line(String what, Histogram h) {
    return String.format("%-16s p50 %7.1f  p99 %7.1f  p99.9 %7.1f  max %8.1f  (n=%d)", what,
        h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
        h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3, h.getTotalCount());
  }
}
