package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.IterationResultMetaData;
import org.openjdk.jmh.results.Result;

/** The context-switch profiler: what it adds up from /proc, and that it sees real blocks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextSwitchProfilerTest {

  private static IterationResult ran(long tasks) {
    return new IterationResult(null, null, new IterationResultMetaData(tasks, tasks));
  }

  private static Map<String, Double> byLabel(List<? extends Result> results) {
    return results.stream().collect(Collectors.toMap(Result::getLabel, Result::getScore));
  }

  private static void thread(Path dir, String tid, long voluntary, long involuntary)
      throws IOException {
    Files.createDirectories(dir.resolve(tid));
    Files.writeString(dir.resolve(tid).resolve("status"), "Name:\tworker\nState:\tS (sleeping)\n"
        + "voluntary_ctxt_switches:\t" + voluntary + "\nnonvoluntary_ctxt_switches:\t"
        + involuntary + "\n");
  }

  @Test
  void countsEachThreadsSwitchesSinceTheStartANewThreadFromZeroAndDividesByTheTasks(
      @TempDir Path dir) throws IOException {
    thread(dir, "101", 10, 1);
    thread(dir, "102", 50, 5);
    thread(dir, "103", 7, 7); // ends during the iteration: its counts end with it
    thread(dir, "105", 900, 90); // ends too, and a new thread gets its id
    ContextSwitchProfiler profiler = new ContextSwitchProfiler(dir);
    profiler.beforeIteration(null, null);

    thread(dir, "101", 110, 3); // +100, +2
    thread(dir, "102", 350, 5); // +300, +0
    Files.delete(dir.resolve("103").resolve("status"));
    Files.delete(dir.resolve("103"));
    thread(dir, "104", 200, 10); // started during it: all of it
    thread(dir, "105", 40, 4); // the new thread with the old id: all of it, not 40 - 900

    Map<String, Double> r = byLabel(List.copyOf(profiler.afterIteration(null, null, ran(100))));
    assertThat(r).containsOnlyKeys(
        ContextSwitchProfiler.VOLUNTARY, ContextSwitchProfiler.INVOLUNTARY);
    assertThat(r.get(ContextSwitchProfiler.VOLUNTARY)).isEqualTo(6.4); // 640 over 100 tasks
    assertThat(r.get(ContextSwitchProfiler.INVOLUNTARY)).isEqualTo(0.16); // 16 over 100
  }

  @Test
  void jmhMakesItFromTheNameTheHelpGives() throws Exception {
    // `./lanes bench --prof dev.lanes.bench.ContextSwitchProfiler` hands JMH this name
    assertThat(org.openjdk.jmh.profile.ProfilerFactory.getProfilerOrException(
            new org.openjdk.jmh.runner.options.ProfilerConfig(
                "dev.lanes.bench.ContextSwitchProfiler")))
        .isInstanceOf(ContextSwitchProfiler.class);
  }

  @Test
  void givesNoResultWithoutTheFolderOrWithoutTasks(@TempDir Path dir) throws IOException {
    ContextSwitchProfiler missing = new ContextSwitchProfiler(dir.resolve("no-such-folder"));
    missing.beforeIteration(null, null);
    assertThat(missing.afterIteration(null, null, ran(100))).isEmpty();

    thread(dir, "1", 1, 1);
    ContextSwitchProfiler idle = new ContextSwitchProfiler(dir);
    idle.beforeIteration(null, null);
    assertThat(idle.afterIteration(null, null, ran(0))).isEmpty();
  }

  @Test
  void seesAThreadThatBlocksFiftyTimesOnThisJvm() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
    ContextSwitchProfiler profiler = new ContextSwitchProfiler();
    profiler.beforeIteration(null, null);
    CountDownLatch slept = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread sleeper = Thread.ofPlatform().start(() -> {
      try {
        for (int i = 0; i < 50; i++) {
          Thread.sleep(1); // what is counted (a block: one voluntary switch), not a wait for a thread
        }
        slept.countDown();
        release.await(); // alive while it is read: a thread's counts end with it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      assertThat(slept.await(30, TimeUnit.SECONDS)).isTrue();
      Map<String, Double> r = byLabel(List.copyOf(profiler.afterIteration(null, null, ran(1))));
      assertThat(r.get(ContextSwitchProfiler.VOLUNTARY)).isGreaterThanOrEqualTo(50.0);
    } finally {
      release.countDown();
      sleeper.join();
    }
  }
}
