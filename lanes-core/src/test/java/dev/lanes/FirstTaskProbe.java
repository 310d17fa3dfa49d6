package dev.lanes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

/**
 * Runs the README example's first task in a fresh JVM and prints its run time; with the argument
 * {@code record-after}, then starts a JFR recording and runs a 40 ms task, and prints how many
 * {@code dev.lanes.Task} events the recording holds. {@code FirstTaskTest} runs it with {@code
 * -Xlog:class+load} to see which classes the first task loads; by hand, from lanes-core: {@code
 * java -Xlog:class+load -cp target/classes:target/test-classes:<the HdrHistogram jar>
 * dev.lanes.FirstTaskProbe}.
 */
public final class FirstTaskProbe {
  private FirstTaskProbe() {}

  public static void main(String[] args) throws Exception {
    try (Lane db = Lane.blocking("db", 8).queueCapacity(100).build()) {
      String user = db.submit("load-user", () -> "ada").get();
      System.out.println("probe result=" + user);
      System.out.println("probe run_ms=" + db.stats().sinceStart().runTime().maxMillis());
      System.out.println("probe first-task-done");
      if (args.length > 0 && args[0].equals("record-after")) {
        Path file = Files.createTempFile("lanes-first-task", ".jfr");
        try (Recording recording = new Recording()) {
          recording.enable("dev.lanes.Task");
          recording.start();
          db.submit("slow", () -> {
            TimeUnit.MILLISECONDS.sleep(40);
            return 1;
          }).get();
          recording.stop();
          recording.dump(file);
        }
        long events = RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().equals("dev.lanes.Task")).count();
        Files.delete(file);
        System.out.println("probe task_events=" + events);
      }
    }
  }
}
