package dev.lanes.agent;

import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.json.JsonFactory;

/**
 * The figures of the live page that lanes-serve draws ({@code live.html}), for the agent's pools:
 * {@code /series.json}, one sample a second of the last {@value #WINDOW_SECONDS} s (per pool: tasks
 * queued (due, not started), tasks scheduled for later, the oldest queued task's age, health; and
 * the queue wait and run time p50/p99 of the tasks that ended in that second), and {@code
 * /stats.json}, each pool's figures since start (its tasks; a Tomcat pool's requests, an event
 * loop's IO turns, each apart). The
 * page's "lanes" and "endpoints" are both the pools here: a pool is its own stage.
 *
 * <p><b>Concurrency design.</b> Only the watchdog thread samples and answers requests (it serves
 * the page between its ticks), so the state needs no lock; a sample is kept as a finished JSON
 * string.
 */
final class LiveSeries {
  static final int WINDOW_SECONDS = 120;
  static final long INTERVAL_NANOS = 1_000_000_000L;
  /** As on lanes-serve's page: a pool turns red once it has not been OK for this long. */
  static final long RED_AFTER_MILLIS = 5_000;
  private static final JsonFactory JSON = new JsonFactory();

  private final ArrayDeque<String> samples = new ArrayDeque<>();
  private final Map<PoolRecord, Histogram[]> previous = new IdentityHashMap<>();
  /** Per pool, its ended count at the last sample (the interval's count is exact, sampled or not). */
  private final Map<PoolRecord, Long> previousEnded = new IdentityHashMap<>();
  private final Map<PoolRecord, Long> unhealthySince = new HashMap<>();
  private final long startNanos;
  private long lastSample;

  LiveSeries(long now) {
    this.startNanos = now;
    this.lastSample = now;
  }

  /** Takes a sample if a second has passed since the last one; the watchdog, each tick. */
  void tick(long now, List<Map.Entry<Object, PoolRecord>> live, Watchdog.OldestQueued oldest) {
    if (now - lastSample < INTERVAL_NANOS) {
      return;
    }
    lastSample = now;
    StringWriter out = new StringWriter(1_024);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberProperty("t", (now - startNanos) / 1e9);
      g.writeObjectPropertyStart("lanes");
      for (Map.Entry<Object, PoolRecord> e : live) {
        PoolRecord r = e.getValue();
        long unhealthy = unhealthyMillis(r, now);
        g.writeObjectPropertyStart(r.name());
        g.writeNumberProperty("queued", r.view.queued(e.getKey()));
        g.writeNumberProperty("scheduled", r.view.scheduled(e.getKey()));
        g.writeNumberProperty("oldestQueuedMs", oldest.nanos(r, e.getKey(), now) / 1e6);
        g.writeNumberProperty("running", r.view.active(e.getKey()));
        g.writeStringProperty("health", r.health.state().name());
        g.writeNumberProperty("unhealthyMs", unhealthy);
        g.writeBooleanProperty("red", unhealthy >= RED_AFTER_MILLIS);
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeObjectPropertyStart("endpoints");
      for (Map.Entry<Object, PoolRecord> e : live) {
        PoolRecord r = e.getValue();
        PoolRecord.Snapshot s = r.snapshot(now);
        Histogram[] before = previous.put(r, new Histogram[] {s.waits(), s.runs()});
        Histogram waits = since(s.waits(), before == null ? null : before[0]);
        Histogram runs = since(s.runs(), before == null ? null : before[1]);
        g.writeObjectPropertyStart(r.name());
        g.writeStringProperty("lane", r.name());
        g.writeNumberProperty("waiting", r.view.queued(e.getKey()));
        g.writeNumberProperty("scheduled", r.view.scheduled(e.getKey()));
        g.writeNumberProperty("oldestWaitingMs", oldest.nanos(r, e.getKey(), now) / 1e6);
        Long endedBefore = previousEnded.put(r, s.ended());
        g.writeNumberProperty("ended", s.ended() - (endedBefore == null ? 0 : endedBefore));
        percentile(g, "waitP50", waits, 50);
        percentile(g, "waitP99", waits, 99);
        percentile(g, "runP50", runs, 50);
        percentile(g, "runP99", runs, 99);
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    samples.addLast(out.toString());
    while (samples.size() > WINDOW_SECONDS) {
      samples.removeFirst();
    }
    previous.keySet().retainAll(live.stream().map(Map.Entry::getValue).toList());
    previousEnded.keySet().retainAll(previous.keySet());
  }

  /** {@code /series.json}: the window's samples, oldest first. */
  String seriesJson() {
    return "{\"windowSeconds\":" + WINDOW_SECONDS + ",\"intervalMs\":" + INTERVAL_NANOS / 1_000_000
        + ",\"redAfterMs\":" + RED_AFTER_MILLIS + ",\"samples\":[" + String.join(",", samples) + "]}";
  }

  /** {@code /stats.json}: every pool's figures since start, in the page's shape. */
  static String statsJson(List<PoolTable.Row> rows) {
    StringWriter out = new StringWriter(4_096);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringProperty("server", "lanes-agent");
      g.writeStringProperty("mode", "agent");
      g.writeNumberProperty("endpointWindowMs", 0);
      g.writeArrayPropertyStart("lanes");
      for (PoolTable.Row r : rows) {
        PoolRecord.Snapshot s = r.s();
        g.writeStartObject();
        g.writeStringProperty("name", s.name());
        g.writeStringProperty("kind", s.kind().label);
        g.writeStringProperty("health", s.state().name());
        g.writeNumberProperty("concurrency", Math.max(0, r.maxThreads()));
        g.writeNumberProperty("queued", Math.max(0, r.queued()));
        g.writeNumberProperty("scheduled", Math.max(0, r.scheduled()));
        g.writeNumberProperty("running", Math.max(0, r.active()));
        g.writeNumberProperty("workers", Math.max(0, r.threads()));
        g.writeNumberProperty("completed", s.ended() - s.failed());
        g.writeNumberProperty("failed", s.failed());
        g.writeNumberProperty("rejected", s.rejected());
        g.writeNumberProperty("saturatedMs", s.saturatedNanos() / 1e6);
        distribution(g, "wait", s.waits());
        distribution(g, "run", s.runs());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayPropertyStart("endpoints");
      for (PoolTable.Row r : rows) {
        PoolRecord.Snapshot s = r.s();
        g.writeStartObject();
        g.writeStringProperty("label", s.name());
        g.writeStringProperty("lane", s.name());
        g.writeNumberProperty("tasks", s.ended());
        g.writeNumberProperty("failed", s.failed());
        g.writeNumberProperty("rejected", s.rejected());
        distribution(g, "wait", s.waits());
        distribution(g, "run", s.runs());
        requestsAndIoTurns(g, s);
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toString();
  }

  private static Histogram since(Histogram now, Histogram before) {
    Histogram interval = now.copy();
    if (before != null) {
      interval.subtract(before);
    }
    return interval;
  }

  private static void percentile(JsonGenerator g, String name, Histogram h, double p) {
    if (h.getTotalCount() == 0) {
      g.writeNullProperty(name);
    } else {
      g.writeNumberProperty(name, h.getValueAtPercentile(p) / 1e6);
    }
  }

  private static void distribution(JsonGenerator g, String name, Histogram h) {
    boolean any = h.getTotalCount() > 0;
    g.writeObjectPropertyStart(name);
    g.writeNumberProperty("count", h.getTotalCount());
    g.writeNumberProperty("p50", any ? h.getValueAtPercentile(50) / 1e6 : 0);
    g.writeNumberProperty("p99", any ? h.getValueAtPercentile(99) / 1e6 : 0);
    g.writeNumberProperty("max", any ? h.getMaxValue() / 1e6 : 0);
    g.writeNumberProperty("mean", any ? h.getMean() / 1e6 : 0);
    g.writeEndObject();
  }

  /**
   * A Tomcat pool's requests ({@code requests}: count, tasks that served them, {@code wait} per
   * request) and an event loop's IO turns ({@code ioTurns}), where the pool has any: populations
   * apart from its tasks, each with its own count and distribution.
   */
  private static void requestsAndIoTurns(JsonGenerator g, PoolRecord.Snapshot s) {
    PoolRecord.Requests q = s.requests();
    if (q.count() > 0) {
      g.writeObjectPropertyStart("requests");
      g.writeNumberProperty("count", q.count());
      g.writeNumberProperty("tasks", q.tasks());
      distribution(g, "wait", q.waits());
      g.writeEndObject();
    }
    if (s.io().count() > 0) {
      distribution(g, "ioTurns", s.io().runs());
    }
  }

  private long unhealthyMillis(PoolRecord r, long now) {
    if (r.health.state() == PoolHealth.State.OK) {
      unhealthySince.remove(r);
      return 0;
    }
    return (now - unhealthySince.computeIfAbsent(r, k -> now)) / 1_000_000;
  }
}
