package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * No file of lanes-core writes another file's fields (issue #40): every field write (ArchUnit's
 * field accesses of type SET) must have its writer and the field's owner in the same source file,
 * so a part's state changes only through its own verbs. Nested classes count as their file's, so
 * a worker's inner {@code TaskRun} may write {@code Worker}'s fields, but {@code WorkerPool} may
 * not.
 */
class CoreFieldsTest {

  @Test
  void noFileWritesAnotherFilesFields() {
    CoreDrawing drawing = CoreDrawing.ofMainClasses();
    SortedMap<String, Integer> found = new TreeMap<>();
    drawing.foreignWrites().forEach((write, places) -> found.put(write.toString(), places));
    assertThat(found)
        .as("writes into another file's fields (owner.field ← writer = places): give the owner a"
            + " verb instead%n%s", drawing.report())
        .isEmpty();
  }
}
