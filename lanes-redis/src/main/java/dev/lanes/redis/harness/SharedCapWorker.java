package dev.lanes.redis.harness;

import dev.lanes.Lane;
import dev.lanes.redis.FaultPolicy;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.SharedCapStats;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of a service in the multi-process tests and in the lab's E13: a JVM with a virtual
 * lane whose cap is shared on Redis, driving an {@link InFlightServer} with a steady demand.
 *
 * <pre>
 * java -cp &lt;lanes-redis and its dependencies&gt; dev.lanes.redis.harness.SharedCapWorker \
 *   --redis redis://127.0.0.1:6379 --lane partner-api --cap 20 --concurrency 15 \
 *   --target http://127.0.0.1:PORT/work --task-ms 20 --demand 15 --seconds 5 \
 *   [--instance NAME] [--lease-ms 5000] [--call-timeout-ms 500] [--local-share N]
 * </pre>
 *
 * Protocol on standard input and output (one line each): prints {@code READY <instance>} once its
 * shared cap is built, then waits for a line {@code GO}; keeps {@code --demand} tasks submitted (each
 * one GET {@code <target>?ms=<task-ms>} with header {@code X-Instance}, submitted to the lane,
 * which the shared cap gates) for {@code --seconds};
 * prints {@code EVENT <kind> <health>} for every event of the shared cap; finally waits for its
 * tasks and prints {@code RESULT key=value ...} (accepted, ended, completed, failed, rejected by
 * reason, the shared cap's figures) and exits 0: every accepted task has ended by then, or the
 * worker never prints its result (a lost task shows as a hang the caller times out on). A line {@code STOP} ends the run before {@code --seconds}. A task refused because Redis is away is counted, not retried.
 */
public final class SharedCapWorker {

  private SharedCapWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = parse(args);
    String instance = a.getOrDefault("instance", ProcessHandle.current().pid() + "");
    int concurrency = Integer.parseInt(a.get("concurrency"));
    int demand = Integer.parseInt(a.getOrDefault("demand", a.get("concurrency")));
    long taskMs = Long.parseLong(a.getOrDefault("task-ms", "20"));
    long seconds = Long.parseLong(a.getOrDefault("seconds", "5"));
    int localShare = Integer.parseInt(a.getOrDefault("local-share", "0"));
    URI target = URI.create(a.get("target") + "?ms=" + taskMs);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest request = HttpRequest.newBuilder(target).header("X-Instance", instance)
        .timeout(Duration.ofSeconds(60 + taskMs / 1000)).GET().build();
    AtomicLong accepted = new AtomicLong();
    AtomicLong ended = new AtomicLong();
    AtomicLong completed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    Map<String, AtomicLong> rejected = new java.util.concurrent.ConcurrentHashMap<>();

    SharedCap.Builder settings = SharedCap.builder(a.get("lane"), a.get("redis"))
        .cap(Integer.parseInt(a.get("cap")))
        .lease(Duration.ofMillis(Long.parseLong(a.getOrDefault("lease-ms", "5000"))))
        .faultPolicy(localShare > 0 ? FaultPolicy.localShare(localShare) : FaultPolicy.failFast());
    if (a.containsKey("call-timeout-ms")) {
      settings.callTimeout(Duration.ofMillis(Long.parseLong(a.get("call-timeout-ms"))));
    }
    try (SharedCap shared = settings.build();
        Lane lane = Lane.virtual(a.get("lane"), concurrency).queueCapacity(demand + 1)
            .gate(shared).build()) {
      shared.onEvent(e -> out.println("EVENT " + e.kind() + " " + e.health()));
      out.println("READY " + instance);
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null && !line.strip().equals("GO")) {
        // wait for GO
      }
      // A line STOP ends the run early; the reader is a daemon and ends with the JVM.
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      Thread.ofVirtual().start(() -> {
        try {
          String l;
          while ((l = in.readLine()) != null) {
            if (l.strip().equals("STOP")) {
              stop.set(true);
            }
          }
        } catch (java.io.IOException e) {
          stop.set(true);
        }
      });
      Semaphore outstanding = new Semaphore(demand);
      java.util.concurrent.atomic.AtomicBoolean refusedLately =
          new java.util.concurrent.atomic.AtomicBoolean();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < end && !stop.get()) {
        if (!outstanding.tryAcquire(10, TimeUnit.MILLISECONDS)) {
          continue;
        }
        if (refusedLately.getAndSet(false)) {
          // Do not spin while refused: Redis is away and the policy fails fast.
          outstanding.release();
          Thread.sleep(10);
          continue;
        }
        CompletableFuture<Integer> f;
        try {
          f = lane.submit("call", () -> http.send(request, HttpResponse.BodyHandlers.discarding())
              .statusCode());
        } catch (java.util.concurrent.RejectedExecutionException e) {
          count(rejected, e);
          outstanding.release();
          Thread.sleep(10);
          continue;
        }
        accepted.incrementAndGet();
        f.whenComplete((status, failure) -> {
          ended.incrementAndGet();
          if (failure == null && status == 200) {
            completed.incrementAndGet();
          } else if (failure instanceof java.util.concurrent.RejectedExecutionException r) {
            count(rejected, r); // GATE_REFUSED: the shared cap refused it (Redis away, fail-fast)
            refusedLately.set(true);
          } else {
            failed.incrementAndGet();
          }
          outstanding.release();
        });
      }
      outstanding.acquire(demand);
      SharedCapStats s = shared.stats();
      dev.lanes.Distribution wait = lane.stats().sinceStart().queueWait(); // gate wait included
      out.println("RESULT instance=" + instance + " accepted=" + accepted + " ended=" + ended
          + " completed=" + completed + " failed=" + failed
          + " rejected=" + rejected + " granted=" + s.permitsGranted()
          + " queueWaitP50us=" + wait.p50() / 1000
          + " queueWaitP99us=" + wait.p99() / 1000
          + " reinstated=" + s.permitsReinstated() + " redisFailures=" + s.redisFailures());
    }
  }

  private static void count(Map<String, AtomicLong> rejected, Throwable e) {
    String reason = e instanceof dev.lanes.LaneRejectedException r
        ? r.reason().name() : e.getClass().getSimpleName();
    rejected.computeIfAbsent(reason, k -> new AtomicLong()).incrementAndGet();
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
      }
      a.put(args[i].substring(2), args[++i]);
    }
    for (String required : new String[] {"redis", "lane", "cap", "concurrency", "target"}) {
      if (!a.containsKey(required)) {
        throw new IllegalArgumentException("--" + required + " is required");
      }
    }
    return a;
  }
}
