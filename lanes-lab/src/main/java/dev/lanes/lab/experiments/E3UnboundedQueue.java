package dev.lanes.lab.experiments;

import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.report.Format;
import dev.lanes.lab.support.OverloadChild;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.knowm.xchart.XYChart;

/**
 * E3: overload with an unbounded queue versus a bounded lane, each in a child JVM with a 64 MB
 * heap ({@link OverloadChild}). The parent reads the child's heap samples and result line, with
 * a time bound after which the child is killed.
 */
public final class E3UnboundedQueue implements Experiment {

  static final String HEAP = "-Xmx64m";
  static final int HEAP_MB = 64;

  private record Child(boolean oom, boolean finished, Map<String, Long> result, List<double[]> heap,
      String stderrTail) {}

  @Override
  public String id() {
    return "E3";
  }

  @Override
  public String question() {
    return "What does an unbounded queue do under overload?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    long unboundedMs = ctx.scale(15_000, 30_000);
    long boundedMs = ctx.scale(3_000, 10_000);
    result.setup(String.format(Locale.ROOT,
        "Two child JVMs with %s. In each, one producer submits about 5,000 tasks a second, each"
            + " holding a %,d-byte payload, to one worker that takes about 1 ms per task (about"
            + " 1,000 a second). Unbounded: Executors.newFixedThreadPool(1), whose queue has no"
            + " bound, for up to %,d ms. Bounded: a lanes blocking lane of 1 thread with a queue of"
            + " 500 and the reject policy, for %,d ms. Heap: used heap sampled every 100 ms in the child.",
        HEAP, OverloadChild.PAYLOAD_BYTES, unboundedMs, boundedMs));
    ctx.status("E3 unbounded child JVM");
    Child unbounded = runChild(ctx, "unbounded", unboundedMs);
    ctx.status("E3 bounded child JVM");
    Path tasksFile = ctx.tempDir().resolve("e3-tasks.raw");
    Child bounded = runChild(ctx, "bounded", boundedMs, tasksFile);
    List<TaskRecord> records = readRecords(tasksFile);

    boolean boundedSurvived = bounded.finished() && !bounded.oom();
    long rejected = bounded.result().getOrDefault("rejected", -1L);
    result.figure("unbounded_oom", unbounded.oom());
    result.figure("bounded_survived", boundedSurvived);
    result.figure("bounded_rejected", rejected);
    result.figure("bounded_submitted", bounded.result().getOrDefault("submitted", -1L));
    result.figure("bounded_completed", bounded.result().getOrDefault("completed", -1L));
    result.figure("unbounded_submitted", unbounded.result().getOrDefault("submitted", -1L));
    result.figure("unbounded_ms_to_oom", unbounded.oom() ? unbounded.result().getOrDefault("at_ms", -1L) : -1L);
    result.figure("unbounded_peak_heap_mb", peak(unbounded.heap()));
    result.figure("bounded_peak_heap_mb", peak(bounded.heap()));
    result.figure("unbounded_peak_live_heap_mb", peakLive(unbounded.heap()));
    result.figure("bounded_peak_live_heap_mb", peakLive(bounded.heap()));
    result.table(List.of("variant", "outcome", "submitted", "rejected", "completed", "peak used heap MB",
        "peak live heap MB"),
        List.of(
            List.of("unbounded queue", unbounded.oom() ? "OutOfMemoryError after "
                    + Format.count(unbounded.result().getOrDefault("at_ms", -1L)) + " ms"
                    : unbounded.finished() ? "survived" : "did not finish",
                Format.count(unbounded.result().getOrDefault("submitted", -1L)), "0 (never refuses)",
                "–", String.format(Locale.ROOT, "%.1f", peak(unbounded.heap())),
                String.format(Locale.ROOT, "%.1f", peakLive(unbounded.heap()))),
            List.of("bounded lane", boundedSurvived ? "kept going" : bounded.oom() ? "OutOfMemoryError" : "did not finish",
                Format.count(bounded.result().getOrDefault("submitted", -1L)), Format.count(rejected),
                Format.count(bounded.result().getOrDefault("completed", -1L)),
                String.format(Locale.ROOT, "%.1f", peak(bounded.heap())),
                String.format(Locale.ROOT, "%.1f", peakLive(bounded.heap())))));
    // Live heap only (what a collection kept: the queued tasks). "Used" also holds garbage not yet
    // collected, a sawtooth that would make the bounded lane look like the one in trouble; it is in
    // the table.
    Map<String, double[][]> series = new LinkedHashMap<>();
    series.put("unbounded queue (newFixedThreadPool(1))", xy(unbounded.heap(), 2));
    series.put("lanes, bounded queue of 500", xy(bounded.heap(), 2));
    XYChart chart = Charts.lines("E3: live heap under overload", "ms since start", "live heap (MB)", series);
    double endMs = Math.max(lastMs(unbounded.heap()), lastMs(bounded.heap()));
    chart.getStyler().setYAxisMax(HEAP_MB * 1.15);
    Charts.markY(chart, HEAP_MB, endMs * 0.3, HEAP_MB * 1.07, "heap limit " + HEAP_MB + " MB (" + HEAP + ")");
    if (unbounded.oom()) {
      long oomMs = unbounded.result().getOrDefault("at_ms", (long) lastMs(unbounded.heap()));
      endMs = Math.max(endMs, oomMs);
      // The label sits left of the line, so it stays inside the plot.
      Charts.markX(chart, oomMs, HEAP_MB * 0.75, "OutOfMemoryError at " + Format.count(oomMs) + " ms",
          oomMs - endMs * 0.17);
    }
    result.chart("E3-heap", "Live heap in each child JVM over time (" + HEAP + "): what the latest"
            + " collection kept, i.e. the queued tasks. The unbounded queue grows until the JVM runs out of"
            + " memory; the bounded lane's stays flat because it refuses what does not fit.",
        chart);

    boolean holds = unbounded.oom() && boundedSurvived && rejected > 0;
    String v = (unbounded.oom()
        ? String.format(Locale.ROOT, "The unbounded queue took the child JVM to OutOfMemoryError after"
            + " %,d ms and %,d submitted tasks (heap peaked at %.0f MB of 64). ",
            unbounded.result().getOrDefault("at_ms", -1L), unbounded.result().getOrDefault("submitted", -1L),
            peak(unbounded.heap()))
        : "The unbounded queue did NOT run out of memory within the bound on this run"
            + (unbounded.finished() ? "" : " (the child did not finish: " + unbounded.stderrTail() + ")") + ". ")
        + (boundedSurvived
            ? String.format(Locale.ROOT, "The bounded lane kept going for the whole %,d ms with at"
                + " most %.0f MB live on the heap: it ran %,d tasks and refused %,d, each one"
                + " counted.", boundedMs, peakLive(bounded.heap()),
                bounded.result().getOrDefault("completed", -1L), rejected)
            : "The bounded lane did not survive: " + bounded.stderrTail());
    result.verdict(holds, v);
    result.tasks(records);
    return result;
  }

  private static Child runChild(LabContext ctx, String mode, long durationMs) throws Exception {
    return runChild(ctx, mode, durationMs, ctx.tempDir().resolve("e3-" + mode + ".raw"));
  }

  private static Child runChild(LabContext ctx, String mode, long durationMs, Path tasksFile)
      throws Exception {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Path stderr = ctx.tempDir().resolve("e3-" + mode + ".err");
    ProcessBuilder pb = new ProcessBuilder(java, HEAP, "-XX:+UseSerialGC", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"), OverloadChild.class.getName(), mode,
        Long.toString(durationMs), tasksFile.toString())
        .redirectError(stderr.toFile());
    Process p = pb.start();
    List<double[]> heap = new ArrayList<>();
    Map<String, Long> result = new LinkedHashMap<>();
    boolean[] oom = {false};
    Thread reader = Thread.ofPlatform().daemon(true).name("e3-child-reader").start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          String[] parts = line.trim().split(" ");
          synchronized (heap) {
            if (parts[0].equals("heap") && parts.length == 4) {
              heap.add(new double[] {Double.parseDouble(parts[1]), Double.parseDouble(parts[2]),
                  Double.parseDouble(parts[3])});
            } else if (parts[0].equals("result")) {
              oom[0] = parts[1].equals("oom");
              for (int i = 2; i < parts.length; i++) {
                String[] kv = parts[i].split("=");
                result.put(kv[0], Long.parseLong(kv[1]));
              }
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        // the child was killed; what was read stays
      }
    });
    boolean exited = p.waitFor(durationMs + 20_000, TimeUnit.MILLISECONDS);
    if (!exited) {
      p.destroyForcibly();
      p.waitFor(5, TimeUnit.SECONDS);
    }
    reader.join(5_000);
    String err = Files.exists(stderr) ? Files.readString(stderr) : "";
    synchronized (heap) {
      boolean sawOom = oom[0] || err.contains("OutOfMemoryError");
      boolean finished = exited && !result.isEmpty();
      return new Child(sawOom, finished, new LinkedHashMap<>(result), new ArrayList<>(heap), tail(err));
    }
  }

  private static String tail(String s) {
    String t = s.strip();
    return t.length() <= 300 ? t : "…" + t.substring(t.length() - 300);
  }

  private static List<TaskRecord> readRecords(Path file) throws IOException {
    List<TaskRecord> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(",");
      if (f.length != 11) {
        continue;
      }
      out.add(new TaskRecord(Long.parseLong(f[0]), f[1], f[2], f[3], Long.parseLong(f[4]),
          Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
          Long.parseLong(f[9]), TaskOutcome.valueOf(f[10])));
    }
    return out;
  }

  /** Largest used heap (including garbage not yet collected). */
  private static double peak(List<double[]> heap) {
    return heap.stream().mapToDouble(h -> h[1]).max().orElse(0);
  }

  /** Largest live heap (what a collection kept). */
  private static double peakLive(List<double[]> heap) {
    return heap.stream().mapToDouble(h -> h[2]).max().orElse(0);
  }

  private static double lastMs(List<double[]> heap) {
    return heap.isEmpty() ? 0 : heap.getLast()[0];
  }

  private static double[][] xy(List<double[]> heap, int column) {
    return new double[][] {heap.stream().mapToDouble(h -> h[0]).toArray(),
        heap.stream().mapToDouble(h -> h[column]).toArray()};
  }
}
