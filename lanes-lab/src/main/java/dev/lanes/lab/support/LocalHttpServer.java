package dev.lanes.lab.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * An HTTP server on 127.0.0.1 (a free port) that answers {@code GET /<anything>?ms=N} with "ok"
 * after sleeping N milliseconds (0 when absent). No internet is involved.
 *
 * <p>Design: the JDK server's dispatcher thread parses each request (its executor is the direct
 * one) and hands the handler to the executor the {@code router} picks for the request's path, so
 * an experiment can run handlers on one shared pool or on a lane per endpoint. A handler that the
 * router's executor refuses is answered 503 on the dispatcher thread. The handler runs entirely on
 * the chosen executor's thread; the exchange is closed in {@code finally}.
 */
public final class LocalHttpServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService ownExecutor;

  private LocalHttpServer(Function<String, Executor> router, ExecutorService ownExecutor) {
    this.ownExecutor = ownExecutor;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the local HTTP server on 127.0.0.1", e);
    }
    server.setExecutor(Runnable::run);
    server.createContext("/", exchange -> dispatch(router, exchange));
    server.start();
  }

  /** A server whose handlers each run on their own virtual thread. */
  public static LocalHttpServer startOnVirtualThreads() {
    ExecutorService perRequest = Executors.newVirtualThreadPerTaskExecutor();
    return new LocalHttpServer(path -> perRequest, perRequest);
  }

  /** A server whose handlers run on the executor {@code router} picks for the request's path. */
  public static LocalHttpServer start(Function<String, Executor> router) {
    return new LocalHttpServer(router, null);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://127.0.0.1:<port><path>?ms=<delayMs>}. */
  public URI uri(String path, int delayMs) {
    return URI.create("http://127.0.0.1:" + port() + path + "?ms=" + delayMs);
  }

  private static void dispatch(Function<String, Executor> router, HttpExchange exchange) {
    try {
      router.apply(exchange.getRequestURI().getPath()).execute(() -> answer(exchange));
    } catch (RejectedExecutionException e) {
      reply(exchange, 503, "busy");
    }
  }

  private static void answer(HttpExchange exchange) {
    int ms = delayOf(exchange.getRequestURI().getRawQuery());
    if (ms > 0) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        reply(exchange, 503, "interrupted");
        return;
      }
    }
    reply(exchange, 200, "ok");
  }

  private static int delayOf(String query) {
    if (query == null) {
      return 0;
    }
    for (String part : query.split("&")) {
      if (part.startsWith("ms=")) {
        try {
          return Math.max(0, Math.min(60_000, Integer.parseInt(part.substring(3))));
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 0;
  }

  private static void reply(HttpExchange exchange, int status, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (exchange) {
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      // The client went away; nothing to answer to.
    }
  }

  @Override
  public void close() {
    server.stop(0);
    if (ownExecutor != null) {
      ownExecutor.shutdownNow();
    }
  }
}
