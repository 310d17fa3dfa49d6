package dev.lanes.kotlin

import dev.lanes.testkit.ReadmeSnippets
import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.nio.file.Path
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/** The README's code is quoted from files this build compiles, and the example runs as it says. */
class ReadmeTest {
  @Test
  fun `every code block in the README is a compiled file, quoted verbatim`() {
    val quoted = ReadmeSnippets.check(Path.of("README.md"))
    assertThat(quoted.map { it.fileName.toString() }).containsExactly("DbDispatcher.kt")
  }

  @Test
  fun `the README example runs its two steps as two lane tasks`() {
    // One task only when its thread stalled past the 10 ms delay before the step could suspend
    // (kotlinx then goes on in the same step; see LaneDispatcherTest.whenTheDelaySuspended): the
    // README says so, and such a run is tried again.
    val outputs = mutableListOf<String>()
    while (outputs.size < 5 && outputs.lastOrNull() != TWO_TASKS) {
      outputs += runTheExample()
    }
    assertThat(outputs).allSatisfy { assertThat(it).isIn(TWO_TASKS, "user 42; lane tasks: 1\n") }
    assertThat(outputs.last()).isEqualTo(TWO_TASKS)
  }

  private fun runTheExample(): String {
    val out = ByteArrayOutputStream()
    val original = System.out
    System.setOut(PrintStream(out, true, Charsets.UTF_8))
    try {
      dev.lanes.kotlin.examples.main()
    } finally {
      System.setOut(original)
    }
    return out.toString(Charsets.UTF_8)
  }

  private companion object {
    const val TWO_TASKS = "user 42; lane tasks: 2\n"
  }
}
