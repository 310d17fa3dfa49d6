package dev.lanes.alerts;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A webhook receiver on loopback (the JDK's HttpServer): records every request's body as it
 * arrives; a slow one holds each answer until {@code answer} is counted down. Closing stops the
 * server and joins its threads.
 */
final class Hook implements AutoCloseable {
  final List<String> bodies = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(4);

  private Hook(CountDownLatch answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/hook", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      if (answer != null) {
        try {
          answer.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.setExecutor(threads);
    server.start();
  }

  static Hook start() throws IOException {
    return new Hook(null);
  }

  /** Answers only once {@code answer} is counted down. */
  static Hook slow(CountDownLatch answer) throws IOException {
    return new Hook(answer);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
    try {
      if (!threads.awaitTermination(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the hook's threads did not end");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while joining the hook's threads", e);
    }
  }
}
