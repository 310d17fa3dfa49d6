package dev.lanes.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.openjdk.jmh.annotations.Mode;

/**
 * Turns one {@code ./lanes bench} run's results into Markdown tables: each executor's score, its
 * error and its ratio to {@code tpe-lbq} (or {@code tpe-abq} where a table has no {@code tpe-lbq})
 * measured in the same JMH run with the same parameters.
 *
 * <p>Ratios: for throughput, {@code score / tpe-lbq score} (above 1 = faster than the baseline);
 * the range beside it is what the two error bars allow, {@code (s - e) / (b + e_b)} to {@code (s +
 * e) / (b - e_b)}. For handoff, {@code p50 / tpe-lbq p50} (above 1 = slower).
 */
final class BenchReport {

  private BenchReport() {}

  static String tables(List<BenchRun> runs, List<Row> rows) {
    StringBuilder out = new StringBuilder();
    for (BenchRun run : runs) {
      List<Row> mine = rows.stream().filter(r -> r.runId().equals(run.id())).toList();
      out.append("\n### ").append(run.id()).append("\n\n");
      if (mine.isEmpty()) {
        out.append("(no results: the run failed or was skipped; see the JMH output above)\n");
        continue;
      }
      if (run.agentArms()) {
        agentTables(out, mine);
        continue;
      }
      for (List<Row> group : groups(mine)) {
        Row first = group.get(0);
        out.append("`").append(first.benchmark()).append("`");
        if (!first.otherParams().isEmpty()) {
          out.append(" (").append(first.otherParams()).append(")");
        }
        out.append("\n\n");
        Optional<Row> base = baseline(group);
        switch (first.mode()) {
          case Throughput -> throughputTable(out, group, base);
          case SampleTime -> sampleTable(out, group, base);
          default -> plainTable(out, group);
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The group's baseline: {@code tpe-lbq}, or {@code tpe-abq} in a group without it (the
   * shared-latch producers sweep).
   */
  static Optional<Row> baseline(List<Row> group) {
    for (String name : List.of(ExecutorFactory.TPE_LBQ, ExecutorFactory.TPE_ABQ)) {
      Optional<Row> b = group.stream().filter(r -> r.executor().equals(name)).findFirst();
      if (b.isPresent()) {
        return b;
      }
    }
    return Optional.empty();
  }

  private static void throughputTable(StringBuilder out, List<Row> group, Optional<Row> base) {
    String unit = group.get(0).unit().equals("ops/s") ? "tasks/s" : group.get(0).unit();
    String b = base.map(Row::executor).orElse(ExecutorFactory.TPE_LBQ);
    out.append("| executor | score (").append(unit).append(") | ± error | ")
        .append("ratio to ").append(b).append(" | ratio range | CPU ns/task | CPU / ").append(b)
        .append(" CPU | round trip (ns) |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : group) {
      out.append("| ").append(r.executor()).append(" | ").append(big(r.score())).append(" | ")
          .append(big(r.error())).append(" | ");
      if (base.isPresent()) {
        Ratio q = Ratio.of(r, base.get());
        out.append(fmt2(q.point())).append(" | ").append(q.range());
      } else {
        out.append("– | –");
      }
      out.append(" | ").append(Double.isNaN(r.cpuPerTask()) ? "–" : fmt1(r.cpuPerTask()))
          .append(" | ").append(base.isPresent() && !Double.isNaN(r.cpuPerTask())
              ? fmt2(r.cpuPerTask() / base.get().cpuPerTask()) : "–");
      double roundTrip = r.lineRoundTrip();
      out.append(" | ").append(Double.isNaN(roundTrip) ? "–" : fmt1(roundTrip));
      out.append(" |\n");
    }
  }

  /**
   * An agent run: per executor, the bare and the instrumented JVMs' scores and CPU per task and
   * the ratio instrumented ÷ bare over all forks; then each fork's mean in run order and the
   * fast-mode forks' medians ({@link AgentArms#modes}).
   */
  static void agentTables(StringBuilder out, List<Row> rows) {
    Row first = rows.get(0);
    String unit = first.unit().equals("ops/s") ? "tasks/s" : first.unit();
    out.append("`").append(first.benchmark()).append("`");
    if (!first.otherParams().isEmpty()) {
      out.append(" (").append(first.otherParams()).append(")");
    }
    out.append(", instrumented = with `-javaagent:lanes-agent.jar`, bare = without; all forks\n\n");
    List<String> executors = rows.stream().map(Row::executor).distinct().toList();
    armTable(out, rows, executors, unit, Row.AGENT, "instrumented");
    if (rows.stream().anyMatch(r -> r.arm().equals(Row.SAMPLED))) {
      out.append("\nsampled = with `-javaagent:lanes-agent.jar=sample=N` (`--agent-sample N`);")
          .append(" the same bare forks; all forks\n\n");
      armTable(out, rows, executors, unit, Row.SAMPLED, "sampled");
    }
    out.append("\nEach fork's mean, in run order (").append(unit).append(" at CPU ns/task); fast =")
        .append(" CPU per task ≤ ").append(AgentArms.FAST_CPU_FACTOR)
        .append("× the arm's lowest fork\n\n")
        .append("| executor | JVM | forks | fast | fast median | fast median CPU ns/task |")
        .append(" fast medians instrumented / bare (tasks/s, CPU) |\n")
        .append("|---|---|---|---:|---:|---:|---:|\n");
    for (String e : executors) {
      Optional<Row> bare = arm(rows, e, Row.BARE);
      for (String a : List.of(Row.BARE, Row.AGENT, Row.SAMPLED)) {
        Optional<Row> r = arm(rows, e, a);
        if (r.isEmpty()) {
          continue;
        }
        AgentArms.Modes m = AgentArms.modes(r.get().forks());
        StringBuilder forks = new StringBuilder();
        for (Row.Fork f : r.get().forks()) {
          forks.append(forks.isEmpty() ? "" : ", ").append(big(f.score()))
              .append(Double.isNaN(f.cpuPerTask()) ? "" : " at " + fmt1(f.cpuPerTask()));
        }
        out.append("| ").append(e).append(" | ").append(a.equals(Row.AGENT) ? "instrumented"
                : a.equals(Row.SAMPLED) ? "sampled" : "bare")
            .append(" | ").append(forks).append(" | ").append(m.fast()).append(" of ")
            .append(m.all()).append(" | ").append(big(m.medianScore())).append(" | ")
            .append(fmt1(m.medianCpu())).append(" | ");
        if (!a.equals(Row.BARE) && bare.isPresent()) {
          AgentArms.Modes b = AgentArms.modes(bare.get().forks());
          out.append(fmt2(m.medianScore() / b.medianScore())).append(", ")
              .append(fmt2(m.medianCpu() / b.medianCpu()));
        }
        out.append(" |\n");
      }
    }
  }

  /** Per executor: the bare JVMs' figures, arm {@code arm}'s, and their ratios. */
  private static void armTable(StringBuilder out, List<Row> rows, List<String> executors,
      String unit, String arm, String label) {
    out.append("| executor | bare (").append(unit).append(") | ").append(label).append(" | ")
        .append(label).append(" / bare |").append(" ratio range | CPU ns/task bare | ")
        .append(label).append(" | CPU ").append(label).append(" / bare |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String e : executors) {
      Optional<Row> bare = arm(rows, e, Row.BARE);
      Optional<Row> agent = arm(rows, e, arm);
      out.append("| ").append(e).append(" | ")
          .append(bare.map(r -> big(r.score()) + " ± " + big(r.error())).orElse("–")).append(" | ")
          .append(agent.map(r -> big(r.score()) + " ± " + big(r.error())).orElse("–")).append(" | ");
      if (bare.isPresent() && agent.isPresent()) {
        Ratio q = Ratio.of(agent.get(), bare.get());
        out.append(fmt2(q.point())).append(" | ").append(q.range());
      } else {
        out.append("– | –");
      }
      double cb = bare.map(Row::cpuPerTask).orElse(Double.NaN);
      double ca = agent.map(Row::cpuPerTask).orElse(Double.NaN);
      out.append(" | ").append(Double.isNaN(cb) ? "–" : fmt1(cb)).append(" | ")
          .append(Double.isNaN(ca) ? "–" : fmt1(ca)).append(" | ")
          .append(Double.isNaN(cb) || Double.isNaN(ca) ? "–" : fmt2(ca / cb)).append(" |\n");
    }
  }

  static Optional<Row> arm(List<Row> rows, String executor, String arm) {
    return rows.stream().filter(r -> r.executor().equals(executor) && r.arm().equals(arm))
        .findFirst();
  }

  private static void sampleTable(StringBuilder out, List<Row> group, Optional<Row> base) {
    String u = group.get(0).unit().replace("/op", "");
    out.append("| executor | p50 (").append(u).append(") | p90 | p99 | mean ± error | ")
        .append("p50 / tpe-lbq p50 |\n|---|---:|---:|---:|---:|---:|\n");
    for (Row r : group) {
      out.append("| ").append(r.executor()).append(" | ").append(fmt1(r.p50())).append(" | ")
          .append(fmt1(r.p90())).append(" | ").append(fmt1(r.p99())).append(" | ")
          .append(fmt1(r.score())).append(" ± ").append(fmt1(r.error())).append(" | ")
          .append(base.map(b -> fmt2(r.p50() / b.p50())).orElse("–")).append(" |\n");
    }
  }

  private static void plainTable(StringBuilder out, List<Row> group) {
    boolean memory = group.get(0).secondary().containsKey("bytesPerQueuedTask");
    if (memory) {
      out.append("| executor | bytes per queued task | submit time (").append(group.get(0).unit())
          .append(") |\n|---|---:|---:|\n");
      for (Row r : group) {
        out.append("| ").append(r.executor()).append(" | ")
            .append(fmt1(r.secondary().get("bytesPerQueuedTask"))).append(" | ")
            .append(fmt1(r.score())).append(" |\n");
      }
      return;
    }
    out.append("| executor | score (").append(group.get(0).unit())
        .append(") | ± error |\n|---|---:|---:|\n");
    for (Row r : group) {
      out.append("| ").append(r.executor().isEmpty() ? "–" : r.executor()).append(" | ")
          .append(fmt2(r.score())).append(" | ").append(fmt2(r.error())).append(" |\n");
    }
  }

  /** Rows grouped by benchmark and non-executor parameters, in first-seen order. */
  static List<List<Row>> groups(List<Row> rows) {
    Map<String, List<Row>> g = new LinkedHashMap<>();
    for (Row r : rows) {
      g.computeIfAbsent(r.groupKey(), k -> new ArrayList<>()).add(r);
    }
    return new ArrayList<>(g.values());
  }

  /** A throughput ratio with the range its two error bars allow. */
  record Ratio(double point, double low, double high) {
    /** {@code high} is infinite when the baseline's error bar reaches zero. */
    static Ratio of(Row r, Row base) {
      double lowDen = base.score() + base.error();
      double highDen = base.score() - base.error();
      return new Ratio(
          r.score() / base.score(),
          Math.max(0, r.score() - r.error()) / lowDen,
          highDen > 0 ? (r.score() + r.error()) / highDen : Double.POSITIVE_INFINITY);
    }

    String range() {
      return fmt2(low) + "–" + (Double.isInfinite(high) ? "∞" : fmt2(high));
    }
  }

  static String big(double v) {
    double a = Math.abs(v);
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (a >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M", v / 1e6);
    }
    if (a >= 1e3) {
      return String.format(Locale.ROOT, "%.1f k", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String fmt1(Double v) {
    return v == null ? "–" : String.format(Locale.ROOT, "%.1f", v);
  }

  static String fmt2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static boolean isThroughput(Row r) {
    return r.mode() == Mode.Throughput;
  }
}
