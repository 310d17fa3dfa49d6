package dev.lanes.redis.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The slow downstream service of the shared-cap tests and of E13: an HTTP server on 127.0.0.1 (a
 * free port) that answers {@code GET /work?ms=N} with "ok" after sleeping N ms, and counts the
 * requests in flight, in total and per caller (the {@code X-Instance} header).
 *
 * <p>A request is in flight from the moment its handler starts to the moment before its reply is
 * sent, so a caller that sends its next request after reading a reply never overlaps with it here.
 * The peak is exact (updated on every arrival), not sampled. Handlers run on virtual threads, so
 * the server itself never limits concurrency.
 */
public final class InFlightServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final AtomicLong served = new AtomicLong();
  private final Map<String, AtomicInteger> inFlightBy = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> servedBy = new ConcurrentHashMap<>();
  private final java.util.List<long[]> samples = new java.util.ArrayList<>(); // guarded by itself
  private java.util.concurrent.ScheduledExecutorService sampler;
  private long samplingSince;

  private InFlightServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the in-flight server on 127.0.0.1", e);
    }
    server.setExecutor(handlers);
    server.createContext("/work", this::handle);
    server.start();
  }

  public static InFlightServer start() {
    return new InFlightServer();
  }

  /** {@code http://127.0.0.1:<port>/work}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/work";
  }

  /** Requests in flight now. */
  public int inFlight() {
    return inFlight.get();
  }

  /** The most requests that were in flight at once since start (or {@link #resetPeak}). */
  public int peak() {
    return peak.get();
  }

  public void resetPeak() {
    peak.set(inFlight.get());
  }

  /** Requests answered. */
  public long served() {
    return served.get();
  }

  /** Requests in flight now from {@code instance}. */
  public int inFlight(String instance) {
    AtomicInteger n = inFlightBy.get(instance);
    return n == null ? 0 : n.get();
  }

  /** Requests answered to {@code instance}. */
  public long served(String instance) {
    AtomicLong n = servedBy.get(instance);
    return n == null ? 0 : n.get();
  }

  /**
   * Starts sampling the requests in flight every {@code period} (one thread, stopped by {@link
   * #stopSampling()} or {@link #close()}); earlier samples are dropped.
   */
  public synchronized void startSampling(java.time.Duration period) {
    stopSampling();
    synchronized (samples) {
      samples.clear();
    }
    samplingSince = System.nanoTime();
    sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "in-flight-sampler");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleAtFixedRate(() -> {
      long[] sample = {System.nanoTime() - samplingSince, inFlight.get()};
      synchronized (samples) {
        samples.add(sample);
      }
    }, 0, period.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Stops sampling and waits for the sampling thread to end. */
  public synchronized void stopSampling() {
    if (sampler != null) {
      sampler.shutdownNow();
      try {
        sampler.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sampler = null;
    }
  }

  /** The samples so far: {nanoseconds since sampling started, requests in flight}. */
  public java.util.List<long[]> samples() {
    synchronized (samples) {
      return java.util.List.copyOf(samples);
    }
  }

  /** The mean of the samples of requests in flight (0 without samples). */
  public double meanInFlight() {
    return samples().stream().mapToLong(s -> s[1]).average().orElse(0);
  }

  private void handle(HttpExchange exchange) {
    String instance = exchange.getRequestHeaders().getFirst("X-Instance");
    instance = instance == null ? "?" : instance;
    AtomicInteger mine = inFlightBy.computeIfAbsent(instance, k -> new AtomicInteger());
    int now = inFlight.incrementAndGet();
    mine.incrementAndGet();
    peak.accumulateAndGet(now, Math::max);
    int status = 200;
    try {
      Thread.sleep(delayOf(exchange.getRequestURI().getRawQuery()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 503;
    } finally {
      mine.decrementAndGet();
      inFlight.decrementAndGet();
    }
    served.incrementAndGet();
    servedBy.computeIfAbsent(instance, k -> new AtomicLong()).incrementAndGet();
    byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
    try (exchange; OutputStream out = exchange.getResponseBody()) {
      exchange.sendResponseHeaders(status, body.length);
      out.write(body);
    } catch (IOException e) {
      // The caller went away (it may have been killed): nothing to answer to.
    }
  }

  private static long delayOf(String query) {
    if (query != null) {
      for (String part : query.split("&")) {
        if (part.startsWith("ms=")) {
          return Math.max(0, Math.min(600_000, Long.parseLong(part.substring(3))));
        }
      }
    }
    return 0;
  }

  @Override
  public void close() {
    stopSampling();
    server.stop(0);
    handlers.shutdownNow();
    try {
      handlers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
