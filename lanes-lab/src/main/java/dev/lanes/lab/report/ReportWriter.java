package dev.lanes.lab.report;

import dev.lanes.lab.ExperimentResult;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;

/**
 * Writes the report folder: {@code index.html} (self-contained apart from the PNG charts beside
 * it; no network), {@code summary.json}, {@code <id>.csv} per experiment and {@code
 * <id>-tasks.csv} for each experiment that ran lanes.
 */
public final class ReportWriter {

  private final Path dir;

  public ReportWriter(Path dir) {
    this.dir = dir;
  }

  public void write(boolean quick, long seed, int cores, long elapsedMs, List<ExperimentResult> results)
      throws IOException {
    Files.createDirectories(dir);
    for (ExperimentResult r : results) {
      for (ExperimentResult.Figure f : r.charts()) {
        try (OutputStream out = Files.newOutputStream(dir.resolve(f.file() + ".png"))) {
          BitmapEncoder.saveBitmap(f.chart(), out, BitmapEncoder.BitmapFormat.PNG);
        }
      }
      Csv.writeFigures(dir.resolve(r.id() + ".csv"), r.figures());
      if (r.usesLanes()) {
        Csv.writeTasks(dir.resolve(r.id() + "-tasks.csv"), r.taskRecords());
      }
    }
    Files.writeString(dir.resolve("summary.json"), Json.write(summary(quick, seed, cores, results)));
    Files.writeString(dir.resolve("index.html"), Html.page(quick, seed, cores, elapsedMs, results));
  }

  static Map<String, Object> summary(boolean quick, long seed, int cores, List<ExperimentResult> results) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("quick", quick);
    root.put("jdk", Runtime.version().toString() + " (" + System.getProperty("java.vendor") + ")");
    root.put("cores", cores);
    root.put("seed", seed);
    root.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    root.put("load_average_1m", loadAverage());
    List<Object> list = new ArrayList<>();
    for (ExperimentResult r : results) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("id", r.id());
      e.put("question", r.question());
      e.put("holds", r.holds());
      e.put("verdict", r.verdict());
      e.put("figures", r.figures());
      list.add(e);
    }
    root.put("experiments", list);
    return root;
  }

  /**
   * The system's 1-minute load average at the end of the run, or null where the JVM cannot read
   * it: above the core count, other processes competed with the lab for the CPU.
   */
  static Double loadAverage() {
    double l = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return l < 0 ? null : l;
  }

  static String fmt(Object v) {
    if (v instanceof Double d) {
      return Math.abs(d) >= 100 ? String.format(Locale.ROOT, "%,.0f", d)
          : String.format(Locale.ROOT, "%.2f", d);
    }
    if (v instanceof Long l) {
      return String.format(Locale.ROOT, "%,d", l);
    }
    return String.valueOf(v);
  }
}
