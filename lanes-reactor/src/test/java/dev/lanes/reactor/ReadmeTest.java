package dev.lanes.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.reactor.examples.DbScheduler;
import dev.lanes.reactor.examples.PartnerTimeout;
import dev.lanes.testkit.ReadmeSnippets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's code is quoted from files this build compiles, and each example runs as it says. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadmeTest {

  @Test
  void everyCodeBlockInTheReadmeIsACompiledFileQuotedVerbatim() throws Exception {
    List<Path> quoted = ReadmeSnippets.check(Path.of("README.md"));
    assertThat(quoted).extracting(p -> p.getFileName().toString())
        .containsExactly("DbScheduler.java", "PartnerTimeout.java");
  }

  @Test
  void theSchedulerExampleRunsOnTheLaneAndLeavesItRunningAfterDispose() {
    assertThat(printed(DbScheduler::main)).isEqualTo("user 42, [1, 2, 3, 4, 5], lane shut down: false\n");
  }

  /**
   * In a JVM of its own, as a user runs it, with no {@code onErrorDropped} hook set (Reactor's
   * default logger keeps the {@code System.err} it found first, so only a fresh JVM shows its log).
   */
  @Test
  void theTimeoutExampleFallsBackAndReactorLogsTheDroppedInterrupt() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        PartnerTimeout.class.getName()).start();
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    String out = read(p.getInputStream());
    assertThat(p.waitFor(50, TimeUnit.SECONDS)).as("the example ended").isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(out).isEqualTo("fallback\n");
    assertThat(err.get(10, TimeUnit.SECONDS))
        .contains("Operator called default onErrorDropped")
        .contains("java.lang.InterruptedException: sleep interrupted");
  }

  private static String read(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String printed(Consumer<String[]> main) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      main.accept(new String[0]);
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
