package dev.lanes.lab;

import dev.lanes.lab.report.ReportWriter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Runs the chosen experiments one after another on the calling thread, with a progress bar on
 * stderr, then writes the report and prints a summary table. An experiment that throws is reported
 * as failed (holds false, the error as its verdict) and the others still run.
 */
final class Lab {

  private final boolean quick;
  private final long seed;
  private final Path out;
  private final PrintStream stdout;
  private final PrintStream stderr;

  Lab(boolean quick, long seed, Path out, PrintStream stdout, PrintStream stderr) {
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
    ProgressBarBuilder builder =
        new ProgressBarBuilder()
            .setTaskName("lab")
            .setInitialMax(experiments.size())
            .setStyle(ProgressBarStyle.ASCII)
            .setUpdateIntervalMillis(250)
            .continuousUpdate()
            .setConsumer(new ConsoleProgressBarConsumer(stderr, 100));
    try (ProgressBar bar = builder.build();
        LabContext ctx = new LabContext(quick, seed, what -> bar.setExtraMessage(pad(what)))) {
      for (Experiment e : experiments) {
        bar.setExtraMessage(pad(e.id()));
        long t0 = System.nanoTime();
        ExperimentResult r;
        try {
          r = e.run(ctx);
        } catch (Exception | Error ex) {
          anyFailed = true;
          r = new ExperimentResult(e).verdict(false, "The experiment failed to run: " + ex);
          stderr.println();
          ex.printStackTrace(stderr);
        }
        results.add(r);
        seconds.add((System.nanoTime() - t0) / 1e9);
        bar.step();
      }
      bar.setExtraMessage(pad("writing report"));
    }
    stderr.println();
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    new ReportWriter(out).write(quick, seed, Runtime.getRuntime().availableProcessors(), elapsedMs, results);
    printSummary(results, seconds, elapsedMs);
    return anyFailed ? 1 : 0;
  }

  private void printSummary(List<ExperimentResult> results, List<Double> seconds, long elapsedMs) {
    stdout.println();
    stdout.println(String.format(Locale.ROOT, "%-3s  %-5s  %6s  %s", "id", "holds", "secs", "verdict"));
    int held = 0;
    for (int i = 0; i < results.size(); i++) {
      ExperimentResult r = results.get(i);
      held += r.holds() ? 1 : 0;
      stdout.println(String.format(Locale.ROOT, "%-3s  %-5s  %6.1f  %s", r.id(),
          r.holds() ? "yes" : "NO", seconds.get(i), shorten(r.verdict(), 100)));
    }
    stdout.println();
    stdout.println(String.format(Locale.ROOT, "%d of %d claims held on this machine; took %.1f s.",
        held, results.size(), elapsedMs / 1000.0));
    stdout.println("report: " + out.toAbsolutePath().normalize().resolve("index.html"));
  }

  /** A fixed-width status, so the bar does not change length as the status changes. */
  private static String pad(String status) {
    return String.format(Locale.ROOT, "%-30.30s", status);
  }

  private static String shorten(String s, int max) {
    String one = s.replace('\n', ' ');
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }
}
