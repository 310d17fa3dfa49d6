package dev.lanes.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The pools' figures in Prometheus' text format, on {@code http://127.0.0.1:PORT/metrics}, and the
 * live page that lanes-serve draws, on {@code /} (with {@code /stats.json}, {@code /series.json}
 * from {@link LiveSeries}), only when the option {@code port} asks for it. Metric names are the Micrometer binder's for lanes
 * ({@code lanes_task_wait_seconds}, {@code lanes_task_run_seconds}, {@code lanes_tasks_total},
 * {@code lanes_queue_size}, ...) with a {@code pool} tag instead of {@code lane}; a {@code _max}
 * is the largest value since start (Micrometer's decays). Tomcat's requests and an event loop's IO
 * turns have summaries of their own ({@code lanes_request_wait_seconds}, {@code
 * lanes_io_turn_seconds}): each summary's quantiles, count and sum are over one population, since
 * the agent started.
 *
 * <p><b>Concurrency design.</b> Served by the watchdog thread itself between its ticks (the
 * agent adds no thread): it waits for a connection until the next tick is due, answers one
 * request at a time, and gives a client at most {@value #CLIENT_TIMEOUT_MS} ms to send its request.
 * Bound to the loopback address only.
 */
final class MetricsEndpoint implements AutoCloseable {
  private static final int CLIENT_TIMEOUT_MS = 1_000;
  /** Where the build put uPlot's files (lanes-agent's POM unpacks them from its WebJar). */
  static final String UPLOT = "dev/lanes/agent/uplot/";
  private final ServerSocket server;
  private final Pools pools;
  private final LiveSeries series;

  MetricsEndpoint(int port, Pools pools, LiveSeries series) throws IOException {
    this.pools = pools;
    this.series = series;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
  }

  int port() {
    return server.getLocalPort();
  }

  /** Answers requests until {@code deadline} ({@code System.nanoTime()}); the watchdog's wait. */
  void serveUntil(long deadline) {
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      try {
        server.setSoTimeout((int) Math.max(1, left / 1_000_000));
        try (Socket client = server.accept()) {
          answer(client);
        }
      } catch (SocketTimeoutException e) {
        return;
      } catch (IOException e) {
        // a client that went away: serve the next one
      }
    }
  }

  private void answer(Socket client) throws IOException {
    client.setSoTimeout(CLIENT_TIMEOUT_MS);
    InputStream in = client.getInputStream();
    StringBuilder line = new StringBuilder();
    for (int c; (c = in.read()) >= 0 && c != '\n' && line.length() < 2048; ) {
      line.append((char) c);
    }
    String[] request = line.toString().trim().split(" ");
    String path = request.length > 1 ? request[1] : "";
    int status = 200;
    String type;
    byte[] bytes;
    String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    if (!request[0].equals("GET")) {
      p = "";
    }
    switch (p) {
      case "/metrics" -> {
        type = "text/plain; version=0.0.4; charset=utf-8";
        bytes = utf8(prometheus(PoolTable.rows(pools, System.nanoTime())));
      }
      case "/" -> {
        type = "text/html; charset=utf-8";
        bytes = resource("dev/lanes/agent/live.html");
      }
      case "/stats.json" -> {
        type = "application/json";
        bytes = utf8(LiveSeries.statsJson(PoolTable.rows(pools, System.nanoTime())));
      }
      case "/series.json" -> {
        type = "application/json";
        bytes = utf8(series.seriesJson());
      }
      case "/uplot.js" -> {
        type = "text/javascript";
        bytes = resource(UPLOT + "uPlot.iife.min.js");
      }
      case "/uplot.css" -> {
        type = "text/css";
        bytes = resource(UPLOT + "uPlot.min.css");
      }
      default -> {
        status = 404;
        type = "text/plain; charset=utf-8";
        bytes = utf8("lanes-agent serves GET /metrics (Prometheus text format) and its live page"
            + " (/, /stats.json, /series.json) only\n");
      }
    }
    OutputStream out = client.getOutputStream();
    out.write(("HTTP/1.1 " + status + (status == 200 ? " OK" : " Not Found") + "\r\nContent-Type: "
        + type + "\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.write(bytes);
    out.flush();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A file of the agent jar (the live page, lanes-serve's, and uPlot), or an empty body. */
  private static byte[] resource(String name) throws IOException {
    try (InputStream in = MetricsEndpoint.class.getClassLoader().getResourceAsStream(name)) {
      return in == null ? new byte[0] : in.readAllBytes();
    }
  }

  /** Every figure below but the gauges is over the same window: since the agent started. */
  static final String SINCE_START = " (since the agent started)";

  static String prometheus(List<PoolTable.Row> rows) {
    StringBuilder b = new StringBuilder();
    int n = rows.stream().mapToInt(r -> r.s().timedOneIn()).max().orElse(1);
    String sampled = n == 1 ? "" : "; sampled: a thread pool times 1 task in " + n + " (agent"
        + " option sample=" + n + "), and these figures are over its timed tasks only";
    timer(b, rows, "lanes_task_wait_seconds", "Time tasks waited in the pool's queue, from handed"
        + " to the pool to started, per task; quantiles, count and sum over the same tasks"
        + SINCE_START + sampled, s -> new Distribution(s.waits(), s.waitedTasks(), s.waitSum()));
    timer(b, rows, "lanes_task_run_seconds", "Time tasks ran: the task's run() alone (an event"
        + " loop's IO turns are lanes_io_turn_seconds); quantiles, count and sum over the same"
        + " tasks" + SINCE_START + sampled, s -> new Distribution(s.runs(), s.timed(), s.runSum()));
    timer(b, rows, "lanes_request_wait_seconds", "Time requests waited for a thread of the pool"
        + " (Tomcat), per request: the first request a task served waited the task's queue wait, a"
        + " later one of the same task (a kept-alive connection's, read by the worker already"
        + " running) none; quantiles, count and sum over the same requests" + SINCE_START
        + (n == 1 ? "" : sampled.replace("timed tasks only", "timed tasks' requests only")),
        s -> s.requests().count() == 0 ? null : new Distribution(s.requests().waits(),
            s.requests().waited(), s.requests().waitSum()));
    timer(b, rows, "lanes_io_turn_seconds", "Time an event loop spent in IO turns (handling its"
        + " ready channels, where their handlers run; no task); quantiles, count and sum over the"
        + " same turns" + SINCE_START, s -> s.io().count() == 0 ? null
            : new Distribution(s.io().runs(), s.io().count(), s.io().runSum()));
    b.append("# HELP lanes_tasks_total Tasks that ended, by outcome (completed, failed), and tasks"
        + " the pool refused (rejected)" + SINCE_START + "\n# TYPE lanes_tasks_total counter\n");
    for (PoolTable.Row r : rows) {
      PoolRecord.Snapshot s = r.s();
      b.append("lanes_tasks_total").append(tags(s, "outcome=\"completed\",rejected=\"false\""))
          .append(' ').append(s.ended() - s.failed()).append('\n');
      b.append("lanes_tasks_total").append(tags(s, "outcome=\"failed\",rejected=\"false\""))
          .append(' ').append(s.failed()).append('\n');
      b.append("lanes_tasks_total").append(tags(s, "outcome=\"rejected\",rejected=\"true\""))
          .append(' ').append(s.rejected()).append('\n');
    }
    b.append("# HELP lanes_requests_total Requests the pool's tasks served (Tomcat; one task may"
        + " serve several requests of a kept-alive connection)" + SINCE_START
        + "\n# TYPE lanes_requests_total counter\n");
    for (PoolTable.Row r : rows) {
      if (r.s().requests().count() > 0) {
        b.append("lanes_requests_total").append(tags(r.s(), null)).append(' ')
            .append(r.s().requests().count()).append('\n');
      }
    }
    gauge(b, rows, "lanes_queue_size", "Tasks waiting in the pool's queue: due, not started (now)",
        r -> r.queued());
    gauge(b, rows, "lanes_scheduled_tasks", "Tasks in a scheduled pool's schedule, not due yet (now)",
        r -> r.s().kind() == PoolKind.SCHEDULED ? r.scheduled() : -1);
    gauge(b, rows, "lanes_workers", "The pool's threads (now)", r -> r.threads());
    gauge(b, rows, "lanes_saturated", "1 while the pool is SATURATED or worse, else 0 (now)",
        r -> r.s().state() == PoolHealth.State.OK ? 0 : 1);
    b.append("# HELP lanes_saturated_time_seconds_total Total time the pool spent SATURATED or"
        + " worse (server saturation time)" + SINCE_START
        + "\n# TYPE lanes_saturated_time_seconds_total counter\n");
    for (PoolTable.Row r : rows) {
      b.append("lanes_saturated_time_seconds_total").append(tags(r.s(), null)).append(' ')
          .append(num(r.s().saturatedNanos() / 1e9)).append('\n');
    }
    return b.toString();
  }

  /** One population's distribution with its own count and sum (nanoseconds). */
  private record Distribution(Histogram h, long count, long sum) {}

  /** A summary per pool, and its {@code _max}; {@code of} returns null for a pool without it. */
  private static void timer(StringBuilder b, List<PoolTable.Row> rows, String name, String help,
      java.util.function.Function<PoolRecord.Snapshot, Distribution> of) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" summary\n");
    for (PoolTable.Row r : rows) {
      PoolRecord.Snapshot s = r.s();
      Distribution d = of.apply(s);
      if (d == null) {
        continue;
      }
      for (double q : new double[] {0.5, 0.99}) {
        b.append(name).append(tags(s, "quantile=\"" + q + "\"")).append(' ').append(num(
            d.h().getTotalCount() == 0 ? 0 : d.h().getValueAtPercentile(q * 100) / 1e9)).append('\n');
      }
      b.append(name).append("_count").append(tags(s, null)).append(' ').append(d.count()).append('\n');
      b.append(name).append("_sum").append(tags(s, null)).append(' ').append(num(d.sum() / 1e9)).append('\n');
    }
    b.append("# HELP ").append(name).append("_max The largest").append(SINCE_START).append('\n');
    b.append("# TYPE ").append(name).append("_max gauge\n");
    for (PoolTable.Row r : rows) {
      Distribution d = of.apply(r.s());
      if (d != null) {
        b.append(name).append("_max").append(tags(r.s(), null)).append(' ')
            .append(num(d.h().getTotalCount() == 0 ? 0 : d.h().getMaxValue() / 1e9)).append('\n');
      }
    }
  }

  private static void gauge(StringBuilder b, List<PoolTable.Row> rows, String name, String help,
      java.util.function.ToIntFunction<PoolTable.Row> value) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
    for (PoolTable.Row r : rows) {
      int v = value.applyAsInt(r);
      if (v >= 0) { // -1: not known for this pool (a collected one, or unreadable)
        b.append(name).append(tags(r.s(), null)).append(' ').append(v).append('\n');
      }
    }
  }

  private static String tags(PoolRecord.Snapshot s, String more) {
    return "{pool=\"" + escape(s.name()) + "\",kind=\"" + s.kind().name().toLowerCase(Locale.ROOT)
        + "\"" + (more == null ? "" : "," + more) + "}";
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static String num(double v) {
    return Double.toString(v);
  }

  @Override public void close() throws IOException {
    server.close();
  }
}
