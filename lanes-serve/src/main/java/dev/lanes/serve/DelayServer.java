package dev.lanes.serve;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The slow dependency behind {@code /call}: an HTTP server on a loopback ephemeral port whose
 * {@code /delay?ms=N} answers after N ms. It holds no thread per waiting request: the handler
 * schedules the answer on one timer thread. At most {@link #MAX_PENDING} answers wait at once;
 * beyond that it answers 503 at once.
 *
 * <p><b>Concurrency design.</b> The JDK server's dispatcher thread runs the handler, which only
 * parses and schedules. The timer thread writes the answers. {@code pending} (a semaphore) bounds
 * the scheduled answers; a permit is released in {@code finally} after each answer.
 */
final class DelayServer implements AutoCloseable {

  static final int MAX_PENDING = 10_000;

  private final HttpServer server;
  private final ScheduledThreadPoolExecutor timer;
  private final Semaphore pending = new Semaphore(MAX_PENDING);

  DelayServer() throws IOException {
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "delay-server-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.createContext("/delay", this::handle);
    server.start();
  }

  /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
  String url() {
    InetSocketAddress a = server.getAddress();
    return "http://" + a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    long ms;
    try {
      ms = Requests.millis(ex.getRequestURI(), "ms");
    } catch (Requests.BadRequest e) {
      Requests.send(ex, e.status(), e.getMessage());
      return;
    }
    if (!pending.tryAcquire()) {
      Requests.send(ex, 503, "delay server: " + MAX_PENDING + " answers already pending");
      return;
    }
    try {
      timer.schedule(() -> answer(ex, ms), ms, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      pending.release();
      Requests.send(ex, 503, "delay server: stopping");
    }
  }

  private void answer(HttpExchange ex, long ms) {
    try {
      byte[] body = ("delayed " + ms + " ms\n").getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    } catch (IOException e) {
      // the caller went away; nothing to tell
    } finally {
      ex.close();
      pending.release();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    timer.shutdownNow();
    try {
      if (!timer.awaitTermination(5, TimeUnit.SECONDS)) {
        throw new IllegalStateException("delay server: timer thread did not stop in 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
