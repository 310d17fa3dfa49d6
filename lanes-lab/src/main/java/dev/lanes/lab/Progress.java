package dev.lanes.lab;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The lab's progress on stderr. On a terminal ({@code columns > 0}) one line, never wider than the
 * terminal, redrawn in place every {@link #REDRAW_MILLIS} ms; elsewhere (a log file, CI) one plain
 * line per step, without carriage returns.
 *
 * <p>The ETA weighs each experiment by how long it typically takes ({@link #TYPICAL_SECONDS},
 * measured on the 2-core development machine), scaled by how fast this run has gone so far. The
 * shown ETA never climbs: when the estimate grows (a slow experiment), the shown figure keeps
 * counting down and reads "finishing" at zero; when the estimate drops, the shown figure follows.
 *
 * <p>Called from the lab's thread and from a redraw thread: every method is synchronized.
 */
final class Progress implements AutoCloseable {

  static final long REDRAW_MILLIS = 500;

  /** Seconds each experiment took in a quick and a full run here; a guide for the ETA only. */
  static final Map<String, double[]> TYPICAL_SECONDS = Map.ofEntries(
      Map.entry("E1", new double[] {5, 20}), Map.entry("E2", new double[] {4, 15}),
      Map.entry("E3", new double[] {7, 20}), Map.entry("E4", new double[] {5, 8}),
      Map.entry("E5", new double[] {2, 12}), Map.entry("E6", new double[] {6, 25}),
      Map.entry("E7", new double[] {2, 5}), Map.entry("E8", new double[] {4, 20}),
      Map.entry("E9", new double[] {4, 30}), Map.entry("E10", new double[] {25, 110}),
      Map.entry("E11", new double[] {8, 25}), Map.entry("E12", new double[] {4, 10}),
      Map.entry("E13", new double[] {23, 35}),
      Map.entry("E14", new double[] {19, 30}));

  private final PrintStream err;
  private final int columns;
  private final LongSupplier nanoTime;
  private final double[] weights;
  private final List<String> ids;
  private final long startNanos;
  private ScheduledExecutorService redraw;
  private int current = -1; // index of the running experiment
  private long currentStartNanos;
  private double doneWeight; // typical seconds of the experiments that ended
  private long doneNanos; // how long they really took
  private String status = "";
  private int drawnWidth;
  private long shownEtaNanos = -1; // -1: no ETA shown yet
  private long shownAtNanos;

  Progress(PrintStream err, int columns, List<String> ids, boolean quick, LongSupplier nanoTime) {
    this.err = err;
    this.columns = columns;
    this.nanoTime = nanoTime;
    this.ids = List.copyOf(ids);
    this.weights = ids.stream().mapToDouble(id -> TYPICAL_SECONDS.getOrDefault(id, new double[] {5, 15})[quick ? 0 : 1])
        .toArray();
    this.startNanos = nanoTime.getAsLong();
  }

  /** The terminal width from {@code LANES_COLUMNS} (set by ./lanes when stderr is a terminal), or 0. */
  static int columnsFromEnvironment() {
    String v = System.getenv("LANES_COLUMNS");
    return v != null && v.matches("\\d{1,4}") ? Integer.parseInt(v) : 0;
  }

  /** Starts redrawing the terminal line (on a terminal only). */
  synchronized Progress startRedrawing() {
    if (columns > 0 && redraw == null) {
      redraw = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lanes-lab-progress");
        t.setDaemon(true);
        return t;
      });
      redraw.scheduleAtFixedRate(this::draw, REDRAW_MILLIS, REDRAW_MILLIS, TimeUnit.MILLISECONDS);
    }
    return this;
  }

  synchronized void start(int index) {
    current = index;
    currentStartNanos = nanoTime.getAsLong();
    status(ids.get(index));
  }

  /** What the running experiment does now. */
  synchronized void status(String what) {
    status = what;
    if (columns > 0) {
      draw();
    } else {
      err.println(String.format(Locale.ROOT, "lanes lab: [%d/%d] %s (%s elapsed%s)", current + 1, ids.size(), what,
          clock(nanoTime.getAsLong() - startNanos), etaText(", ")));
    }
  }

  synchronized void done(int index, String outcome) {
    long took = nanoTime.getAsLong() - currentStartNanos;
    doneWeight += weights[index];
    doneNanos += took;
    double secs = took / 1e9;
    String line = String.format(Locale.ROOT, "lanes lab: [%d/%d] %s %s in %.1f s", index + 1, ids.size(), ids.get(index),
        outcome, secs);
    if (columns > 0) {
      clear();
      err.println(fit(line, columns - 1));
    } else {
      err.println(line);
    }
    current = -1;
  }

  /** The status line, cut to the terminal's width. */
  synchronized String line() {
    String pos = current < 0 ? "" : String.format(Locale.ROOT, "[%d/%d] ", current + 1, ids.size());
    String s = String.format(Locale.ROOT, "lanes lab %s%s  %s%s", pos, status, clock(nanoTime.getAsLong() - startNanos),
        etaText(", "));
    return fit(s, columns - 1);
  }

  private synchronized void draw() {
    String s = line();
    err.print("\r" + s + " ".repeat(Math.max(0, drawnWidth - s.length())));
    err.flush();
    drawnWidth = s.length();
  }

  private void clear() {
    if (drawnWidth > 0) {
      err.print("\r" + " ".repeat(drawnWidth) + "\r");
      drawnWidth = 0;
    }
  }

  /** The estimated time left, never more than the last one shown minus the time since. */
  synchronized long etaNanos() {
    long now = nanoTime.getAsLong();
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    double inCurrent = 0;
    if (current >= 0) {
      // Assume the running experiment is at most 90 % done: the rest is still to come.
      inCurrent = Math.min((now - currentStartNanos) / 1e9, 0.9 * weights[current]);
    }
    double doneSoFar = doneWeight + inCurrent;
    // Seconds of real time per typical second so far; 1 until an experiment has ended.
    double pace = doneWeight > 0 ? Math.max(0.2, doneNanos / 1e9 / doneWeight) : 1.0;
    long estimate = (long) (Math.max(0, total - doneSoFar) * pace * 1e9);
    if (shownEtaNanos >= 0) {
      long countedDown = Math.max(0, shownEtaNanos - (now - shownAtNanos));
      estimate = Math.min(estimate, countedDown);
    }
    shownEtaNanos = estimate;
    shownAtNanos = now;
    return estimate;
  }

  private String etaText(String prefix) {
    long eta = etaNanos();
    return prefix + (eta < 1_000_000_000L ? "finishing" : "about " + clock(eta) + " left");
  }

  static String clock(long nanos) {
    long s = Math.round(nanos / 1e9);
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }

  static String fit(String s, int width) {
    if (width < 2 || s.length() <= width) {
      return s;
    }
    return s.substring(0, width - 1) + "…";
  }

  @Override
  public void close() throws InterruptedException {
    ScheduledExecutorService r;
    synchronized (this) {
      r = redraw;
    }
    if (r != null) {
      r.shutdownNow();
      r.awaitTermination(5, TimeUnit.SECONDS); // draw() takes microseconds
    }
    synchronized (this) {
      clear();
      err.flush();
    }
  }
}
