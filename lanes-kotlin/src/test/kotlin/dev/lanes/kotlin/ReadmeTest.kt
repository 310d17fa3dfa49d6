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
    val out = ByteArrayOutputStream()
    val original = System.out
    System.setOut(PrintStream(out, true, Charsets.UTF_8))
    try {
      dev.lanes.kotlin.examples.main()
    } finally {
      System.setOut(original)
    }
    assertThat(out.toString(Charsets.UTF_8)).isEqualTo("user 42; lane tasks: 2\n")
  }
}
