package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/** Records lanes' JFR events and reads them back from the file. */
class JfrEventsTest {
  @Test
  void slowTasksHealthTransitionsAndDeadlocksAreRecorded() throws Exception {
    Path file = Files.createTempFile("lanes", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("dev.lanes.Task"); // default threshold 20 ms
      recording.enable("dev.lanes.HealthTransition");
      recording.enable("dev.lanes.Deadlock");
      recording.start();
      try (Lane lane = Lane.blocking("jfr", 1)
          .failOnDeadlock().build()) {
        lane.submit("fast", () -> 1).get();
        lane.submit("slow", () -> {
          TimeUnit.MILLISECONDS.sleep(40);
          return 2;
        }).get();
        CompletableFuture<Integer> parent = lane.submit("parent", () -> lane.submit(() -> 3).get());
        try {
          parent.get();
        } catch (java.util.concurrent.ExecutionException expected) {
          // the FAIL policy broke the deadlock
        }
      }
      recording.stop();
      recording.dump(file);
    }
    List<RecordedEvent> events = RecordingFile.readAllEvents(file);
    Files.deleteIfExists(file);
    List<RecordedEvent> tasks = events.stream().filter(e -> e.getEventType().getName().equals("dev.lanes.Task")).toList();
    assertThat(tasks).extracting(e -> e.getString("label")).contains("slow").doesNotContain("fast");
    RecordedEvent slow = tasks.stream().filter(e -> e.getString("label").equals("slow")).findFirst().orElseThrow();
    assertThat(slow.getString("lane")).isEqualTo("jfr");
    assertThat(slow.getString("outcome")).isEqualTo("completed");
    assertThat(slow.getLong("runTime")).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getEventType().getName()).isEqualTo("dev.lanes.HealthTransition");
      assertThat(e.getString("to")).isEqualTo("DEADLOCKED");
    });
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getEventType().getName()).isEqualTo("dev.lanes.Deadlock");
      assertThat(e.getInt("workers")).isEqualTo(1);
      assertThat(e.getString("diagnostic")).contains("starvation deadlock");
    });
  }

  @Test
  void aSettingsChangeIsRecordedOnceAndOneThatChangesNothingIsNot() throws Exception {
    Path file = Files.createTempFile("lanes", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("dev.lanes.SettingsChange");
      recording.start();
      try (Lane lane = Lane.blocking("jfr-change", 1).queueCapacity(5).build()) {
        lane.change().queueCapacity(5).apply(); // nothing changes: no event
        lane.change().queueCapacity(7).apply();
      }
      recording.stop();
      recording.dump(file);
    }
    List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().equals("dev.lanes.SettingsChange")).toList();
    Files.deleteIfExists(file);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.getString("lane")).isEqualTo("jfr-change");
      assertThat(e.getString("change")).isEqualTo("queueCapacity 5 → 7");
    });
  }
}
