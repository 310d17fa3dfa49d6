package dev.lanes.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;


/**
 * The {@code throughput} suite's batch (one producer submits 10,000 tasks that count down one
 * latch, then waits for them) in one JVM for many seconds, printing each second's rate and the
 * JVM's CPU time per task: it shows whether a JVM stays in the slow state or moves in and out of
 * it (BENCHMARKS.md, "Issue #27: which idle worker to wake, and the slow state, second look"). Not a JMH benchmark: nothing
 * is averaged away, and one run shows the states as they come.
 *
 * <pre>java -cp lanes-bench.jar dev.lanes.bench.SlowStateProbe [executor] [seconds] [tokens]</pre>
 *
 * {@code executor}: a name {@link ExecutorFactory} knows (default {@code lanes}), built with 2
 * workers; {@code seconds}: how long (default 20); {@code tokens}: {@link Work#spin}
 * tokens each task spins before it counts down (default 0: the task only counts down).
 */
public final class SlowStateProbe {

  /** A second whose CPU per task is above this is a slow one (the threshold BENCHMARKS.md uses). */
  static final double SLOW_CPU_NANOS_PER_TASK = 300;

  private static final int BATCH = ThroughputBenchmark.BATCH;

  private SlowStateProbe() {}

  /** One second of the run: tasks per second and the JVM's CPU nanoseconds per task. */
  record Second(double tasksPerSecond, double cpuNanosPerTask) {
    boolean slow() {
      return cpuNanosPerTask > SLOW_CPU_NANOS_PER_TASK;
    }
  }

  public static void main(String[] args) throws InterruptedException {
    String executor = args.length > 0 ? args[0] : ExecutorFactory.LANES;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    long tokens = args.length > 2 ? Long.parseLong(args[2]) : 0;
    run(executor, seconds, tokens, System.out);
  }

  /** Runs the probe, printing a line per second and a summary to {@code out}; returns the seconds. */
  static List<Second> run(String executor, int seconds, long tokens, PrintStream out)
      throws InterruptedException {
    if (seconds < 1) {
      throw new IllegalArgumentException("seconds must be ≥ 1, was " + seconds);
    }
    if (tokens < 0) {
      throw new IllegalArgumentException("tokens must be ≥ 0, was " + tokens);
    }
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    List<Second> run = new ArrayList<>();
    try (BenchExecutor pool = ExecutorFactory.create(executor, 2)) {
      out.printf("%s, batches of %,d tasks (%d tokens each), 2 workers%n", executor, BATCH, tokens);
      for (int s = 0; s < seconds; s++) {
        long cpu0 = os.getProcessCpuTime();
        long start = System.nanoTime();
        long end = start + 1_000_000_000L;
        long tasks = 0;
        while (System.nanoTime() < end) {
          if (tokens == 0) {
            Batch.run(pool, BATCH);
          } else {
            Batch.runWork(pool, BATCH, tokens);
          }
          tasks += BATCH;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        Second second =
            new Second(tasks / elapsed, (double) (os.getProcessCpuTime() - cpu0) / tasks);
        run.add(second);
        out.printf("second %2d: %6.2f M tasks/s, %4.0f ns of CPU a task%s%n", s + 1,
            second.tasksPerSecond() / 1e6, second.cpuNanosPerTask(), second.slow() ? "  slow" : "");
      }
    }
    long slow = run.stream().filter(Second::slow).count();
    out.printf("slow seconds (CPU above %.0f ns a task): %d of %d%n",
        SLOW_CPU_NANOS_PER_TASK, slow, run.size());
    return run;
  }
}
