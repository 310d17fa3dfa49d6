package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * No file of lanes-core writes another file's fields (issue #40's goal): every field write
 * (ArchUnit's field accesses of type SET) must have its writer and the field's owner in the same
 * source file. Nested classes count as their file's, so a worker's inner {@code TaskRun} may write
 * {@code Worker}'s fields, but {@code WorkerPool} may not.
 *
 * <p>Today's writes are allowed by {@link #ALLOWED}, written out one by one with the number of
 * places that make each: the test fails on any new write into another file's field (a new pair, or
 * a new place for an allowed one), and also when an allowed write has gone or has fewer places,
 * so that the list only shrinks: whoever removes a write removes it here too. The goal is an empty
 * list.
 */
class CoreFieldsTest {

  /** {@code owner.field ← writer ×places}; an owner is named within its file ({@code A.Nested}). */
  private static final List<String> ALLOWED = List.of(
      "Admission.aboveTargetSince ← LaneExecutor ×3",
      "Admission.aboveTargetSince ← Worker ×1",
      "Admission.rules ← LaneExecutor ×1",
      "LaneBooks.taskListeners ← LaneExecutor ×2",
      "LaneEvents.TaskEvent.cpuTime ← Worker ×1",
      "LaneEvents.TaskEvent.label ← Worker ×1",
      "LaneEvents.TaskEvent.lane ← Worker ×1",
      "LaneEvents.TaskEvent.outcome ← Worker ×1",
      "LaneEvents.TaskEvent.queueWait ← Worker ×1",
      "LaneEvents.TaskEvent.runTime ← Worker ×1",
      "LaneEvents.TaskEvent.taskId ← Worker ×1",
      "LaneFuture.Timed.sampleCpu ← Worker ×1",
      "LaneFuture.acceptedNanos ← LaneExecutor ×1",
      "LaneFuture.id ← LaneBooks ×1",
      "LaneFuture.id ← LaneExecutor ×2",
      "LaneFuture.id ← RingShard ×2",
      "LaneFuture.submitter ← LaneExecutor ×1",
      "LaneFuture.timed ← LaneExecutor ×1",
      "TaskRing.Taken.position ← RingShard ×4",
      "TaskRing.Taken.stamp ← RingShard ×4",
      "Worker.assigned ← WorkerPool ×1",
      "Worker.gateBackOffNanos ← WorkerPool ×2",
      "Worker.gateFailures ← WorkerPool ×2",
      "Worker.holdsPermit ← WorkerPool ×3",
      "Worker.idle ← TaskRing ×3",
      "Worker.newerIdle ← TaskRing ×4",
      "Worker.olderIdle ← TaskRing ×3",
      "Worker.retired ← WorkerPool ×1",
      "Worker.thread ← WorkerPool ×2",
      "Worker.waitTimed ← WaitTracker ×2",
      "Worker.waitingOn ← WaitTracker ×2",
      "WorkerPool.concurrency ← LaneExecutor ×2");

  @Test
  void noFileWritesAnotherFilesFieldsBeyondTheAllowedOnes() {
    CoreDrawing drawing = CoreDrawing.ofMainClasses();
    SortedMap<String, Integer> found = new TreeMap<>();
    drawing.foreignWrites().forEach((write, places) -> found.put(write.toString(), places));
    SortedMap<String, Integer> allowed = new TreeMap<>();
    for (String entry : ALLOWED) {
      int times = entry.lastIndexOf(" ×");
      allowed.put(entry.substring(0, times), Integer.parseInt(entry.substring(times + 2)));
    }
    SortedMap<String, String> newOrMore = new TreeMap<>();
    SortedMap<String, String> goneOrFewer = new TreeMap<>();
    for (Map.Entry<String, Integer> e : found.entrySet()) {
      int before = allowed.getOrDefault(e.getKey(), 0);
      if (e.getValue() > before) {
        newOrMore.put(e.getKey(), before + " → " + e.getValue() + " places");
      }
    }
    for (Map.Entry<String, Integer> e : allowed.entrySet()) {
      int now = found.getOrDefault(e.getKey(), 0);
      if (now < e.getValue()) {
        goneOrFewer.put(e.getKey(), e.getValue() + " → " + now + " places");
      }
    }
    assertThat(newOrMore)
        .as("new writes into another file's fields (keep a file's fields to its own code):%n%s",
            drawing.report())
        .isEmpty();
    assertThat(goneOrFewer)
        .as("allowed writes that have gone or have fewer places: lower CoreFieldsTest.ALLOWED")
        .isEmpty();
  }
}
