package dev.lanes.redis.harness;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The whole shared-cap scenario of the lab's E13, runnable on its own: a private redis-server, an
 * {@link InFlightServer} as the slow downstream, and {@code --instances} {@link SharedCapWorker}
 * JVMs sharing a cap with a demand of 3 × the cap. Phases: steady load; one worker killed with
 * SIGKILL while it holds permits; steady load; Redis stopped for {@code --outage-s} and started
 * again empty; steady load; stop. Figures are computed from what was measured.
 *
 * <pre>
 * java -cp &lt;lanes-redis and its dependencies&gt; dev.lanes.redis.harness.SharedCapScenario \
 *   --out target/e13 [--cap 20] [--instances 4] [--task-ms 100] [--lease-ms 2000] \
 *   [--steady-s 5] [--outage-s 10] [--policy fail-fast|local-share]
 * </pre>
 *
 * Writes to {@code --out}: {@code summary.json} (the figures below), {@code in-flight.csv}
 * (requests in flight at the downstream every 10 ms: {@code t_ms,in_flight}) and {@code
 * events.csv} ({@code t_ms,event}: go, kill, permits back, redis stopped, redis started, recovered
 * per worker, stop), for a chart of the in-flight count against the cap with the kill and the outage
 * marked. Summary figures: {@code overshoot_max} (the most requests in flight above the cap at the
 * downstream, counted exactly on every arrival, 0 when the cap held), {@code use_mean} (mean
 * sampled in-flight at the downstream ÷ cap in the first steady phase, after a second of warm-up),
 * {@code permits_in_use_mean} (mean permits held, sampled at Redis, ÷ cap, same phase: the
 * difference is the time a permit is held outside the downstream's request), {@code shares} (each instance's part of the
 * requests served in that phase), {@code kill_permits_back_ms} (from SIGKILL until Redis holds
 * none of the killed worker's permits), {@code kill_taken_up_ms} (until the others fill the cap
 * again), {@code outage_recovery_ms} (from redis-server ready again until the slowest live worker
 * reported REDIS_BACK), {@code outage_flowing_ms} (from redis-server ready again until a request is
 * in flight at the downstream again: recovery includes the settle time, during which no permit is
 * handed out), {@code tasks_accepted}/{@code tasks_ended} of the live workers (equal when
 * no task was lost), and the refusals by reason.
 */
public final class SharedCapScenario {

  private SharedCapScenario() {}

  static final Duration START = Duration.ofSeconds(60);

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path out = Path.of(a.getOrDefault("out", "target/shared-cap-scenario"));
    Map<String, Object> summary = run(out,
        Integer.parseInt(a.getOrDefault("cap", "20")),
        Integer.parseInt(a.getOrDefault("instances", "4")),
        Long.parseLong(a.getOrDefault("task-ms", "100")),
        Long.parseLong(a.getOrDefault("lease-ms", "2000")),
        Long.parseLong(a.getOrDefault("steady-s", "5")),
        Long.parseLong(a.getOrDefault("outage-s", "10")),
        a.getOrDefault("policy", "fail-fast"));
    System.out.println(json(summary));
  }

  /** Runs the scenario and answers its summary (also written to {@code out/summary.json}). */
  public static Map<String, Object> run(Path out, int cap, int instances, long taskMs, long leaseMs,
      long steadySeconds, long outageSeconds, String policy) throws Exception {
    Files.createDirectories(out);
    int perInstance = (3 * cap + instances - 1) / instances;
    int localShare = policy.equals("local-share") ? Math.max(1, cap / instances) : 0;
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("cap", cap);
    summary.put("instances", instances);
    summary.put("demand", perInstance * instances);
    summary.put("task_ms", taskMs);
    summary.put("lease_ms", leaseMs);
    summary.put("policy", policy);
    List<String> events = new ArrayList<>();
    List<WorkerProcess> workers = new ArrayList<>();
    try (RedisServerProcess redis = RedisServerProcess.start();
        InFlightServer downstream = InFlightServer.start()) {
      summary.put("redis", redis.version());
      for (int i = 0; i < instances; i++) {
        List<String> wargs = new ArrayList<>(List.of("--redis", redis.uri(), "--lane", "e13",
            "--cap", "" + cap, "--concurrency", "" + perInstance, "--demand", "" + perInstance,
            "--target", downstream.url(), "--task-ms", "" + taskMs, "--seconds", "3600",
            "--instance", "w" + i, "--lease-ms", "" + leaseMs));
        if (localShare > 0) {
          wargs.addAll(List.of("--local-share", "" + localShare));
        }
        workers.add(WorkerProcess.start(wargs));
      }
      for (WorkerProcess w : workers) {
        w.awaitLine("READY", START);
      }
      downstream.resetPeak();
      long t0 = System.nanoTime();
      workers.forEach(w -> w.send("GO"));
      downstream.startSampling(Duration.ofMillis(10));
      events.add(ms(t0) + ",go");

      // 1. Steady: use of the cap and fairness. Permits in use are sampled at Redis meanwhile, to
      // tell the time a permit is held outside the downstream's request (client overhead) apart.
      pause(Duration.ofSeconds(1)); // warm-up, not counted
      List<Long> holders = new ArrayList<>();
      RedisClient sampling = RedisClient.create(redis.uri());
      Map<String, Long> servedBefore;
      int firstSample;
      try (StatefulRedisConnection<String, String> c = sampling.connect()) {
        // The window starts once connected: the first Lettuce client of a JVM takes a while.
        servedBefore = servedBy(downstream, instances);
        firstSample = downstream.samples().size();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(steadySeconds);
        while (System.nanoTime() < end) {
          holders.add(c.sync().zcard("lanes:{e13}:holders"));
          pause(Duration.ofMillis(10));
        }
      } finally {
        sampling.shutdown();
      }
      Map<String, Long> servedAfter = servedBy(downstream, instances);
      List<long[]> steady = downstream.samples();
      double mean = steady.subList(firstSample, steady.size()).stream()
          .mapToLong(x -> x[1]).average().orElse(0);
      summary.put("use_mean", round(mean / cap));
      summary.put("permits_in_use_mean",
          round(holders.stream().mapToLong(Long::longValue).average().orElse(0) / cap));
      summary.put("served_per_s", round(servedAfter.values().stream().mapToLong(Long::longValue).sum()
          - servedBefore.values().stream().mapToLong(Long::longValue).sum()) / (double) steadySeconds);
      long total = 0;
      for (long v : diff(servedBefore, servedAfter).values()) {
        total += v;
      }
      Map<String, Object> shares = new LinkedHashMap<>();
      for (Map.Entry<String, Long> e : diff(servedBefore, servedAfter).entrySet()) {
        shares.put(e.getKey(), round(total == 0 ? 0 : e.getValue() / (double) total));
      }
      summary.put("shares", shares);

      // 2. SIGKILL one worker while it holds permits.
      WorkerProcess victim = workers.get(0);
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        RedisCommands<String, String> sync = c.sync();
        String prefix = victim.pid() + "@";
        long held = sync.zrange("lanes:{e13}:holders", 0, -1).stream()
            .filter(id -> id.startsWith(prefix)).count();
        summary.put("kill_permits_held", held);
        long kill = System.nanoTime();
        victim.kill();
        events.add(ms(t0) + ",kill w0");
        long back = awaitTrue(Duration.ofMillis(leaseMs * 10), () -> sync.zrange(
            "lanes:{e13}:holders", 0, -1).stream().noneMatch(id -> id.startsWith(prefix)));
        summary.put("kill_permits_back_ms", back < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(back - kill));
        events.add(ms(t0) + ",permits of w0 back");
        long takenUp = awaitTrue(Duration.ofMillis(leaseMs * 10), () -> {
          int others = 0;
          for (int i = 1; i < instances; i++) {
            others += downstream.inFlight("w" + i);
          }
          return others >= Math.min(cap, perInstance * (instances - 1));
        });
        summary.put("kill_taken_up_ms", takenUp < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(takenUp - kill));
      } finally {
        client.shutdown();
      }
      pause(Duration.ofSeconds(Math.max(1, steadySeconds / 2)));

      // 3. Redis away for outageSeconds, then back empty.
      redis.stop();
      events.add(ms(t0) + ",redis stopped");
      pause(Duration.ofSeconds(outageSeconds));
      redis.restart();
      long ready = System.nanoTime();
      events.add(ms(t0) + ",redis started");
      long slowest = 0;
      for (WorkerProcess w : workers.subList(1, workers.size())) {
        w.awaitLine("EVENT REDIS_BACK", START);
        slowest = Math.max(slowest, System.nanoTime() - ready);
        events.add(ms(t0) + ",recovered " + w.pid());
      }
      long flowing = awaitTrue(START, () -> downstream.inFlight() > 0);
      summary.put("outage_flowing_ms", flowing < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(flowing - ready));
      summary.put("outage_s", outageSeconds);
      summary.put("outage_recovery_ms", TimeUnit.NANOSECONDS.toMillis(slowest));
      pause(Duration.ofSeconds(Math.max(1, steadySeconds / 2)));

      // 4. Stop; every accepted task of the live workers must have ended.
      long accepted = 0;
      long ended = 0;
      Map<String, Long> refused = new LinkedHashMap<>();
      for (WorkerProcess w : workers.subList(1, workers.size())) {
        w.send("STOP");
      }
      events.add(ms(t0) + ",stop");
      for (WorkerProcess w : workers.subList(1, workers.size())) {
        Map<String, String> r = fields(w.awaitLine("RESULT", START));
        accepted += Long.parseLong(r.get("accepted"));
        ended += Long.parseLong(r.get("ended"));
        String rej = r.get("rejected").replaceAll("[{}]", "");
        if (!rej.isEmpty()) {
          for (String kv : rej.split(", ")) {
            String[] p = kv.split("=");
            refused.merge(p[0], Long.parseLong(p[1]), Long::sum);
          }
        }
      }
      downstream.stopSampling();
      summary.put("overshoot_max", Math.max(0, downstream.peak() - cap));
      summary.put("peak_in_flight", downstream.peak());
      summary.put("tasks_accepted", accepted);
      summary.put("tasks_ended", ended);
      summary.put("refused", refused);
      writeCsv(out.resolve("in-flight.csv"), "t_ms,in_flight", downstream.samples().stream()
          .map(s -> TimeUnit.NANOSECONDS.toMillis(s[0]) + "," + s[1]).toList());
      writeCsv(out.resolve("events.csv"), "t_ms,event", events);
    } finally {
      for (WorkerProcess w : workers) {
        w.close();
      }
    }
    Files.writeString(out.resolve("summary.json"), json(summary) + "\n");
    return summary;
  }

  private static Map<String, Long> servedBy(InFlightServer s, int instances) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      m.put("w" + i, s.served("w" + i));
    }
    return m;
  }

  private static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> m = new LinkedHashMap<>();
    after.forEach((k, v) -> m.put(k, v - before.getOrDefault(k, 0L)));
    return m;
  }

  /** Polls {@code condition} every 5 ms; answers the nanoTime it became true, or -1 at timeout. */
  private static long awaitTrue(Duration timeout, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return System.nanoTime();
      }
      pause(Duration.ofMillis(5));
    }
    return -1;
  }

  /** A phase of the scenario lasts this long: load runs meanwhile (timing, not synchronisation). */
  private static void pause(Duration d) throws InterruptedException {
    new CountDownLatch(1).await(d.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static long ms(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  static Map<String, String> fields(String resultLine) {
    Map<String, String> m = new HashMap<>();
    String body = resultLine.substring("RESULT ".length());
    // rejected={A=1, B=2} contains spaces: split on " key=" boundaries.
    for (String part : body.split(" (?=[a-zA-Z0-9]+=)")) {
      int eq = part.indexOf('=');
      m.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return m;
  }

  private static void writeCsv(Path file, String header, List<String> rows) throws IOException {
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      w.println(header);
      rows.forEach(w::println);
    }
  }

  static String json(Object v) {
    if (v instanceof Map<?, ?> m) {
      StringBuilder b = new StringBuilder("{");
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (b.length() > 1) {
          b.append(", ");
        }
        b.append('"').append(e.getKey()).append("\": ").append(json(e.getValue()));
      }
      return b.append('}').toString();
    }
    if (v instanceof Number || v instanceof Boolean) {
      return String.format(Locale.ROOT, "%s", v);
    }
    return "\"" + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
