package dev.lanes.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Context switches per task: how often the benchmark JVM's threads gave up their core during an
 * iteration, divided by the tasks it ran (JMH's operations, as for {@link CpuTimeProfiler}).
 * Voluntary switches ({@value #VOLUNTARY}) are blocks — a park, a sleep, a wait for a lock — each
 * of which some other thread's wake-up ends; involuntary ones ({@value #INVOLUNTARY}) are
 * preemptions. On a virtual machine a wake-up of a thread whose core sleeps is an interrupt sent
 * between virtual CPUs, among the dearest things a hand-off can cost there.
 *
 * <p>Read from Linux's {@code /proc/self/task/<tid>/status} ({@code voluntary_ctxt_switches},
 * {@code nonvoluntary_ctxt_switches}) at the start and end of each iteration: a thread that started
 * during it counts from zero, one that ended during it is not counted (its counts end with it),
 * and a thread id the kernel gave again to a new thread (its counts below the old one's) counts
 * from zero too.
 * Where there is no such file: no result. Use: {@code ./lanes bench --prof
 * dev.lanes.bench.ContextSwitchProfiler}, or JMH's {@code -prof} with that name.
 */
public final class ContextSwitchProfiler implements InternalProfiler {

  static final String VOLUNTARY = "voluntarySwitchesPerTask";
  static final String INVOLUNTARY = "involuntarySwitchesPerTask";

  private final Path taskDir;
  private Map<String, long[]> atStart;

  /** Reads this JVM's threads, {@code /proc/self/task}; JMH makes it through this constructor. */
  public ContextSwitchProfiler() {
    this(Path.of("/proc/self/task"));
  }

  /** Reads the threads listed in {@code taskDir}, one folder each with a {@code status} file. */
  ContextSwitchProfiler(Path taskDir) {
    this.taskDir = taskDir;
  }

  @Override
  public String getDescription() {
    return "context switches (voluntary: blocked and woken; involuntary: preempted) of all the"
        + " JVM's threads, from Linux's /proc, per task";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    atStart = read(taskDir);
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    Map<String, long[]> atEnd = read(taskDir);
    long tasks = result.getMetadata().getMeasuredOps();
    if (atStart == null || atEnd == null || tasks <= 0) {
      return List.of();
    }
    long voluntary = 0;
    long involuntary = 0;
    for (Map.Entry<String, long[]> e : atEnd.entrySet()) {
      long[] now = e.getValue();
      long[] before = atStart.getOrDefault(e.getKey(), new long[2]);
      if (now[0] < before[0] || now[1] < before[1]) {
        before = new long[2]; // the id is another thread's now: it started during the iteration
      }
      voluntary += now[0] - before[0];
      involuntary += now[1] - before[1];
    }
    return List.of(
        new ScalarResult(VOLUNTARY, (double) voluntary / tasks, "switches/task",
            AggregationPolicy.AVG),
        new ScalarResult(INVOLUNTARY, (double) involuntary / tasks, "switches/task",
            AggregationPolicy.AVG));
  }

  /**
   * Each thread's {voluntary, involuntary} switches by thread id; null if the folder cannot be
   * read. A thread whose file vanished between listing and reading is left out.
   */
  static Map<String, long[]> read(Path taskDir) {
    if (!Files.isDirectory(taskDir)) {
      return null;
    }
    Map<String, long[]> counts = new HashMap<>();
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(taskDir)) {
      for (Path thread : threads) {
        long[] c = parse(thread.resolve("status"));
        if (c != null) {
          counts.put(thread.getFileName().toString(), c);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return counts;
  }

  /** {voluntary, involuntary} from one status file; null if it is gone or lacks either line. */
  private static long[] parse(Path status) {
    List<String> lines;
    try {
      lines = Files.readAllLines(status);
    } catch (IOException e) {
      return null; // the thread ended between the listing and this read
    }
    long voluntary = -1;
    long involuntary = -1;
    for (String line : lines) {
      if (line.startsWith("voluntary_ctxt_switches:")) {
        voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
        involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return voluntary < 0 || involuntary < 0 ? null : new long[] {voluntary, involuntary};
  }
}
