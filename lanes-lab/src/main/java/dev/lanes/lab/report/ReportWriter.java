package dev.lanes.lab.report;

import dev.lanes.lab.ExperimentResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
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

  /** Lists the files the last run wrote, so the next run removes exactly those and nothing else. */
  static final String MANIFEST = ".lanes-lab-files";

  /** The only names the lab writes (and so the only names it will ever remove). */
  static final Pattern OURS = Pattern.compile("index\\.html|summary\\.json|E[0-9]+(-[a-z0-9-]+)?\\.(csv|png)");

  public void write(boolean quick, long seed, int cores, long elapsedMs, List<ExperimentResult> results)
      throws IOException {
    Files.createDirectories(dir);
    removePreviousRun();
    List<String> written = new ArrayList<>();
    for (ExperimentResult r : results) {
      for (ExperimentResult.Figure f : r.charts()) {
        written(written, f.file() + ".png");
        BitmapEncoder.saveBitmapWithDPI(f.chart(), dir.resolve(f.file()).toString(), BitmapEncoder.BitmapFormat.PNG,
            Charts.DPI);
      }
      Csv.writeFigures(dir.resolve(written(written, r.id() + ".csv")), r.figures());
      if (r.usesLanes()) {
        Csv.writeTasks(dir.resolve(written(written, r.id() + "-tasks.csv")), r.taskRecords());
      }
    }
    Files.writeString(dir.resolve(written(written, "summary.json")), Json.write(summary(quick, seed, cores, results)));
    Files.writeString(dir.resolve(written(written, "index.html")), Html.page(quick, seed, cores, elapsedMs, results));
    Files.write(dir.resolve(MANIFEST), written);
  }

  private static String written(List<String> written, String name) {
    written.add(name);
    return name;
  }

  /**
   * Removes the files the previous run listed in its manifest, so a run with {@code --only} does
   * not leave an earlier run's charts and CSVs beside its report. Only plain files directly in the
   * folder whose names the lab writes are removed; a folder without a manifest (a user's, or a
   * report from before the manifest) keeps all its files.
   */
  void removePreviousRun() throws IOException {
    Path manifest = dir.resolve(MANIFEST);
    if (!Files.isRegularFile(manifest)) {
      return;
    }
    for (String name : Files.readAllLines(manifest)) {
      if (OURS.matcher(name).matches()) {
        Path f = dir.resolve(name);
        if (Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(f);
        }
      }
    }
    Files.delete(manifest);
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
      e.put("error", r.error());
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
      return Format.ms(d);
    }
    if (v instanceof Long l) {
      return Format.count(l);
    }
    return String.valueOf(v);
  }
}
