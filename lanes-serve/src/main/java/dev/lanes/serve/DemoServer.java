package dev.lanes.serve;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.Lanes;
import dev.lanes.micrometer.LanesMetrics;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.micrometer.SharedCapMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo server: a JDK {@link HttpServer} whose requests run on lanes.
 *
 * <ul>
 *   <li>{@code --mode shared}: every application endpoint runs on one lane, {@code shared}, of
 *       {@code threads} platform threads — the usual one-pool server. It is still a lane, so its
 *       queue wait is measured: the figure a server's own latency metric leaves out.
 *   <li>{@code --mode lanes}: each endpoint has its own lane ({@code fast}, {@code slow}, {@code
 *       cpu}), and {@code /call} is staged: the call to the slow dependency on a capped virtual
 *       lane {@code call}, then its CPU part on the {@code cpu} lane.
 * </ul>
 *
 * In both modes the observation endpoints ({@code /}, {@code /stats.json}, {@code /metrics}) run
 * on a small lane of their own, {@code admin}, so the server can be watched while it drowns, and
 * requests are read and routed on a capped virtual lane, {@code http}.
 *
 * <p><b>Concurrency design.</b> The JDK server's one dispatcher thread accepts connections and
 * hands each readable one to the {@code http} lane, whose virtual thread reads the request, checks
 * it and hands it to the endpoint's lane with {@code execute}; a lane whose queue is full refuses
 * at once (503), so reading never waits for work. The lane's task writes the answer and closes the exchange. Every
 * lane and queue is bounded, and every {@code ms} is capped at {@link EndpointWork#MAX_MS}, so no
 * request can hold a thread longer than that (plus the delay server's answer for {@code /call}).
 * {@link #close()} stops accepting, interrupts the lanes' tasks ({@code shutdownNow}) and waits
 * for them; the sleeps and spins stop on interrupt.
 */
final class DemoServer implements AutoCloseable {

  /** How the application endpoints map onto lanes. */
  enum Mode {
    SHARED,
    LANES;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Validated settings.
   *
   * @param threads threads of the shared lane (shared mode) and of the slow lane (lanes mode)
   * @param queueCapacity queue of each application lane
   * @param redis a Redis URI for a shared cap on the "call" lane (lanes mode), or null for none
   * @param sharedCap the shared cap's global cap (with {@code redis} only)
   */
  record Config(Mode mode, String bind, int port, int threads, int queueCapacity, String redis, int sharedCap) {
    static final int MAX_THREADS = 1_000;
    static final int MAX_QUEUE = 100_000;

    Config {
      if (mode == null) {
        throw new IllegalArgumentException("mode must be shared or lanes");
      }
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
      }
      if (threads < 1 || threads > MAX_THREADS) {
        throw new IllegalArgumentException("threads must be between 1 and " + MAX_THREADS + ", was " + threads);
      }
      if (queueCapacity < 1 || queueCapacity > MAX_QUEUE) {
        throw new IllegalArgumentException(
            "queue must be between 1 and " + MAX_QUEUE + ", was " + queueCapacity);
      }
      if (bind == null || bind.isBlank()) {
        throw new IllegalArgumentException("bind must be an address, e.g. 127.0.0.1");
      }
      if (redis != null && mode != Mode.LANES) {
        throw new IllegalArgumentException("--redis shares the cap of the \"call\" lane, which only --mode lanes has");
      }
      if (redis != null && (sharedCap < 1 || sharedCap > CALL_CONCURRENCY)) {
        throw new IllegalArgumentException(
            "shared cap must be between 1 and " + CALL_CONCURRENCY + " (the call lane's cap), was " + sharedCap);
      }
    }

    /** Without a shared cap. */
    Config(Mode mode, String bind, int port, int threads, int queueCapacity) {
      this(mode, bind, port, threads, queueCapacity, null, 0);
    }
  }

  /** CPU milliseconds {@code /call} spends after the call, unless {@code cpu=} says otherwise. */
  static final long DEFAULT_CALL_CPU_MS = 5;

  private static final int BACKLOG = 1_024;
  private static final int FAST_THREADS = 2;
  private static final int CALL_CONCURRENCY = 100;
  private static final int ADMIN_THREADS = 2;
  private static final int ADMIN_QUEUE = 64;
  private static final int DELAY_CONNECT_TIMEOUT_MS = 5_000;
  /** Requests being read (headers parsed, routed) at once, and how many connections may wait. */
  private static final int HTTP_READERS = 256;
  private static final int HTTP_QUEUE = 1_024;
  private static final Duration HTTP_SATURATED_WAIT = Duration.ofMillis(100);

  private static final String PATHS = "/, /fast, /slow?ms=, /cpu?ms=, /call?ms=, /stats.json, /series.json, /metrics";

  /** The live page's charting library, uPlot, from its WebJar on the class path (no CDN). */
  private static final byte[] UPLOT_JS = LivePage.uplotJs();
  private static final byte[] UPLOT_CSS = LivePage.uplotCss();

  private final Config config;
  private final Lanes lanes;
  private final Lane admin;
  /** Stage label → lane, in route order (fast, slow, cpu, call or call.io, call.cpu). */
  private final Map<String, Lane> laneByLabel;
  private final EndpointBook book;
  private final LiveSeries series;
  private final PrometheusMeterRegistry registry;
  private final LanesMetrics metrics;
  /** The "call" lane's cap shared on Redis ({@code --redis}), or null. */
  private final SharedCap shared;
  private final DelayServer delay;
  private final HttpServer http;
  private final byte[] page;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicBoolean closing = new AtomicBoolean();

  private DemoServer(Config config) throws IOException {
    this.config = config;
    this.page = LivePage.html();
    // With --redis, the "call" lane's cap is shared on Redis: the shared cap is its gate, so it is
    // built first (a gate is fixed when the lane is built).
    SharedCap sc = config.redis() != null && config.mode() != Mode.SHARED
        ? SharedCap.builder("call", config.redis()).cap(config.sharedCap()).build() : null;
    List<LaneBuilder> b = new ArrayList<>();
    if (config.mode() == Mode.SHARED) {
      b.add(app(Lane.blocking("shared", config.threads())));
    } else {
      b.add(app(Lane.blocking("fast", FAST_THREADS)));
      b.add(app(Lane.blocking("slow", config.threads())));
      b.add(app(Lane.cpu("cpu")));
      LaneBuilder call = app(Lane.virtual("call", CALL_CONCURRENCY));
      b.add(sc == null ? call : call.gate(sc));
    }
    b.add(Lane.blocking("admin", ADMIN_THREADS).queueCapacity(ADMIN_QUEUE).daemon(true)
        .exceptionHandler(DemoServer::taskFailed));
    // Reading a request takes microseconds, so the default wait-versus-run rule would call this
    // lane saturated on scheduler jitter; it is flagged only when requests wait to be read.
    b.add(Lane.virtual("http", HTTP_READERS).queueCapacity(HTTP_QUEUE).exceptionHandler(DemoServer::taskFailed)
        .saturatedWhenWaitExceeds(HTTP_SATURATED_WAIT));
    try {
      this.lanes = Lanes.of(b.toArray(LaneBuilder[]::new));
    } catch (RuntimeException e) {
      if (sc != null) {
        sc.close();
      }
      throw e;
    }
    this.admin = lanes.lane("admin");
    Lane httpLane = lanes.lane("http");

    Map<String, Lane> routes = new LinkedHashMap<>();
    if (config.mode() == Mode.SHARED) {
      Lane shared = lanes.lane("shared");
      for (String label : List.of("fast", "slow", "cpu", "call")) {
        routes.put(label, shared);
      }
    } else {
      routes.put("fast", lanes.lane("fast"));
      routes.put("slow", lanes.lane("slow"));
      routes.put("cpu", lanes.lane("cpu"));
      routes.put("call.io", lanes.lane("call"));
      routes.put("call.cpu", lanes.lane("cpu"));
    }
    this.laneByLabel = routes;
    Map<String, String> names = new LinkedHashMap<>();
    routes.forEach((label, lane) -> names.put(label, lane.name()));
    this.book = new EndpointBook(names, System::nanoTime);
    for (Lane l : lanes.all()) {
      if (l != admin && l != httpLane) {
        book.follow(l);
      }
    }

    List<Lane> watched = new ArrayList<>(lanes.all());
    this.series = new LiveSeries(watched, List.copyOf(routes.keySet()), book, System::nanoTime);

    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.metrics = LanesMetrics.of(lanes);
    metrics.bindTo(registry);

    DelayServer d = null;
    HttpServer h = null;
    try {
      if (sc != null) {
        new SharedCapMetrics(sc).bindTo(registry);
      }
      d = new DelayServer();
      h = HttpServer.create(new InetSocketAddress(InetAddress.getByName(config.bind()), config.port()), BACKLOG);
      h.createContext("/", this::route);
      // Reading a request blocks until its headers arrived, so it happens on the capped virtual
      // "http" lane, never on the dispatcher: a stalled client holds one virtual thread, not the
      // server. When that lane is full, the JDK server closes the new connection.
      h.setExecutor(httpLane);
      h.start();
    } catch (IOException | RuntimeException e) {
      if (d != null) {
        d.close();
      }
      metrics.close();
      shutdownLanes();
      if (sc != null) {
        sc.close(); // after its lane (a gate outlives the lane it gates)
      }
      throw e;
    }
    this.shared = sc;
    this.delay = d;
    this.http = h;
    series.start();
  }

  private LaneBuilder app(LaneBuilder lane) {
    return lane.queueCapacity(config.queueCapacity()).daemon(true).exceptionHandler(DemoServer::taskFailed);
  }

  /** Starts a server; {@code port} 0 picks a free port ({@link #port()}). */
  static DemoServer start(Config config) throws IOException {
    return new DemoServer(config);
  }

  int port() {
    return http.getAddress().getPort();
  }

  String url() {
    InetSocketAddress a = http.getAddress();
    String host = a.getAddress().getHostAddress();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  Config config() {
    return config;
  }

  Lanes lanes() {
    return lanes;
  }

  /** The shared cap's figures, or null without {@code --redis}. */
  dev.lanes.redis.SharedCapStats sharedStats() {
    return shared == null ? null : shared.stats();
  }

  /** The shared cap's health ({@code GLOBAL}, ...), or null without {@code --redis}. */
  String sharedHealth() {
    return shared == null ? null : shared.health().name();
  }

  /** Blocks until {@link #close()} ran. */
  void awaitClose() throws InterruptedException {
    stopped.await();
  }

  // ------------------------------------------------------------------ routing

  private void route(HttpExchange ex) {
    String path = ex.getRequestURI().getPath();
    String method = ex.getRequestMethod();
    try {
      if (path.equals("/stats/reset")) {
        if (!method.equals("POST")) {
          ex.getResponseHeaders().set("Allow", "POST");
          throw new Requests.BadRequest(405, "use POST for /stats/reset");
        }
        book.reset();
        Requests.send(ex, 200, "endpoint figures reset");
        return;
      }
      if (!method.equals("GET") && !method.equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        throw new Requests.BadRequest(405, method + " not allowed; use GET");
      }
      URI uri = ex.getRequestURI();
      switch (path) {
        case "/fast" -> onLane(ex, "fast", () -> Requests.send(ex, 200, "fast"));
        case "/slow" -> {
          long ms = Requests.millis(uri, "ms");
          onLane(ex, "slow", () -> {
            sleep(ms);
            Requests.send(ex, 200, "slept " + ms + " ms");
          });
        }
        case "/cpu" -> {
          long ms = Requests.millis(uri, "ms");
          onLane(ex, "cpu", () -> Requests.send(ex, 200, "spun " + ms + " ms (" + spin(ms) + ")"));
        }
        case "/call" -> {
          long ms = Requests.millis(uri, "ms");
          long cpu = Requests.millis(uri, "cpu", DEFAULT_CALL_CPU_MS);
          call(ex, ms, cpu);
        }
        case "/stats.json" -> onAdmin(ex, "stats", () ->
            Requests.send(ex, 200, "application/json", statsJson().getBytes(StandardCharsets.UTF_8)));
        case "/metrics" -> onAdmin(ex, "metrics", () ->
            Requests.send(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape().getBytes(StandardCharsets.UTF_8)));
        case "/series.json" -> onAdmin(ex, "series", () ->
            Requests.send(ex, 200, "application/json", series.json().getBytes(StandardCharsets.UTF_8)));
        case "/uplot.js" -> onAdmin(ex, "chart-library", () ->
            Requests.send(ex, 200, "text/javascript; charset=utf-8", UPLOT_JS));
        case "/uplot.css" -> onAdmin(ex, "chart-library", () ->
            Requests.send(ex, 200, "text/css; charset=utf-8", UPLOT_CSS));
        case "/" -> onAdmin(ex, "page", () -> Requests.send(ex, 200, "text/html; charset=utf-8", page));
        default -> throw new Requests.BadRequest(404, "no such path " + shorten(path) + "; try " + PATHS);
      }
    } catch (Requests.BadRequest e) {
      Requests.send(ex, e.status(), e.getMessage());
    } catch (RuntimeException e) {
      Requests.send(ex, 500, "internal error: " + e);
    }
  }

  private void call(HttpExchange ex, long ms, long cpu) {
    if (config.mode() == Mode.SHARED) {
      onLane(ex, "call", () -> {
        callDelayServer(ms);
        Requests.send(ex, 200, "called (" + ms + " ms), then spun " + cpu + " ms (" + spin(cpu) + ")");
      });
      return;
    }
    // Staged: the wait for the dependency on the virtual "call" lane, the computing on "cpu".
    onLane(ex, "call.io", () -> {
      callDelayServer(ms);
      onLane(ex, "call.cpu", () ->
          Requests.send(ex, 200, "called (" + ms + " ms), then spun " + cpu + " ms (" + spin(cpu) + ")"));
    });
  }

  /**
   * Runs {@code work} on the stage's lane; answers 503 if the lane refuses, 500 if work throws.
   * The endpoint book counts the request as waiting from here until it starts.
   */
  private void onLane(HttpExchange ex, String label, Runnable work) {
    long token = book.accepted(label);
    Runnable started = () -> book.started(label, token);
    if (shared != null && laneByLabel.get(label).name().equals("call")) {
      submitShared(label, ex, work, started);
    } else {
      submit(laneByLabel.get(label), label, ex, work, started);
    }
  }

  /**
   * As {@link #submit}, on the lane the shared cap gates: a task the gate refuses after it was
   * queued (Redis lost under fail-fast, the cap closed) ends as {@code GATE_REFUSED} without
   * running, so the request is answered from its future (an {@code execute} would tell only the
   * lane's exception handler).
   */
  private void submitShared(String label, HttpExchange ex, Runnable work, Runnable started) {
    Lane lane = laneByLabel.get(label);
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<Void> f;
    try {
      f = lane.submit(label, () -> {
        ran.set(true);
        started.run();
        try {
          work.run();
        } catch (RuntimeException e) {
          Requests.send(ex, e instanceof Stopping ? 503 : 500, firstLine(e.getMessage()));
          throw e;
        }
      });
    } catch (RejectedExecutionException e) {
      started.run();
      Requests.send(ex, 503, "lane \"" + lane.name() + "\" refused the request: " + firstLine(e.getMessage()));
      return;
    }
    f.whenComplete((v, failure) -> {
      if (failure != null && !ran.get()) {
        started.run();
        Requests.send(ex, 503, "shared cap \"" + shared.name() + "\" refused the request: "
            + firstLine(String.valueOf(unwrap(failure).getMessage())));
      }
    });
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  private void onAdmin(HttpExchange ex, String label, Runnable work) {
    submit(admin, label, ex, work, () -> {});
  }

  private static void submit(Lane lane, String label, HttpExchange ex, Runnable work, Runnable started) {
    try {
      lane.execute(label, () -> {
        started.run();
        try {
          work.run();
        } catch (RuntimeException e) {
          Requests.send(ex, e instanceof Stopping ? 503 : 500, firstLine(e.getMessage()));
          throw e; // counted as failed by the lane; its handler prints one line
        }
      });
    } catch (RejectedExecutionException e) {
      started.run(); // refused: it no longer waits
      Requests.send(ex, 503, "lane \"" + lane.name() + "\" refused the request: " + firstLine(e.getMessage()));
    }
  }

  // ------------------------------------------------------------------ work

  private static final class Stopping extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopping() {
      super("server stopping", null, false, false);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopping();
    }
  }

  /** {@link EndpointWork#spin}; an interrupt (the server stopping) ends the request with 503. */
  static long spin(long ms) {
    long checksum = EndpointWork.spin(ms);
    if (Thread.currentThread().isInterrupted()) {
      throw new Stopping();
    }
    return checksum;
  }

  private void callDelayServer(long ms) {
    HttpURLConnection c = null;
    try {
      c = (HttpURLConnection) URI.create(delay.url() + "/delay?ms=" + ms).toURL().openConnection();
      c.setConnectTimeout(DELAY_CONNECT_TIMEOUT_MS);
      c.setReadTimeout((int) (ms + DELAY_CONNECT_TIMEOUT_MS));
      int status = c.getResponseCode();
      try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
        if (in != null) {
          in.readAllBytes();
        }
      }
      if (status != 200) {
        throw new IllegalStateException("delay server answered " + status);
      }
    } catch (IOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new Stopping();
      }
      throw new UncheckedIOException("delay server call failed: " + e.getMessage(), e);
    } finally {
      if (c != null && Thread.currentThread().isInterrupted()) {
        c.disconnect();
      }
    }
  }

  private static void taskFailed(Thread t, Throwable e) {
    if (!(e instanceof Stopping)) {
      System.err.println("lanes-serve: " + t.getName() + ": " + firstLine(String.valueOf(e)));
    }
  }

  // ------------------------------------------------------------------ figures

  /** Every lane's figures and every endpoint stage's figures since the last reset, times in ms. */
  String statsJson() {
    return StatsJson.of(null, config.mode().tag(), lanes.all(), book, List.copyOf(laneByLabel.keySet()),
        shared == null ? List.of() : List.of(shared.stats()));
  }

  // ------------------------------------------------------------------ lifecycle

  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      awaitStopped();
      return;
    }
    try {
      http.stop(0);
      series.close();
      delay.close();
      if (shared != null) {
        shared.close(); // refuses queued calls at the gate, waits for running ones (the delay server is gone)
      }
      shutdownLanes();
      book.close();
      metrics.close();
      registry.close();
    } finally {
      stopped.countDown();
    }
  }

  private void awaitStopped() {
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void shutdownLanes() {
    lanes.all().forEach(Lane::shutdownNow);
    lanes.close();
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static String shorten(String s) {
    String oneLine = s.replaceAll("[\\p{Cntrl}]", "?");
    return oneLine.length() <= 60 ? oneLine : oneLine.substring(0, 60) + "...";
  }
}
