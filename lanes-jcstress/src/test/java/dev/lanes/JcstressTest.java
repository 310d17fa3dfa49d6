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
 * -XX:+StressLCM} and the rest) — 104 forks for the 26 tests. {@code
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
      "ShardedIdleWakeStress", "LateAppendStress", "PutBackStress", "SparedEntryStress");

  /** The least time without new output that counts as a hang; see {@link #awaitWhileItProgresses}. */
  private static final long LEAST_STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

  @Test
  // A last resort above the module's default; a hang is caught first by the output's stall.
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
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
    Path output = work.resolve("output.txt");
    String hang = awaitWhileItProgresses(p, output, LEAST_STALL_NANOS);
    String out = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(hang).as("jcstress hung; its output:%n%s", out).isNull();
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

  @Test
  void aChildThatStopsWritingIsDumpedAndKilled() throws Exception {
    Path work = Files.createDirectories(Path.of("target", "stall"));
    Path output = work.resolve("output.txt");
    Process p = new ProcessBuilder("sh", "-c", "echo started; exec sleep 600")
        .redirectErrorStream(true).redirectOutput(output.toFile()).start();
    String hang = awaitWhileItProgresses(p, output, TimeUnit.SECONDS.toNanos(3));
    assertThat(hang).startsWith("no output for ").contains("pid " + p.pid());
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).as("killed").isTrue();
  }

  /**
   * Waits for the child to exit while its output grows (verbose jcstress writes a result every few
   * forks; a fork takes about 1.9 s here when the machine is quiet, several times that beside a
   * CPU hog). It hangs if no output came for ten times the longest gap seen so far, and at least
   * {@code leastStallNanos}: then the child and its forks' threads are dumped, the processes
   * killed, and the dump returned (null when it exited). Bounds follow the run, not the clock.
   */
  static String awaitWhileItProgresses(Process p, Path output, long leastStallNanos)
      throws Exception {
    long size = -1;
    long grewAt = System.nanoTime();
    long longestGap = 0;
    while (!p.waitFor(2, TimeUnit.SECONDS)) {
      long now = System.nanoTime();
      long s = Files.exists(output) ? Files.size(output) : 0;
      if (s != size) {
        if (size >= 0) {
          longestGap = Math.max(longestGap, now - grewAt);
        }
        size = s;
        grewAt = now;
      } else if (now - grewAt > Math.max(leastStallNanos, 10 * longestGap)) {
        StringBuilder dump = new StringBuilder("no output for "
            + TimeUnit.NANOSECONDS.toSeconds(now - grewAt) + " s (longest gap before: "
            + TimeUnit.NANOSECONDS.toSeconds(longestGap) + " s); threads:\n");
        List<ProcessHandle> all = new java.util.ArrayList<>(p.descendants().toList());
        all.add(0, p.toHandle());
        for (ProcessHandle h : all) {
          dump.append(threadDump(h.pid()));
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        return dump.toString();
      }
    }
    return null;
  }

  /** {@code jcmd <pid> Thread.print}, or why it could not be had. */
  private static String threadDump(long pid) {
    try {
      String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
      Process d = new ProcessBuilder(jcmd, Long.toString(pid), "Thread.print")
          .redirectErrorStream(true).start();
      String text = new String(d.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      d.waitFor();
      return "=== pid " + pid + " ===\n" + text;
    } catch (Exception e) {
      return "pid " + pid + ": no thread dump (" + e + ")\n";
    }
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
