package dev.lanes.serve;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs a {@link Scenario} against a lanes demo server and reads the server's figures for the same
 * requests from {@code /stats.json}; against the Spring Boot demo (whose {@code /stats.json} names
 * its {@code server}) also Actuator's {@code http.server.requests} for each endpoint's URI, before
 * and after the run.
 *
 * <p>Bounded: at most {@code maxInFlight} requests are outstanding (the sender waits for a free
 * slot), and the whole run, replies included, ends by {@code maxSeconds}; what is still
 * outstanding then is aborted and counted as unfinished. Only loopback hosts are accepted unless
 * {@code allowRemote}.
 *
 * <p>Client latency is measured from the moment a request is handed to the HTTP client to the end
 * of its answer; time the sender spent waiting for an in-flight slot is not included (keep {@code
 * maxInFlight} above a burst's size to avoid that omission).
 *
 * <p><b>Concurrency design.</b> One sender (the calling thread) paces the steps. Replies complete
 * on the HTTP client's executor (a fixed pool of {@link #CLIENT_THREADS}; its queue is bounded by
 * {@code maxInFlight}), which appends the latency to the endpoint's {@link Tally} under that
 * tally's lock and releases an in-flight permit. The sender reads the tallies after reacquiring
 * every permit (or after the deadline and the client's shutdown), which orders all appends before
 * the read.
 */
final class LoadGenerator {

  /** Settings of one run. */
  record Options(URI url, int maxInFlight, int maxSeconds, boolean allowRemote, boolean reset) {
    static final int MAX_IN_FLIGHT = 5_000;
    static final int MAX_SECONDS = 600;

    Options {
      if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
        throw new IllegalArgumentException(
            "max-in-flight must be between 1 and " + MAX_IN_FLIGHT + ", was " + maxInFlight);
      }
      if (maxSeconds < 1 || maxSeconds > MAX_SECONDS) {
        throw new IllegalArgumentException("max-seconds must be between 1 and " + MAX_SECONDS + ", was " + maxSeconds);
      }
      if (url == null || !"http".equals(url.getScheme()) || url.getHost() == null) {
        throw new IllegalArgumentException("url must look like http://127.0.0.1:8080, was " + url);
      }
      if (!allowRemote && !isLoopback(url.getHost())) {
        throw new IllegalArgumentException("refusing host " + url.getHost()
            + ": only loopback (127.0.0.1, ::1, localhost) unless --allow-remote");
      }
    }
  }

  private static final int CLIENT_THREADS = 4;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);
  /** How long to wait for the server's records of the last requests to land in /stats.json. */
  private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(3);
  private static final long SETTLE_POLL_MILLIS = 50;

  private LoadGenerator() {}

  /**
   * True for names that are loopback without a DNS look-up: {@code localhost}, 127.0.0.0/8 and
   * {@code ::1}. Any other name is refused rather than resolved.
   */
  static boolean isLoopback(String host) {
    String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (h.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (h.matches("127(\\.\\d{1,3}){3}")) {
      for (String part : h.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return false;
        }
      }
      return true;
    }
    return h.equals("::1") || h.equals("0:0:0:0:0:0:0:1");
  }

  static LoadResult run(Scenario scenario, Options options) throws IOException, InterruptedException {
    long startNanos = System.nanoTime();
    long deadline = startNanos + TimeUnit.SECONDS.toNanos(options.maxSeconds());
    ExecutorService clientPool = Executors.newFixedThreadPool(CLIENT_THREADS, r -> {
      Thread t = new Thread(r, "lanes-load-client");
      t.setDaemon(true);
      return t;
    });
    HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT)
        .executor(clientPool)
        .build();
    // A second client for /stats.json and the reset, still usable after the load client is aborted.
    HttpClient admin = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT)
        .executor(clientPool)
        .build();
    List<String> notes = new ArrayList<>();
    Map<String, Tally> tallies = new LinkedHashMap<>();
    for (String e : scenario.endpoints()) {
      tallies.put(e, new Tally());
    }
    String mode;
    Map<String, Object> stats;
    // Spring Boot's demo (lanes-serve-boot) names its web server in /stats.json and has Actuator:
    // its http.server.requests is read before and after the run, and the difference reported.
    Map<String, ActuatorReading> actuatorBefore = new LinkedHashMap<>();
    Map<String, ActuatorReading> actuatorAfter = new LinkedHashMap<>();
    try {
      Map<String, Object> first = readStats(admin, options.url());
      mode = first.get("server") != null ? first.get("server") + " / " + first.get("mode") : String.valueOf(first.get("mode"));
      boolean actuator = first.get("server") != null;
      if (options.reset()) {
        post(admin, options.url().resolve("/stats/reset"));
      } else {
        notes.add("server figures were not reset: they include requests from before this run");
      }
      if (actuator) {
        for (String e : scenario.endpoints()) {
          actuatorBefore.put(e, readActuator(admin, options.url(), e));
        }
      }
      Semaphore inFlight = new Semaphore(options.maxInFlight());
      boolean timedOut = false;
      steps:
      for (Scenario.Step step : scenario.steps()) {
        long stepStart = System.nanoTime();
        if (step.isPause()) {
          if (!sleepUntil(Math.min(stepStart + TimeUnit.MILLISECONDS.toNanos(step.pauseMs()), deadline))) {
            timedOut = true;
            break;
          }
          continue;
        }
        Tally tally = tallies.get(step.endpoint());
        URI target = options.url().resolve(step.pathAndQuery());
        long gapNanos = TimeUnit.SECONDS.toNanos(1) / step.rate();
        for (int i = 0; i < step.count(); i++) {
          if (!sleepUntil(stepStart + i * gapNanos) || !acquire(inFlight, deadline)) {
            timedOut = true;
            break steps;
          }
          send(client, target, tally, inFlight, deadline);
        }
      }
      // Wait for the replies: every permit back means every request ended.
      if (!acquireAll(inFlight, options.maxInFlight(), deadline)) {
        timedOut = true;
      }
      if (timedOut) {
        notes.add("stopped at the " + options.maxSeconds() + " s limit (--max-seconds)");
        client.shutdownNow();
        if (!client.awaitTermination(Duration.ofSeconds(10))) {
          notes.add("the HTTP client did not stop within 10 s");
        }
      }
      stats = settledStats(admin, options.url(), tallies, notes);
      if (!actuatorBefore.isEmpty()) {
        settledActuator(admin, options.url(), tallies, actuatorBefore, actuatorAfter, notes);
      }
    } finally {
      client.shutdownNow();
      client.close();
      admin.close();
      clientPool.shutdownNow();
      if (!clientPool.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("lanes load: client threads did not stop in 10 s");
      }
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;

    List<LoadResult.Stage> stages = stages(stats);
    List<LoadResult.Endpoint> endpoints = new ArrayList<>();
    tallies.forEach((path, t) -> {
      ActuatorReading before = actuatorBefore.get(path);
      ActuatorReading after = actuatorAfter.get(path);
      LoadResult.Actuator a = before == null || after == null ? null : after.since(before);
      endpoints.add(t.result(path, LoadResult.stagesOf(path, stages), a));
    });
    return new LoadResult(scenario.name(), options.url().toString(), mode, scenario.describe(), seconds, endpoints, notes);
  }

  /** How long past the run's deadline a request's own timeout lies (see {@link #send}). */
  static final long REQUEST_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static void send(HttpClient client, URI target, Tally tally, Semaphore inFlight, long deadline) {
    // The request's own timeout lies past the run's deadline: at the deadline the run stops and
    // aborts what is still in flight (and says so). A timeout at the deadline itself could end
    // every request a moment before the run's wait for them gave up, and the cut-short run would
    // look finished (LoadCommandTest.aRunLongerThanMaxSecondsIsCutShortAndSaysSo flaked so).
    long remaining = Math.max(1, deadline - System.nanoTime()) + REQUEST_GRACE_NANOS;
    HttpRequest req = HttpRequest.newBuilder(target).GET().timeout(Duration.ofNanos(remaining)).build();
    tally.sent.incrementAndGet();
    long start = System.nanoTime();
    try {
      client.sendAsync(req, HttpResponse.BodyHandlers.discarding())
          .whenComplete((resp, failure) -> {
            try {
              tally.add(resp == null ? -1 : resp.statusCode(), System.nanoTime() - start);
            } finally {
              inFlight.release();
            }
          });
    } catch (RuntimeException e) {
      // The client refused to start the request (e.g. shut down): an error, and the slot is free.
      tally.add(-1, System.nanoTime() - start);
      inFlight.release();
    }
  }

  /** Polls /stats.json until the server counted every answered request of each endpoint. */
  private static Map<String, Object> settledStats(HttpClient client, URI url, Map<String, Tally> tallies,
      List<String> notes) throws IOException, InterruptedException {
    long until = System.nanoTime() + SETTLE_NANOS;
    while (true) {
      Map<String, Object> stats = readStats(client, url);
      List<LoadResult.Stage> stages = stages(stats);
      boolean settled = true;
      for (var e : tallies.entrySet()) {
        int ok = e.getValue().okCount();
        for (LoadResult.Stage s : LoadResult.stagesOf(e.getKey(), stages)) {
          if (s.tasks() < ok) {
            settled = false;
          }
        }
      }
      if (settled) {
        return stats;
      }
      if (System.nanoTime() > until) {
        notes.add("the server's figures count fewer tasks than the client's answered requests");
        return stats;
      }
      Thread.sleep(SETTLE_POLL_MILLIS); // polling a remote figure, not synchronising threads
    }
  }

  /**
   * Actuator's {@code http.server.requests} for one URI since the server started: count, total and
   * max in seconds (Micrometer's max covers only its recent window, two minutes by default).
   */
  record ActuatorReading(long count, double totalSeconds, double maxSeconds) {
    static final ActuatorReading NONE = new ActuatorReading(0, 0, 0);

    /** The requests between {@code before} and this reading. */
    LoadResult.Actuator since(ActuatorReading before) {
      long n = count - before.count;
      double mean = n > 0 ? (totalSeconds - before.totalSeconds) * 1e3 / n : 0;
      return new LoadResult.Actuator(n, mean, maxSeconds * 1e3);
    }
  }

  /** Polls Actuator until it counted every answered request of each endpoint since {@code before}. */
  private static void settledActuator(HttpClient client, URI url, Map<String, Tally> tallies,
      Map<String, ActuatorReading> before, Map<String, ActuatorReading> after, List<String> notes)
      throws IOException, InterruptedException {
    long until = System.nanoTime() + SETTLE_NANOS;
    while (true) {
      boolean settled = true;
      for (var e : tallies.entrySet()) {
        ActuatorReading r = readActuator(client, url, e.getKey());
        after.put(e.getKey(), r);
        if (r.count() - before.get(e.getKey()).count() < e.getValue().okCount()) {
          settled = false;
        }
      }
      if (settled) {
        return;
      }
      if (System.nanoTime() > until) {
        notes.add("Actuator's http.server.requests counts fewer requests than the client's answered ones");
        return;
      }
      Thread.sleep(SETTLE_POLL_MILLIS); // polling a remote figure, not synchronising threads
    }
  }

  @SuppressWarnings("unchecked")
  static ActuatorReading readActuator(HttpClient client, URI url, String path) throws IOException, InterruptedException {
    URI u = url.resolve("/actuator/metrics/http.server.requests?tag=uri:" + path);
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(u).GET().timeout(ADMIN_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404) {
      return ActuatorReading.NONE; // no request to that URI yet
    }
    if (r.statusCode() != 200) {
      throw new IOException("GET " + u + " answered " + r.statusCode() + ": " + firstLine(r.body()));
    }
    long count = 0;
    double total = 0;
    double max = 0;
    try {
      Map<String, Object> m = (Map<String, Object>) Json.parse(r.body());
      for (Object o : (List<Object>) m.get("measurements")) {
        Map<String, Object> x = (Map<String, Object>) o;
        double v = num(x.get("value"));
        switch (String.valueOf(x.get("statistic"))) {
          case "COUNT" -> count = Math.round(v);
          case "TOTAL_TIME" -> total = v;
          case "MAX" -> max = v;
          default -> { }
        }
      }
    } catch (RuntimeException e) {
      throw new IOException("GET " + u + " is not Actuator's metric: " + e.getMessage(), e);
    }
    return new ActuatorReading(count, total, max);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> readStats(HttpClient client, URI url) throws IOException, InterruptedException {
    URI u = url.resolve("/stats.json");
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(u).GET().timeout(ADMIN_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET " + u + " answered " + r.statusCode() + ": " + firstLine(r.body()));
    }
    Object parsed;
    try {
      parsed = Json.parse(r.body());
    } catch (IllegalArgumentException e) {
      throw new IOException("GET " + u + " is not a lanes demo server's /stats.json: " + e.getMessage(), e);
    }
    if (!(parsed instanceof Map<?, ?> m) || !m.containsKey("endpoints")) {
      throw new IOException("GET " + u + " is not a lanes demo server's /stats.json (no endpoints)");
    }
    return (Map<String, Object>) m;
  }

  private static void post(HttpClient client, URI u) throws IOException, InterruptedException {
    HttpResponse<String> r = client.send(
        HttpRequest.newBuilder(u).POST(HttpRequest.BodyPublishers.noBody()).timeout(ADMIN_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("POST " + u + " answered " + r.statusCode() + ": " + firstLine(r.body()));
    }
  }

  @SuppressWarnings("unchecked")
  private static List<LoadResult.Stage> stages(Map<String, Object> stats) {
    List<LoadResult.Stage> out = new ArrayList<>();
    for (Object o : (List<Object>) stats.get("endpoints")) {
      Map<String, Object> e = (Map<String, Object>) o;
      out.add(new LoadResult.Stage(
          (String) e.get("label"),
          (String) e.get("lane"),
          num(e.get("tasks")).longValue(),
          num(e.get("rejected")).longValue(),
          summary(e.get("wait")),
          summary(e.get("run"))));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static LoadResult.Summary summary(Object o) {
    Map<String, Object> m = (Map<String, Object>) o;
    return new LoadResult.Summary(num(m.get("count")).longValue(), num(m.get("p50")), num(m.get("p99")), num(m.get("max")));
  }

  private static Double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : 0.0;
  }

  private static boolean sleepUntil(long when) throws InterruptedException {
    long now;
    while ((now = System.nanoTime()) < when) {
      LockSupport.parkNanos(when - now);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    return true;
  }

  private static boolean acquire(Semaphore s, long deadline) throws InterruptedException {
    return s.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private static boolean acquireAll(Semaphore s, int permits, long deadline) throws InterruptedException {
    return s.tryAcquire(permits, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** One endpoint's client-side counts and latencies. */
  private static final class Tally {
    final AtomicInteger sent = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Long> okNanos = new ArrayList<>();
    private int refused;
    private int other;
    private int errors;

    void add(int status, long nanos) {
      lock.lock();
      try {
        if (status == 200) {
          okNanos.add(nanos);
        } else if (status == 503) {
          refused++;
        } else if (status < 0) {
          errors++;
        } else {
          other++;
        }
      } finally {
        lock.unlock();
      }
    }

    int okCount() {
      lock.lock();
      try {
        return okNanos.size();
      } finally {
        lock.unlock();
      }
    }

    LoadResult.Endpoint result(String path, List<LoadResult.Stage> stages, LoadResult.Actuator actuator) {
      lock.lock();
      try {
        long[] a = okNanos.stream().mapToLong(Long::longValue).toArray();
        int ended = okNanos.size() + refused + other + errors;
        return new LoadResult.Endpoint(path, sent.get(), okNanos.size(), refused, other, errors,
            Math.max(0, sent.get() - ended), LoadResult.Summary.ofNanos(a), actuator, stages);
      } finally {
        lock.unlock();
      }
    }
  }
}
