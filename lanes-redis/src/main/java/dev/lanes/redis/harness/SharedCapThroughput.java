package dev.lanes.redis.harness;

import dev.lanes.Lane;
import dev.lanes.redis.SharedCap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures how many tiny tasks a lane behind a {@link SharedCap} runs per second on one instance,
 * beside the same lane alone, and the most tasks that ran at once (counted inside the tasks). Each task increments a counter and counts a latch down; one producer submits
 * batches of tasks (2,000 unless given) to a virtual lane of concurrency {@value #CAP} gated by a
 * shared cap of {@value #CAP}, and waits for each batch. Issue #27's figures (BENCHMARKS.md) come
 * from it.
 *
 * <pre>
 * java -cp &lt;lanes-redis and its dependencies&gt; dev.lanes.redis.harness.SharedCapThroughput \
 *     [seconds] [batch] [redis-uri]
 * </pre>
 *
 * Without a URI it starts a private redis-server ({@link RedisServerProcess}). The first third of
 * the time warms up and is not counted. It prints figures; it asserts nothing.
 */
public final class SharedCapThroughput {

  static final int CAP = 20;

  private SharedCapThroughput() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
    RedisServerProcess own = args.length > 2 ? null : RedisServerProcess.start();
    String uri = own != null ? own.uri() : args[2];
    try {
      System.out.println("redis " + (own != null ? own.version() : uri) + ", " + seconds
          + " s per variant (a third of it warm-up), batches of " + batch + ", one producer, "
          + Runtime.getRuntime().availableProcessors() + " CPUs, JDK "
          + Runtime.version());
      try (Lane lane = Lane.virtual("throughput", CAP).queueCapacity(batch).build()) {
        System.out.println(run("lane alone", lane, seconds, batch));
      }
      try (SharedCap shared = SharedCap.builder("throughput", uri).cap(CAP).build();
          Lane gated = Lane.virtual("throughput", CAP).queueCapacity(batch).gate(shared)
              .build()) {
        System.out.println(run("shared cap " + CAP, gated, seconds, batch) + "; " + shared.stats());
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  static String run(String what, Lane lane, int seconds, int batch) throws InterruptedException {
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) / 3;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    long counted = 0;
    long countedNanos = 0;
    while (System.nanoTime() < end) {
      CountDownLatch done = new CountDownLatch(batch);
      Runnable task = () -> {
        most.accumulateAndGet(now.incrementAndGet(), Math::max);
        now.decrementAndGet();
        done.countDown();
      };
      long t0 = System.nanoTime();
      for (int i = 0; i < batch; i++) {
        lane.execute(task);
      }
      if (!done.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(what + ": a batch did not finish within 60 s");
      }
      long t1 = System.nanoTime();
      if (t0 >= warmEnd) {
        counted += batch;
        countedNanos += t1 - t0;
      }
    }
    return String.format("%-14s %,12.0f tasks/s (%,d tasks counted), at most %d running at once",
        what, counted / (countedNanos / 1e9), counted, most.get());
  }
}
