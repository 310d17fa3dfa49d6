package dev.lanes.lab.support;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.advisor.SizingAdvice;
import dev.lanes.TaskRecord;
import dev.lanes.lab.LabContext;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The scenario of E8 (and E9): an HTTP server on 127.0.0.1 whose handlers run either on one shared
 * lane or on a lane per endpoint. A burst of slow requests ({@code /slow?ms=SLOW_MS}) arrives
 * first; then fast requests ({@code /fast}) arrive one every {@link #FAST_GAP_MS} ms. Client
 * latency is measured by the client (send → response); the server's run time and queue wait come
 * from the lanes' task records, labelled by endpoint.
 *
 * <p>Threads: requests are sent asynchronously by a fresh {@link HttpClient} per run (its own
 * threads); latencies are collected into a concurrent queue and read after every response
 * arrived. The server and lanes are closed at the end of the run.
 */
public final class NoisyNeighbour {

  public static final int SLOW_MS = 200;
  public static final int FAST_GAP_MS = 10;
  public static final int SHARED_THREADS = 8;

  /** Threads of the per-endpoint lanes. */
  public record Sizes(int slow, int fast) {}

  /** One run's figures; client latencies are in the order the requests were sent. */
  public record Run(List<Double> fastClientMs, List<Double> slowClientMs, List<TaskRecord> records,
      Map<String, LaneStats> stats, Map<String, SizingAdvice> advice, double totalMs) {}

  private NoisyNeighbour() {}

  public static Sizes defaultSizes() {
    return new Sizes(6, 2);
  }

  public static Run shared(LabContext ctx, String prefix, int slowCount, int fastCount, TaskLog log) {
    Lane shared = lane(log, prefix + "-shared", SHARED_THREADS, slowCount + fastCount);
    return run(ctx, slowCount, fastCount, log, shared, shared, List.of(shared));
  }

  public static Run lanes(LabContext ctx, String prefix, Sizes sizes, int slowCount, int fastCount,
      TaskLog log) {
    Lane slow = lane(log, prefix + "-slow", sizes.slow(), slowCount + fastCount);
    Lane fast = lane(log, prefix + "-fast", sizes.fast(), slowCount + fastCount);
    return run(ctx, slowCount, fastCount, log, slow, fast, List.of(slow, fast));
  }

  private static Lane lane(TaskLog log, String name, int threads, int queue) {
    return log.follow(Lane.blocking(name, threads).queueCapacity(queue)
        .cpuTimeEveryTask().daemon(true).build());
  }

  private static Executor labelled(Lane lane, String label) {
    return r -> lane.execute(label, r);
  }

  private static Run run(LabContext ctx, int slowCount, int fastCount, TaskLog log, Lane slowLane,
      Lane fastLane, List<Lane> lanes) {
    Executor slow = labelled(slowLane, "slow");
    Executor fast = labelled(fastLane, "fast");
    // Written by the client's threads, read after allOf(...).get(): completion happens-before get.
    double[] fastMs = new double[fastCount];
    double[] slowMs = new double[slowCount];
    Map<String, LaneStats> stats = new LinkedHashMap<>();
    Map<String, SizingAdvice> advice = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    try (LocalHttpServer server = LocalHttpServer.start(path -> path.startsWith("/slow") ? slow : fast);
        HttpClient client = LabContext.newClient()) {
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (int i = 0; i < slowCount; i++) {
        calls.add(call(client, server, "/slow", SLOW_MS, slowMs, i));
      }
      Work.pause(50); // the slow burst is in the server's queue before the first fast request
      for (int i = 0; i < fastCount; i++) {
        calls.add(call(client, server, "/fast", 0, fastMs, i));
        Work.pause(FAST_GAP_MS);
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
      for (Lane lane : lanes) {
        LaneStats s = lane.stats();
        stats.put(lane.name(), s);
        advice.put(lane.name(), MixedWorkload.ADVISOR.advise(s, ctx.cores()));
      }
    } catch (Exception e) {
      throw new IllegalStateException("noisy-neighbour run failed: " + e, e);
    } finally {
      lanes.forEach(Lane::close);
    }
    double totalMs = (System.nanoTime() - t0) / 1e6;
    List<TaskRecord> records = new ArrayList<>();
    for (Lane lane : lanes) {
      records.addAll(log.of(lane.name()));
    }
    return new Run(list(fastMs), list(slowMs), records, stats, advice, totalMs);
  }

  private static CompletableFuture<?> call(HttpClient client, LocalHttpServer server, String path,
      int ms, double[] latencies, int index) {
    HttpRequest request = HttpRequest.newBuilder(server.uri(path, ms)).timeout(Duration.ofSeconds(60))
        .GET().build();
    long start = System.nanoTime();
    return client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .thenAccept(response -> {
          if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
          }
          latencies[index] = (System.nanoTime() - start) / 1e6;
        });
  }

  private static List<Double> list(double[] values) {
    List<Double> out = new ArrayList<>(values.length);
    for (double v : values) {
      out.add(v);
    }
    return out;
  }

  /** Milliseconds of {@code field} for records labelled {@code label}. */
  public static List<Double> serverMs(List<TaskRecord> records, String label, boolean queueWait) {
    return records.stream().filter(r -> r.label().equals(label))
        .map(r -> queueWait ? r.queueWaitMillis() : r.runMillis()).toList();
  }
}
