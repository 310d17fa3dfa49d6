package dev.lanes.agent.apps;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 */
public final class TomcatApp {
  static final int MAX_THREADS = 4;
  public static final int REQUESTS = 40;
  static final long SLOW_MS = 50;

  public static void main(String[] args) throws Exception {
    Logger.getLogger("org.apache").setLevel(Level.WARNING); // Tomcat's start-up lines say nothing here
    Path base = Files.createTempDirectory("tomcat-app");
    AtomicLong servletRunNanos = new AtomicLong();
    AtomicReference<String> requestThread = new AtomicReference<>();
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("maxThreads", String.valueOf(MAX_THREADS));
    tomcat.getService().addConnector(connector);
    Context context = tomcat.addContext("", base.toString());
    Tomcat.addServlet(context, "slow", new Answer("slow", SLOW_MS, servletRunNanos, requestThread));
    Tomcat.addServlet(context, "fast", new Answer("fast", 0, servletRunNanos, requestThread));
    context.addServletMappingDecoded("/slow", "slow");
    context.addServletMappingDecoded("/fast", "fast");
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
    } finally {
      stop(tomcat);
    }
    refusal();
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
      resp.getWriter().write(body);
      runNanos.addAndGet(System.nanoTime() - start);
    }
  }
}
