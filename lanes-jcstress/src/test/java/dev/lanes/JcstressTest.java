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
 * "quick" mode with 100 ms iterations (half quick's own 200 ms: the forks, VM configurations and
 * strides are quick's, and the run fits CI's budget), in a child JVM, and fails if any forbidden outcome was seen or a test errored. A
 * longer run: {@code java -cp <classpath> org.openjdk.jcstress.Main -m default -t dev.lanes}.
 */
class JcstressTest {
  private static final List<String> TESTS = List.of("CancelInterruptStress", "RingStress.Producers",
      "RingStress.Consumers", "RingStress.HandOff", "RingStress.Size",
      "IdleWakeStress", "WakeAllStress", "TakeOrKillStress",
      "AdmissionStress.OneSlotTwoSubmitters", "AdmissionStress.ReleaseRacesAdmit",
      "AdmissionStress.ReleaseThenAdmitOnBothSides", "PermitStress",
      "OverflowStress.ThroughAFullArray", "OverflowStress.IdleWake", "BooksReadStress",
      "DiscardOldestStress", "GateWakeStress.Ready", "GateWakeStress.WakeAll",
      "GrowthStress", "TallySwapStress", "RestWakeStress.Append", "RestWakeStress.LongPark",
      "ShardedIdleWakeStress", "LateAppendStress");

  @Test
  @Timeout(value = 13, unit = TimeUnit.MINUTES)
  void noForbiddenOutcomeInTheLockFreeProtocols() throws Exception {
    Path work = Files.createDirectories(Path.of("target", "jcstress"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", absoluteClassPath(),
            "org.openjdk.jcstress.Main", "-v", "-m", "quick", "-time", "100",
            "-t", "dev\\.lanes\\..*Stress",
            "-r", work.resolve("report").toString(),
            "-jvmArgsPrepend", "--enable-native-access=ALL-UNNAMED")
        .directory(work.toFile()) // jcstress leaves its result blob in the working directory
        .redirectErrorStream(true)
        .redirectOutput(work.resolve("output.txt").toFile())
        .start();
    // The child writes to a file, so this wait is the bound (not a read that blocks until exit).
    // 24 tests took 8 min 42 s on a clean clone here (2026-11-27; 23 took 7 min 53 s the day
    // before): 15 forked runs for each test of two actors (split compilation, normal and stress
    // forks), 5 for one actor
    boolean finished = p.waitFor(11, TimeUnit.MINUTES);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String out = Files.readString(work.resolve("output.txt"), StandardCharsets.UTF_8);
    assertThat(finished).as("jcstress finished within 11 minutes; its output:%n%s", out).isTrue();
    String results = out.contains("RUN RESULTS:") ? out.substring(out.indexOf("RUN RESULTS:")) : out;
    System.out.println(results);
    for (String test : TESTS) {
      assertThat(results).as("jcstress output").contains("[OK] dev.lanes." + test);
    }
    assertThat(results).contains("Failed tests: No matches.").contains("Error tests: No matches.");
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
