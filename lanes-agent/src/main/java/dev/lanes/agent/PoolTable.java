package dev.lanes.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The one-screen table of every pool the agent saw (and, as tab-separated values, the same figures
 * for scripts and the tests). Times are in milliseconds; a dash means no task has given the figure.
 * The pool column is as wide as the longest name: a name is never cut.
 * Three populations, each with its own count, percentiles and mean: tasks (what the pool queues),
 * requests (Tomcat's: a task may serve several) and IO turns (an event loop's, no task). Counts and
 * distributions are since the agent first saw the pool; threads, queued and state are now. In
 * sampled mode a thread pool's times are over its timed tasks, said under the table ({@link
 * #sampledNote}) and in the TSV's {@code timed_tasks} and {@code timed_one_in}.
 */
final class PoolTable {
  private PoolTable() {}

  /**
   * One row's figures; -1 where the pool is gone or cannot be read. {@code queued}: due and not
   * started; {@code scheduled}: in a scheduled pool's schedule, not due yet.
   */
  record Row(PoolRecord.Snapshot s, int threads, int maxThreads, int queued, int active,
      int scheduled) {}

  static List<Row> rows(Pools pools, long now) {
    Map<PoolRecord, Object> live = new java.util.IdentityHashMap<>();
    for (Map.Entry<Object, PoolRecord> e : pools.livePools()) {
      live.put(e.getValue(), e.getKey());
    }
    List<Row> rows = new ArrayList<>();
    for (PoolRecord r : pools.all()) {
      PoolRecord.Snapshot s = r.snapshot(now);
      Object pool = live.get(r);
      int threads = -1;
      int max = -1;
      int queued = -1;
      int active = -1;
      int scheduled = -1;
      if (pool != null && r.view != PoolView.NONE) {
        threads = r.view.threads(pool);
        max = r.view.maxThreads(pool);
        queued = r.view.queued(pool);
        active = r.view.active(pool);
        scheduled = r.view.scheduled(pool);
      }
      rows.add(new Row(s, threads, max, queued, active, scheduled));
    }
    return rows;
  }

  static final String[] COLUMNS = {"pool", "kind", "threads", "queued", "tasks", "failed",
      "rejected", "wait_p50_ms", "wait_p99_ms", "wait_max_ms", "run_p50_ms", "run_p99_ms",
      "run_max_ms", "cpu_per_task_ms", "unknown_wait", "state", "saturated_s", "wait_mean_ms",
      "run_mean_ms", "io_turns", "requests", "request_tasks", "request_wait_mean_ms",
      "request_wait_p50_ms", "request_wait_p99_ms", "request_wait_max_ms", "io_turn_mean_ms",
      "io_turn_p50_ms", "io_turn_p99_ms", "io_turn_max_ms", "scheduled", "timed_tasks",
      "timed_one_in"};

  /** The text columns of requests and IO turns, after the tasks' own. */
  private static final String MORE = " %11s %13s %9s %11s %9s %9s%n";

  /** What the text table's figures are, and over which window. */
  static final String FOOTER = String.join("\n",
      "queued: due and not started; scheduled: in a scheduled pool's schedule, not due yet.",
      "times in ms. tasks: what the pool queued and ran; task wait = queued (a scheduled task:"
          + " due) until started, run = the task's run() alone; cpu/task sampled on at most 1 task a millisecond per thread.",
      "requests (Tomcat): the requests its tasks served (one task may serve several of a kept-alive"
          + " connection); req wait = wait per request: the first request of a task waited the"
          + " task's queue wait, a later one (read by the worker already running) none.",
      "io turns (event loops): the loop handling its ready channels (its handlers run then),"
          + " timed apart from its tasks.",
      "window: counts, percentiles, means and max since the agent first saw the pool; threads,"
          + " queued and state now; saturated: total time.", "");

  static String text(List<Row> rows, String header) {
    StringBuilder b = new StringBuilder(header).append('\n');
    int nameWidth = "pool".length();
    for (Row r : rows) {
      nameWidth = Math.max(nameWidth, r.s.name().length());
    }
    String fmt = "%-" + nameWidth + "s %-24s %9s %7s %9s %11s %7s %8s %13s %9s %9s %9s %9s %9s %8s"
        + " %-10s %9s";
    b.append(String.format(Locale.ROOT, fmt, "pool", "kind", "threads", "queued", "scheduled",
        "tasks", "failed", "rejected", "task wait p50", "p99", "max", "run p50", "p99", "max",
        "cpu/task", "state", "saturated"));
    b.append(String.format(Locale.ROOT, MORE, "requests", "req wait mean", "p99", "io turns", "io p99",
        "max"));
    for (Row r : rows) {
      PoolRecord.Snapshot s = r.s;
      b.append(String.format(Locale.ROOT, fmt, s.name(), clip(s.kind().label, 24),
          r.threads < 0 ? "-" : r.maxThreads > 0 && r.maxThreads < 1_000_000
              ? r.threads + "/" + r.maxThreads : String.valueOf(r.threads),
          r.queued < 0 ? "-" : String.valueOf(r.queued),
          r.scheduled < 0 ? "-" : String.valueOf(r.scheduled),
          String.format(Locale.ROOT, "%,d", s.ended()),
          String.valueOf(s.failed()), String.valueOf(s.rejected()),
          ms(s.waits(), 50), ms(s.waits(), 99), max(s.waits()), ms(s.runs(), 50), ms(s.runs(), 99),
          max(s.runs()), s.cpuTasks() == 0 ? "-" : fmtMs((double) s.cpuNanos() / s.cpuTasks()),
          s.state(), String.format(Locale.ROOT, "%.1f s", s.saturatedNanos() / 1e9)));
      PoolRecord.Requests q = s.requests();
      PoolRecord.IoTurns io = s.io();
      b.append(String.format(Locale.ROOT, MORE,
          q.count() == 0 ? "-" : String.format(Locale.ROOT, "%,d", q.count()),
          q.waited() == 0 ? "-" : fmtMs((double) q.waitSum() / q.waited()), ms(q.waits(), 99),
          io.count() == 0 ? "-" : String.format(Locale.ROOT, "%,d", io.count()), ms(io.runs(), 99),
          max(io.runs())));
    }
    b.append(FOOTER);
    int n = rows.stream().mapToInt(r -> r.s.timedOneIn()).max().orElse(1);
    if (n > 1) {
      b.append(sampledNote(n)).append('\n');
    }
    return b.toString();
  }

  /** The footer's line in sampled mode. */
  static String sampledNote(int n) {
    return "sampled: timed 1 task in " + n + " of each thread pool (option sample=" + n + "): task"
        + " wait, run, cpu/task and req wait are over the timed tasks; tasks, failed, rejected and"
        + " requests count every one.";
  }

  static String tsv(List<Row> rows) {
    StringBuilder b = new StringBuilder(String.join("\t", COLUMNS)).append('\n');
    for (Row r : rows) {
      PoolRecord.Snapshot s = r.s;
      b.append(String.join("\t", s.name(), s.kind().name(), String.valueOf(r.threads),
          String.valueOf(r.queued), String.valueOf(s.ended()), String.valueOf(s.failed()),
          String.valueOf(s.rejected()), raw(s.waits(), 50), raw(s.waits(), 99), rawMax(s.waits()),
          raw(s.runs(), 50), raw(s.runs(), 99), rawMax(s.runs()),
          s.cpuTasks() == 0 ? "" : String.valueOf((double) s.cpuNanos() / s.cpuTasks() / 1e6),
          String.valueOf(s.timed() - s.waitedTasks()), s.state().name(),
          String.valueOf(s.saturatedNanos() / 1e9),
          s.waitedTasks() == 0 ? "" : String.valueOf((double) s.waitSum() / s.waitedTasks() / 1e6),
          s.timed() == 0 ? "" : String.valueOf((double) s.runSum() / s.timed() / 1e6),
          String.valueOf(s.io().count()), String.valueOf(s.requests().count()),
          String.valueOf(s.requests().tasks()),
          mean(s.requests().waitSum(), s.requests().waited()), raw(s.requests().waits(), 50),
          raw(s.requests().waits(), 99), rawMax(s.requests().waits()),
          mean(s.io().runSum(), s.io().count()), raw(s.io().runs(), 50), raw(s.io().runs(), 99),
          rawMax(s.io().runs()), String.valueOf(r.scheduled), String.valueOf(s.timed()),
          String.valueOf(s.timedOneIn()))).append('\n');
    }
    return b.toString();
  }

  /** A mean in ms for the TSV; empty when nothing gave it. */
  private static String mean(long sumNanos, long count) {
    return count == 0 ? "" : String.valueOf((double) sumNanos / count / 1e6);
  }

  private static String clip(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 1) + "…";
  }

  private static String ms(Histogram h, double p) {
    return h.getTotalCount() == 0 ? "-" : fmtMs(h.getValueAtPercentile(p));
  }

  private static String max(Histogram h) {
    return h.getTotalCount() == 0 ? "-" : fmtMs(h.getMaxValue());
  }

  private static String raw(Histogram h, double p) {
    return h.getTotalCount() == 0 ? "" : String.valueOf(h.getValueAtPercentile(p) / 1e6);
  }

  private static String rawMax(Histogram h) {
    return h.getTotalCount() == 0 ? "" : String.valueOf(h.getMaxValue() / 1e6);
  }

  private static String fmtMs(double nanos) {
    double ms = nanos / 1e6;
    return ms >= 100 ? String.format(Locale.ROOT, "%.0f", ms)
        : ms >= 1 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%.3f", ms);
  }
}
