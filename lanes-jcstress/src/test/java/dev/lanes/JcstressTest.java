package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the jcstress tests of this module (lanes-core's hand-made lock-free protocols) in jcstress's
 * "quick" mode with 100 ms iterations (half quick's own 200 ms), in a child JVM, and fails if any
 * forbidden outcome was seen or a test errored.
 *
 * <p>By default each test runs in four forks, its actors compiled alike in each: interpreted
 * ({@code -Xint}), by C1 only, by C2 only, and by C2 with its scheduling randomizers ({@code
 * -XX:+StressLCM} and the rest) — 100 forks for the 25 tests. {@code
 * -Dlanes.jcstress.split=true} adds jcstress's split compilation, each actor of a test compiled its
 * own way (one interpreted while the other runs C2 code, and so on): about three times the forks,
 * too long for CI's budget beside the rest of the suite. A longer run still:
 * {@code java -cp <classpath> org.openjdk.jcstress.Main -m default -t dev.lanes}.
 */
class JcstressTest {
  /** Whether to run jcstress's split compilation too ({@code -Dlanes.jcstress.split=true}). */
  private static final boolean SPLIT = Boolean.getBoolean("lanes.jcstress.split");

  private static final List<String> TESTS = List.of("CancelInterruptStress", "RingStress.Producers",
      "RingStress.Consumers", "RingStress.HandOff", "RingStress.Size",
      "IdleWakeStress", "WakeAllStress", "TakeOrKillStress",
      "AdmissionStress.OneSlotTwoSubmitters", "AdmissionStress.ReleaseRacesAdmit",
      "AdmissionStress.ReleaseThenAdmitOnBothSides", "PermitStress",
      "OverflowStress.ThroughAFullArray", "OverflowStress.IdleWake", "BooksReadStress",
      "DiscardOldestStress", "GateWakeStress.Ready", "GateWakeStress.WakeAll",
      "GrowthStress", "TallySwapStress", "RestWakeStress.Append", "RestWakeStress.LongPark",
      "ShardedIdleWakeStress", "LateAppendStress", "PutBackStress");

  @Test
  @Timeout(value = 13, unit = TimeUnit.MINUTES)
  void noForbiddenOutcomeInTheLockFreeProtocols() throws Exception {
    Path work = Files.createDirectories(Path.of("target", "jcstress"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", absoluteClassPath(),
            "org.openjdk.jcstress.Main", "-v", "-m", "quick", "-time", "100",
            "-sc", Boolean.toString(SPLIT),
            "-t", "dev\\.lanes\\..*Stress",
            "-r", work.resolve("report").toString(),
            "-jvmArgsPrepend", "--enable-native-access=ALL-UNNAMED")
        .directory(work.toFile()) // jcstress leaves its result blob in the working directory
        .redirectErrorStream(true)
        .redirectOutput(work.resolve("output.txt").toFile())
        .start();
    // The child writes to a file, so this wait is the bound (not a read that blocks until exit).
    // Forks cost about 1.9 s each here, most of it the fork's start: see the class comment.
    int minutes = SPLIT ? 11 : 6;
    boolean finished = p.waitFor(minutes, TimeUnit.MINUTES);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String out = Files.readString(work.resolve("output.txt"), StandardCharsets.UTF_8);
    assertThat(finished).as("jcstress finished within %d minutes; its output:%n%s", minutes, out).isTrue();
    String results = out.contains("RUN RESULTS:") ? out.substring(out.indexOf("RUN RESULTS:")) : out;
    System.out.println(results);
    for (String test : TESTS) {
      assertThat(results).as("jcstress output").contains("[OK] dev.lanes." + test);
    }
    assertThat(results).contains("Failed tests: No matches.").contains("Error tests: No matches.");
    if (!SPLIT) { // what the class comment and the README's module table say
      assertThat(out).as("four forks a test, no split compilation")
          .contains("(Results: " + 4 * TESTS.size() + " planned;")
          .doesNotContain("Compilation: split");
    }
    assertThat(p.exitValue()).isZero();
  }

  /** The class path with absolute entries, since the child JVM runs in another directory. */
  private static String absoluteClassPath() {
    StringBuilder cp = new StringBuilder();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!cp.isEmpty()) {
        cp.append(File.pathSeparator);
      }
      cp.append(Path.of(entry).toAbsolutePath());
    }
    return cp.toString();
  }
}
