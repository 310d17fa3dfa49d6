package dev.lanes.lab.report;

import dev.lanes.TaskRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * Writes the figures CSV and the per-task CSV of an experiment through Apache Commons CSV (RFC 4180
 * quoting: a cell with a comma, a quote or a line break is quoted), one {@code \n} per row.
 */
public final class Csv {

  /** The per-task header; the issue fixes it exactly. */
  public static final String TASKS_HEADER =
      "task_id,lane,label,thread,accepted_ns,started_ns,ended_ns,queue_wait_ms,run_ms,cpu_ms,outcome";

  static final String FIGURES_HEADER = "figure,value";

  private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder().setRecordSeparator('\n').get();

  private Csv() {}

  /** {@code figure,value} rows. */
  public static void writeFigures(Path file, Map<String, Object> figures) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file);
        CSVPrinter csv = new CSVPrinter(w, FORMAT.builder().setHeader(FIGURES_HEADER.split(",")).get())) {
      for (Map.Entry<String, Object> e : figures.entrySet()) {
        csv.printRecord(e.getKey(), format(e.getValue()));
      }
    }
  }

  /**
   * One row per task record, by lane then task id. {@code cpu_ms} is empty when the lane did not
   * measure it (virtual threads have no CPU time in the JDK).
   */
  public static void writeTasks(Path file, List<TaskRecord> records) throws IOException {
    List<TaskRecord> sorted =
        records.stream()
            .sorted(Comparator.comparing(TaskRecord::lane).thenComparingLong(TaskRecord::taskId))
            .toList();
    try (BufferedWriter w = Files.newBufferedWriter(file);
        CSVPrinter csv = new CSVPrinter(w, FORMAT.builder().setHeader(TASKS_HEADER.split(",")).get())) {
      for (TaskRecord r : sorted) {
        csv.printRecord(r.taskId(), r.lane(), r.label(), r.thread(),
            r.acceptedNanos(), r.startedNanos(), r.endedNanos(),
            ms(r.queueWaitNanos()), ms(r.runNanos()), r.cpuNanos() < 0 ? "" : ms(r.cpuNanos()),
            r.outcome().tag());
      }
    }
  }

  static String format(Object value) {
    if (value instanceof Double d) {
      return String.format(Locale.ROOT, "%.3f", d);
    }
    return String.valueOf(value);
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
  }
}
