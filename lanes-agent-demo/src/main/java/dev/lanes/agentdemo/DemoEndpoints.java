package dev.lanes.agentdemo;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The endpoints, written the way an application would write them without a thought for its pools.
 * The same controller serves Spring MVC (each request on a Tomcat request thread) and WebFlux (a
 * handler returning a plain value runs on the Netty event loop that read the request).
 */
@RestController
public class DemoEndpoints {
  /** Largest {@code ms} an endpoint accepts. */
  static final int MAX_MS = 60_000;
  static final int MAX_CALLS = 64;
  /** Each {@code /nested} leaves one thread stuck for good: at most this many, then it refuses. */
  static final int MAX_NESTED = 8;

  /** The pools {@code /nested} deadlocked, kept reachable so that they stay what they are: stuck. */
  private static final List<ExecutorService> STUCK = new CopyOnWriteArrayList<>();
  private static final AtomicInteger NESTED = new AtomicInteger();

  /** Answers at once. */
  @GetMapping("/fast")
  public String fast() {
    return "fast\n";
  }

  /** Holds its thread for {@code ms} (a slow downstream call, as a sleep). */
  @GetMapping("/slow")
  public String slow(@RequestParam(defaultValue = "1000") int ms) throws InterruptedException {
    Thread.sleep(check(ms));
    return "slow " + ms + " ms\n";
  }

  /** Keeps its thread's core busy for {@code ms}. */
  @GetMapping("/cpu")
  public String cpu(@RequestParam(defaultValue = "1000") int ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(check(ms));
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + 17) ^ x;
    }
    return "cpu " + ms + " ms (" + (x & 1) + ")\n";
  }

  /**
   * Fans {@code calls} blocking calls of {@code ms} each out to the common pool and joins them:
   * the pattern writing 003 warns about. The common pool is named explicitly: with fewer than 3
   * cores its parallelism is 1, and {@code supplyAsync} without an executor would then start a new
   * thread per task instead of using it.
   */
  @GetMapping("/fanout")
  public String fanout(@RequestParam(defaultValue = "4") int calls, @RequestParam(defaultValue = "500") int ms) {
    if (calls < 1 || calls > MAX_CALLS) {
      throw new IllegalArgumentException("calls must be between 1 and " + MAX_CALLS + ", was " + calls);
    }
    check(ms);
    AtomicLong sum = new AtomicLong();
    CompletableFuture<?>[] all = new CompletableFuture<?>[calls];
    for (int i = 0; i < calls; i++) {
      int n = i;
      all[i] = CompletableFuture.supplyAsync(() -> remoteCall(n, ms), ForkJoinPool.commonPool())
          .thenAccept(sum::addAndGet);
    }
    CompletableFuture.allOf(all).join();
    return "fanout " + calls + " x " + ms + " ms on the common pool (" + sum.get() + ")\n";
  }

  /** A blocking call to some remote service, standing in as a sleep. */
  private static long remoteCall(int n, int ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    return n;
  }

  /**
   * The classic nested submission on a pool of one thread: its task submits another task to the
   * same pool and waits for it, which can never run. Answers once the outer task is about to wait,
   * with that moment ({@code formed_at_epoch_us=...}, microseconds since the epoch) so that a
   * caller on the same machine can time how soon the deadlock is reported. The pool's thread is a
   * daemon, so the JVM can still exit; at most {@value #MAX_NESTED} such pools are made.
   */
  @GetMapping("/nested")
  public String nested() throws Exception {
    int id = NESTED.incrementAndGet();
    if (id > MAX_NESTED) {
      NESTED.decrementAndGet();
      throw new IllegalStateException("at most " + MAX_NESTED + " nested deadlocks at once (each"
          + " keeps a thread for good); restart the application for more");
    }
    ExecutorService pool = Executors.newFixedThreadPool(1, r -> {
      Thread t = new Thread(r, "nested-" + id + "-worker-1");
      t.setDaemon(true);
      return t;
    });
    STUCK.add(pool);
    CountDownLatch aboutToWait = new CountDownLatch(1);
    AtomicLong formedAt = new AtomicLong();
    pool.submit(() -> {
      Future<String> inner = pool.submit(() -> "inner");
      formedAt.set(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
      aboutToWait.countDown();
      return inner.get(); // never returns: the only thread is this one
    });
    if (!aboutToWait.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the nested task did not start within 10 s");
    }
    return "nested formed_at_epoch_us=" + formedAt.get() + "\n";
  }

  /** Ends every nested deadlock (interrupts its thread, shuts its pool down); for tests. */
  static void endNestedDeadlocks() throws InterruptedException {
    for (ExecutorService pool : STUCK) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    STUCK.clear();
    NESTED.set(0);
  }

  private static int check(int ms) {
    if (ms < 0 || ms > MAX_MS) {
      throw new IllegalArgumentException("ms must be between 0 and " + MAX_MS + ", was " + ms);
    }
    return ms;
  }
}
