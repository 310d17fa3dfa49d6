package dev.lanes.agent.apps;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Embedded Tomcat on 127.0.0.1, an ephemeral port, {@value #MAX_THREADS} request threads, two
 * servlets ({@code /slow} parks {@value #SLOW_MS} ms, {@code /fast} answers at once), and {@value
 * #REQUESTS} requests sent at once from the JDK's HTTP client, half to each. Each caller measures
 * its own latency, each servlet its own run; both sums are printed on a line starting with
 * {@code figures:}, which the test leaves out of the transcript it compares. The transcript: the
 * name prefix of Tomcat's request threads, and how many requests got which status and body.
 * Then Tomcat's pool used directly, up to a refusal ({@code refusal}).
 *
 * <p>A second connector, {@value #KEEP_ALIVE_THREADS} request threads of its own, serves kept-alive
 * connections ({@link #keepAlive}): one connection sends {@value #PIPELINED} requests in one write
 * (one task serves them all), then {@value #CLIENTS} connections each send {@value
 * #REQUESTS_PER_CLIENT} requests to {@code /slow}, one after the other, each timed by its client;
 * the servlet's own run time comes back in a header. Their sums are on a {@code figures:} line.
 */
public final class TomcatApp {
  static final int MAX_THREADS = 4;
  public static final int REQUESTS = 40;
  static final long SLOW_MS = 50;
  static final int KEEP_ALIVE_THREADS = 2;
  public static final int PIPELINED = 3;
  public static final int CLIENTS = 6;
  public static final int REQUESTS_PER_CLIENT = 8;
  static final long KEEP_ALIVE_SLOW_MS = 20;

  public static void main(String[] args) throws Exception {
    Logger.getLogger("org.apache").setLevel(Level.WARNING); // Tomcat's start-up lines say nothing here
    Path base = Files.createTempDirectory("tomcat-app");
    AtomicLong servletRunNanos = new AtomicLong();
    AtomicReference<String> requestThread = new AtomicReference<>();
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    Connector connector = connector(tomcat, MAX_THREADS);
    Connector keepAlive = connector(tomcat, KEEP_ALIVE_THREADS);
    Context context = tomcat.addContext("", base.toString());
    Tomcat.addServlet(context, "slow", new Answer("slow", SLOW_MS, servletRunNanos, requestThread));
    Tomcat.addServlet(context, "fast", new Answer("fast", 0, servletRunNanos, requestThread));
    Tomcat.addServlet(context, "ka", new Answer("ka", KEEP_ALIVE_SLOW_MS, new AtomicLong(),
        new AtomicReference<>()));
    context.addServletMappingDecoded("/slow", "slow");
    context.addServletMappingDecoded("/fast", "fast");
    context.addServletMappingDecoded("/ka", "ka");
    tomcat.start();
    try {
      int port = connector.getLocalPort();
      Map<String, Integer> outcomes = new TreeMap<>();
      long latencyNanos = 0;
      try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
        List<CompletableFuture<String>> calls = new ArrayList<>();
        AtomicLong latencySum = new AtomicLong();
        for (int i = 0; i < REQUESTS; i++) {
          String path = i % 2 == 0 ? "/slow" : "/fast";
          HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build();
          long sent = System.nanoTime();
          calls.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
            latencySum.addAndGet(System.nanoTime() - sent);
            return path + " -> " + r.statusCode() + " " + r.body();
          }));
        }
        for (CompletableFuture<String> call : calls) {
          outcomes.merge(call.join(), 1, Integer::sum);
        }
        latencyNanos = latencySum.get();
      }
      System.out.println("request threads: " + requestThread.get().replaceAll("-\\d+$", ""));
      outcomes.forEach((outcome, n) -> System.out.println(n + " x " + outcome));
      System.out.printf("figures: requests=%d latency_total_ms=%.3f servlet_run_total_ms=%.3f%n",
          REQUESTS, latencyNanos / 1e6, servletRunNanos.get() / 1e6);
      keepAlive(keepAlive.getLocalPort());
    } finally {
      stop(tomcat);
    }
    refusal();
  }

  /**
   * Kept-alive connections on the second connector: {@value #PIPELINED} requests in one write on
   * one connection, then {@value #CLIENTS} connections of {@value #REQUESTS_PER_CLIENT} requests
   * each, sent one after the other on platform threads (each waits for its answer before the
   * next). Each response carries the servlet's run time; each client times each request from
   * writing it to its last byte read.
   */
  private static void keepAlive(int port) throws Exception {
    try (KeptAlive c = new KeptAlive(port)) {
      c.out.write((request("/fast", false).repeat(PIPELINED - 1) + request("/fast", true))
          .getBytes(StandardCharsets.US_ASCII));
      c.out.flush();
      Map<String, Integer> statuses = new TreeMap<>();
      for (int i = 0; i < PIPELINED; i++) {
        statuses.merge(c.read().status, 1, Integer::sum);
      }
      statuses.forEach((status, n) -> System.out.println("pipelined: " + n + " x " + status));
    }
    AtomicLong latency = new AtomicLong();
    AtomicLong serverRun = new AtomicLong();
    AtomicReference<String> thread = new AtomicReference<>();
    Map<String, Integer> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
    CountDownLatch ready = new CountDownLatch(CLIENTS);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> clients = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int k = 0; k < CLIENTS; k++) {
      Thread t = new Thread(() -> {
        try (KeptAlive c = new KeptAlive(port)) {
          ready.countDown();
          go.await();
          for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
            long sent = System.nanoTime();
            c.out.write(request("/ka", i == REQUESTS_PER_CLIENT - 1).getBytes(StandardCharsets.US_ASCII));
            c.out.flush();
            Response r = c.read();
            latency.addAndGet(System.nanoTime() - sent);
            serverRun.addAndGet(r.runNanos);
            thread.compareAndSet(null, r.thread);
            statuses.merge(r.status + " " + r.body, 1, Integer::sum);
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }, "keep-alive-client-" + k);
      t.start();
      clients.add(t);
    }
    ready.await();
    go.countDown();
    for (Thread t : clients) {
      t.join();
    }
    for (Throwable e : failures) {
      System.out.println("keep-alive client failed: " + e);
    }
    System.out.println("keep-alive request threads: " + thread.get().replaceAll("-\\d+$", ""));
    statuses.forEach((status, n) -> System.out.println("kept-alive: " + n + " x " + status));
    System.out.printf("figures: keep_alive_requests=%d keep_alive_latency_total_ms=%.3f"
        + " keep_alive_servlet_run_total_ms=%.3f%n", CLIENTS * REQUESTS_PER_CLIENT,
        latency.get() / 1e6, serverRun.get() / 1e6);
  }

  private static String request(String path, boolean last) {
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (last ? "Connection: close\r\n" : "")
        + "\r\n";
  }

  /** One response: its status, body, and the servlet's headers (its thread and run time). */
  private record Response(String status, String body, String thread, long runNanos) {}

  /** One HTTP/1.1 connection, read by hand: the headers to a blank line, then Content-Length bytes. */
  private static final class KeptAlive implements AutoCloseable {
    private final java.net.Socket socket;
    private final java.io.BufferedInputStream in;
    final java.io.OutputStream out;

    KeptAlive(int port) throws IOException {
      socket = new java.net.Socket("127.0.0.1", port);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(30_000);
      in = new java.io.BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    Response read() throws IOException {
      String status = line();
      int length = 0;
      String thread = "";
      long run = 0;
      for (String h = line(); !h.isEmpty(); h = line()) {
        String name = h.substring(0, h.indexOf(':')).trim().toLowerCase(java.util.Locale.ROOT);
        String value = h.substring(h.indexOf(':') + 1).trim();
        switch (name) {
          case "content-length" -> length = Integer.parseInt(value);
          case "x-thread" -> thread = value;
          case "x-run-nanos" -> run = Long.parseLong(value);
          default -> { }
        }
      }
      byte[] body = in.readNBytes(length);
      return new Response(status.substring(status.indexOf(' ') + 1, status.indexOf(' ') + 4),
          new String(body, StandardCharsets.US_ASCII), thread, run);
    }

    private String line() throws IOException {
      StringBuilder b = new StringBuilder();
      for (int c; (c = in.read()) != '\n'; ) {
        if (c < 0) {
          throw new IOException("connection closed after: " + b);
        }
        if (c != '\r') {
          b.append((char) c);
        }
      }
      return b.toString();
    }

    @Override public void close() throws IOException {
      socket.close();
    }
  }

  /**
   * Tomcat's pool used directly, as Tomcat builds it (a TaskQueue of 1, at most 2 threads): two
   * tasks hold both threads, a third waits in the queue, a fourth is refused. Tomcat's pool
   * offers a task it refused to its queue once more before the caller sees the refusal.
   */
  private static void refusal() throws InterruptedException {
    TaskQueue queue = new TaskQueue(1);
    ThreadPoolExecutor pool = new ThreadPoolExecutor(0, 2, 60, TimeUnit.SECONDS, queue,
        new TaskThreadFactory("tomcat-direct-", true, Thread.NORM_PRIORITY));
    queue.setParent(pool);
    CountDownLatch holding = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch queuedRan = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      pool.execute(() -> {
        holding.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    holding.await();
    pool.execute(queuedRan::countDown);
    try {
      pool.execute(() -> { });
      System.out.println("fourth task: accepted");
    } catch (RejectedExecutionException e) {
      System.out.println("fourth task: refused (" + e.getClass().getSimpleName() + ")");
    }
    release.countDown();
    queuedRan.await();
    pool.shutdown();
    System.out.println("direct pool ended: " + pool.awaitTermination(10, TimeUnit.SECONDS));
  }

  private static void stop(Tomcat tomcat) throws LifecycleException {
    tomcat.stop();
    tomcat.destroy();
  }

  /** Answers its name after parking {@code parkMs}; adds its own run time to a sum. */
  private static final class Answer extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final String body;
    private final long parkMs;
    private final transient AtomicLong runNanos;
    private final transient AtomicReference<String> thread;

    Answer(String body, long parkMs, AtomicLong runNanos, AtomicReference<String> thread) {
      this.body = body;
      this.parkMs = parkMs;
      this.runNanos = runNanos;
      this.thread = thread;
    }

    @Override protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      long start = System.nanoTime();
      thread.compareAndSet(null, Thread.currentThread().getName());
      long until = start + parkMs * 1_000_000;
      for (long now = start; now < until; now = System.nanoTime()) {
        LockSupport.parkNanos(until - now); // the work this request stands for
      }
      resp.setContentType("text/plain");
      resp.setHeader("X-Thread", Thread.currentThread().getName());
      long run = System.nanoTime() - start;
      resp.setHeader("X-Run-Nanos", String.valueOf(run));
      resp.setContentLength(body.length());
      resp.getWriter().write(body);
      runNanos.addAndGet(run);
    }
  }

  /** An HTTP/1.1 connector of {@code tomcat} on a free loopback port with {@code maxThreads} threads. */
  static Connector connector(Tomcat tomcat, int maxThreads) {
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("maxThreads", String.valueOf(maxThreads));
    tomcat.getService().addConnector(connector);
    return connector;
  }
}
