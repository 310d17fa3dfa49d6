package dev.lanes.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's CSV files: exact headers, one row per task in order, cells that read back as written. */
class CsvTest {

  @TempDir Path dir;

  private static final long MS = 1_000_000;

  @Test
  void taskRowsKeepTheHeaderTheOrderAndTrickyNamesAndLeaveAMissingCpuEmpty() throws Exception {
    String tricky = "say \"hi\", then\nleave";
    List<TaskRecord> records = List.of(
        new TaskRecord(2, "db", "load", "db-1", 10, 20, 30, 10, 10, 7 * MS / 2, TaskOutcome.COMPLETED),
        new TaskRecord(1, "db", tricky, "db-2", 1, 2, 3, 1, 1, 0, TaskOutcome.FAILED),
        new TaskRecord(5, "api", "call", "", 100, 3 * MS + 100, 5 * MS + 100, 3 * MS, 2 * MS, -1, TaskOutcome.COMPLETED));
    Path file = dir.resolve("E0-tasks.csv");
    Csv.writeTasks(file, records);

    String text = Files.readString(file);
    assertThat(text).startsWith(Csv.TASKS_HEADER + "\n").doesNotContain("\r");
    List<CSVRecord> rows = read(file);
    assertThat(rows).hasSize(4);
    assertThat(String.join(",", rows.get(0).values())).isEqualTo(Csv.TASKS_HEADER);
    // By lane, then by task id.
    assertThat(rows.subList(1, 4)).extracting(r -> r.get(1) + "#" + r.get(0)).containsExactly("api#5", "db#1", "db#2");
    assertThat(rows.get(1).values()).containsExactly(
        "5", "api", "call", "", "100", "3000100", "5000100", "3.000", "2.000", "", TaskOutcome.COMPLETED.tag());
    assertThat(rows.get(2).get(2)).isEqualTo(tricky);
    assertThat(rows.get(3).get(9)).isEqualTo("3.500");
  }

  @Test
  void figureRowsAreNameAndValueWithRealsToThreeDecimals() throws Exception {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("p99_ms", 12.34567);
    figures.put("tasks", 400L);
    figures.put("holds, mostly", true);
    Path file = dir.resolve("E0.csv");
    Csv.writeFigures(file, figures);

    assertThat(Files.readString(file)).isEqualTo("""
        figure,value
        p99_ms,12.346
        tasks,400
        "holds, mostly",true
        """);
  }

  private static List<CSVRecord> read(Path file) throws Exception {
    try (Reader r = Files.newBufferedReader(file)) {
      return CSVFormat.RFC4180.parse(r).getRecords();
    }
  }
}
