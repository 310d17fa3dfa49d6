package dev.lanes.serve;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Query parsing with one-line reasons, and plain-text answers. */
final class Requests {

  /** Longest query string read. */
  private static final int MAX_QUERY_CHARS = 1024;

  private Requests() {}

  /** A request the server refuses, with its status and one-line reason. */
  static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    BadRequest(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
    }

    int status() {
      return status;
    }
  }

  /**
   * The query parameter {@code name} as milliseconds in 0 .. {@link EndpointWork#MAX_MS}; missing,
   * bad or huge → 400.
   */
  static long millis(URI uri, String name) throws BadRequest {
    long max = EndpointWork.MAX_MS;
    String raw = param(uri, name);
    if (raw == null) {
      throw new BadRequest(400, "missing query parameter " + name + " (milliseconds, 0 to " + max + ")");
    }
    long v;
    try {
      v = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw new BadRequest(400, name + " must be a whole number of milliseconds, was \"" + shorten(raw) + "\"");
    }
    try {
      return EndpointWork.checkMillis(name, v);
    } catch (IllegalArgumentException e) {
      throw new BadRequest(400, e.getMessage());
    }
  }

  /** Like {@link #millis} but {@code fallback} when absent. */
  static long millis(URI uri, String name, long fallback) throws BadRequest {
    return param(uri, name) == null ? fallback : millis(uri, name);
  }

  private static String param(URI uri, String name) throws BadRequest {
    String q = uri.getRawQuery();
    if (q == null || q.isEmpty()) {
      return null;
    }
    if (q.length() > MAX_QUERY_CHARS) {
      throw new BadRequest(414, "query longer than " + MAX_QUERY_CHARS + " characters");
    }
    String found = null;
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = decode(eq < 0 ? pair : pair.substring(0, eq));
      if (k.equals(name)) {
        if (found != null) {
          throw new BadRequest(400, name + " given twice");
        }
        found = eq < 0 ? "" : decode(pair.substring(eq + 1));
      }
    }
    return found;
  }

  private static String decode(String s) throws BadRequest {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest(400, "badly encoded query");
    }
  }

  private static String shorten(String s) {
    String oneLine = s.replaceAll("[\\p{Cntrl}]", "?");
    return oneLine.length() <= 40 ? oneLine : oneLine.substring(0, 40) + "...";
  }

  /** Sends a plain-text answer (a line) and closes the exchange; IO errors mean the client left. */
  static void send(HttpExchange ex, int status, String line) {
    send(ex, status, "text/plain; charset=utf-8", (line + "\n").getBytes(StandardCharsets.UTF_8));
  }

  static void send(HttpExchange ex, int status, String contentType, byte[] body) {
    try {
      ex.getResponseHeaders().set("Content-Type", contentType);
      ex.getResponseHeaders().set("Cache-Control", "no-store");
      if (ex.getRequestMethod().equals("HEAD")) {
        ex.sendResponseHeaders(status, -1);
      } else {
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      ex.close();
    }
  }
}
