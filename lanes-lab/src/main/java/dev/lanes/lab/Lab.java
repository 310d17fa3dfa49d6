package dev.lanes.lab;

import dev.lanes.lab.report.Format;
import dev.lanes.lab.report.ReportWriter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the chosen experiments one after another on the calling thread, with {@link Progress} on
 * stderr, then writes the report and prints a summary table. An experiment that throws is reported
 * as failed to run, with its cause (not as a claim that does not hold), and the others still run.
 */
final class Lab {

  private final boolean quick;
  private final long seed;
  private final Path out;
  private final PrintStream stdout;
  private final PrintStream stderr;
  private final int columns;

  Lab(boolean quick, long seed, Path out, PrintStream stdout, PrintStream stderr, int columns) {
    this.columns = columns;
    this.quick = quick;
    this.seed = seed;
    this.out = out;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /**
   * lanes logs each health transition (SATURATED, DEADLOCKED …) as a warning. The experiments
   * provoke those on purpose and report them themselves, so during the lab only errors are logged;
   * the level is restored afterwards. A strong reference keeps the logger's level from being lost.
   */
  private static final java.util.logging.Logger LANES_LOG = java.util.logging.Logger.getLogger("dev.lanes");

  int run(List<Experiment> experiments) throws Exception {
    java.util.logging.Level level = LANES_LOG.getLevel();
    LANES_LOG.setLevel(java.util.logging.Level.SEVERE);
    try {
      return runQuietly(experiments);
    } finally {
      LANES_LOG.setLevel(level);
    }
  }

  private int runQuietly(List<Experiment> experiments) throws Exception {
    System.setProperty("java.awt.headless", "true");
    long start = System.nanoTime();
    List<ExperimentResult> results = new ArrayList<>();
    List<Double> seconds = new ArrayList<>();
    boolean anyFailed = false;
    stdout.println("lanes lab: " + experiments.size() + " experiment(s), "
        + (quick ? "quick" : "full") + " run, " + Runtime.getRuntime().availableProcessors()
        + " cores, JDK " + Runtime.version() + ", seed " + seed);
    List<String> ids = experiments.stream().map(Experiment::id).toList();
    try (Progress progress = new Progress(stderr, columns, ids, quick, System::nanoTime).startRedrawing();
        LabContext ctx = new LabContext(quick, seed, progress::status)) {
      for (int i = 0; i < experiments.size(); i++) {
        Experiment e = experiments.get(i);
        progress.start(i);
        long t0 = System.nanoTime();
        ExperimentResult r;
        try {
          r = e.run(ctx);
        } catch (Exception | Error ex) {
          anyFailed = true;
          r = ExperimentResult.crashed(e, ex);
          stderr.println();
          ex.printStackTrace(stderr);
        }
        results.add(r);
        seconds.add((System.nanoTime() - t0) / 1e9);
        progress.done(i, r.crashed() ? "FAILED TO RUN" : r.holds() ? "holds" : "does not hold here");
      }
      progress.status("writing the report");
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    new ReportWriter(out).write(quick, seed, Runtime.getRuntime().availableProcessors(), elapsedMs, results);
    printSummary(results, seconds, elapsedMs);
    return anyFailed ? 1 : 0;
  }

  private void printSummary(List<ExperimentResult> results, List<Double> seconds, long elapsedMs) {
    stdout.println();
    stdout.println(String.format(Locale.ROOT, "%-3s  %-6s  %6s  %s", "id", "holds", "secs", "verdict"));
    int held = 0;
    int crashed = 0;
    int width = columns > 0 ? columns : 100;
    for (int i = 0; i < results.size(); i++) {
      ExperimentResult r = results.get(i);
      held += r.holds() ? 1 : 0;
      crashed += r.crashed() ? 1 : 0;
      String head = String.format(Locale.ROOT, "%-3s  %-6s  %6.1f  ", r.id(),
          r.crashed() ? "ERROR" : r.holds() ? "yes" : "NO", seconds.get(i));
      stdout.print(wrap(head, r.verdict(), width));
    }
    stdout.println();
    String failedToRun = crashed == 0 ? "" : String.format(Locale.ROOT, "; %d failed to run", crashed);
    stdout.println(String.format(Locale.ROOT, "%d of %d claims held on this machine%s; took %s.",
        held, results.size() - crashed, failedToRun, Format.duration(elapsedMs)));
    stdout.println("report: " + out.toAbsolutePath().normalize().resolve("index.html"));
  }

  /** {@code head} then {@code text} wrapped at {@code width}, later lines indented under the text. */
  static String wrap(String head, String text, int width) {
    String indent = " ".repeat(head.length());
    int room = Math.max(20, width - 1 - head.length());
    StringBuilder out = new StringBuilder(head);
    int col = 0;
    for (String word : text.replace('\n', ' ').trim().split(" +")) {
      if (col > 0 && col + 1 + word.length() > room) {
        out.append('\n').append(indent);
        col = 0;
      } else if (col > 0) {
        out.append(' ');
        col++;
      }
      out.append(word);
      col += word.length();
    }
    return out.append('\n').toString();
  }

}
