package dev.lanes.serve;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a load run saw: per endpoint, the client's latency and status counts, beside the server's
 * queue-wait and run-time figures of the same stage labels (read from {@code /stats.json} after
 * the run), and a verdict computed from those figures.
 */
record LoadResult(String scenario, String url, String serverMode, String steps, double seconds,
    List<Endpoint> endpoints, List<String> notes) {

  LoadResult {
    endpoints = List.copyOf(endpoints);
    notes = List.copyOf(notes);
  }

  /** Latency summary in milliseconds. */
  record Summary(long count, double p50, double p99, double max) {
    static final Summary EMPTY = new Summary(0, 0, 0, 0);

    /** Exact percentiles (nearest rank) of {@code nanos}, which it sorts. */
    static Summary ofNanos(long[] nanos) {
      if (nanos.length == 0) {
        return EMPTY;
      }
      java.util.Arrays.sort(nanos);
      return new Summary(nanos.length, rank(nanos, 0.50) / 1e6, rank(nanos, 0.99) / 1e6, nanos[nanos.length - 1] / 1e6);
    }

    private static long rank(long[] sorted, double q) {
      int i = (int) Math.ceil(q * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
  }

  /**
   * What the server's own request timer (Spring Boot Actuator's {@code http.server.requests}) said
   * about the same endpoint during the run: how many requests it timed and their mean (both the
   * difference between readings before and after the run), and its max in ms (Micrometer's max
   * over its recent window, two minutes by default, so it may include an earlier run's requests).
   */
  record Actuator(long count, double meanMs, double maxMs) {}

  /** The server's figures for one stage label. */
  record Stage(String label, String lane, long tasks, long rejected, Summary queueWait, Summary runTime) {}

  /** One endpoint's client and server figures. */
  record Endpoint(String path, int sent, int ok, int refused, int otherStatus, int errors, int unfinished,
      Summary client, Actuator actuator, List<Stage> stages) {

    Endpoint {
      stages = List.copyOf(stages);
    }

    double waitP50Sum() {
      return stages.stream().mapToDouble(s -> s.queueWait().p50()).sum();
    }

    double runP50Sum() {
      return stages.stream().mapToDouble(s -> s.runTime().p50()).sum();
    }

    /** A one-line verdict computed from the figures, or why there is none. */
    String verdict() {
      if (client.count() == 0) {
        return path + ": no answered requests, no verdict";
      }
      if (stages.isEmpty() || stages.stream().allMatch(s -> s.tasks() == 0)) {
        return path + ": the server reported no figures for it, no verdict";
      }
      double c = client.p50();
      double w = waitP50Sum();
      double r = runP50Sum();
      String figures = String.format(Locale.ROOT,
          "client p50 %s ms; server run p50 %s ms; queue wait p50 %s ms", ms(c), ms(r), ms(w));
      if (actuator != null && actuator.count() > 0) {
        figures += String.format(Locale.ROOT, "; Actuator's http.server.requests mean %s ms, max %s ms",
            ms(actuator.meanMs()), ms(actuator.maxMs()));
      }
      double share = c > 0 ? w / c : 0;
      if (share >= 0.5 && c >= 2 * r) {
        return String.format(Locale.ROOT,
            "%s: %s -> queue wait explains %.0f %% of the client's p50; a run-time metric alone"
                + " would call this endpoint %s", path, figures, 100 * share, c >= 10 * r ? "fast" : "faster than it is");
      }
      if (share <= 0.1) {
        return String.format(Locale.ROOT,
            "%s: %s -> queue wait is %.0f %% of the client's p50: requests started about when they arrived",
            path, figures, 100 * share);
      }
      return String.format(Locale.ROOT,
          "%s: %s -> queue wait is %.0f %% of the client's p50", path, figures, 100 * share);
    }
  }

  Endpoint endpoint(String path) {
    return endpoints.stream().filter(e -> e.path().equals(path)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no endpoint " + path + " in this run"));
  }

  String toText() {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "lanes load: %s against %s (server mode: %s), %.1f s%n",
        scenario, url, serverMode, seconds));
    b.append("  ").append(steps).append(String.format(Locale.ROOT, "%n%n"));
    // The server's own timer, when it has one (Spring Boot's Actuator): beside the client's latency.
    boolean actuator = endpoints.stream().anyMatch(e -> e.actuator() != null);
    b.append(String.format(Locale.ROOT,
        "%-8s %6s %6s %5s %5s %5s | %-25s%s | %-9s %-7s %6s | %-23s | %-23s%n",
        "endpoint", "sent", "ok", "503", "other", "error", "client ms  p50 / p99 / max",
        actuator ? String.format(Locale.ROOT, " | %-24s", "actuator ms  mean / max") : "",
        "stage", "lane", "tasks", "queue wait p50/p99/max", "run time p50/p99/max"));
    for (Endpoint e : endpoints) {
      String head = String.format(Locale.ROOT, "%-8s %6d %6d %5d %5d %5d | %-25s",
          e.path(), e.sent(), e.ok(), e.refused(), e.otherStatus(), e.errors() + e.unfinished(), triple(e.client()));
      if (actuator) {
        Actuator a = e.actuator();
        head += String.format(Locale.ROOT, " | %-24s",
            a == null || a.count() == 0 ? "-" : ms(a.meanMs()) + " / " + ms(a.maxMs()));
      }
      if (e.stages().isEmpty()) {
        b.append(head).append(String.format(Locale.ROOT, " | (no server figures)%n"));
      }
      for (int i = 0; i < e.stages().size(); i++) {
        Stage s = e.stages().get(i);
        b.append(i == 0 ? head : " ".repeat(head.length()));
        b.append(String.format(Locale.ROOT, " | %-9s %-7s %6d | %-23s | %-23s%n",
            s.label(), s.lane(), s.tasks(), triple(s.queueWait()), triple(s.runTime())));
      }
    }
    b.append(String.format(Locale.ROOT, "%n"));
    for (Endpoint e : endpoints) {
      b.append(e.verdict()).append(String.format(Locale.ROOT, "%n"));
    }
    for (String n : notes) {
      b.append("note: ").append(n).append(String.format(Locale.ROOT, "%n"));
    }
    return b.toString();
  }

  private static String triple(Summary s) {
    if (s.count() == 0) {
      return "-";
    }
    return ms(s.p50()) + " / " + ms(s.p99()) + " / " + ms(s.max());
  }

  static String ms(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  static List<Stage> stagesOf(String path, List<Stage> all) {
    String name = path.startsWith("/") ? path.substring(1) : path;
    List<Stage> out = new ArrayList<>();
    for (Stage s : all) {
      if (s.label().equals(name) || s.label().startsWith(name + ".")) {
        out.add(s);
      }
    }
    return out;
  }
}
