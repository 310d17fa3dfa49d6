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
 * <p>Before each second's batches it measures, for {@value #ROUND_TRIP_MILLIS} ms, how long a
 * cache line takes to go from one spinning thread to another and back ({@link #lineRoundTrip}):
 * on a virtual machine that figure moves as the host moves its virtual CPUs, and the summary
 * compares the CPU per task of the seconds whose round trip was {@value #FAR_ROUND_TRIP_NANOS} ns
 * or more with the others' (BENCHMARKS.md, "Issue #27: four producers, where the time goes").
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

  /** How long each second's cache-line round trip is measured. */
  static final int ROUND_TRIP_MILLIS = 200;

  /** A round trip from this many nanoseconds on is a "far" one in the summary. */
  static final int FAR_ROUND_TRIP_NANOS = 300;

  private static final int BATCH = ThroughputBenchmark.BATCH;

  private SlowStateProbe() {}

  /**
   * One second of the run: tasks per second, the JVM's CPU nanoseconds per task, and the cache-line
   * round trip measured just before it.
   */
  record Second(double tasksPerSecond, double cpuNanosPerTask, double roundTripNanos) {
    boolean slow() {
      return cpuNanosPerTask > SLOW_CPU_NANOS_PER_TASK;
    }

    boolean far() {
      return roundTripNanos >= FAR_ROUND_TRIP_NANOS;
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
        double roundTrip = lineRoundTrip(ROUND_TRIP_MILLIS * 1_000_000L);
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
        Second second = new Second(tasks / elapsed,
            (double) (os.getProcessCpuTime() - cpu0) / tasks, roundTrip);
        run.add(second);
        out.printf("second %2d: %6.2f M tasks/s, %4.0f ns of CPU a task, line round trip %4.0f ns%s%n",
            s + 1, second.tasksPerSecond() / 1e6, second.cpuNanosPerTask(),
            second.roundTripNanos(), second.slow() ? "  slow" : "");
      }
    }
    long slow = run.stream().filter(Second::slow).count();
    out.printf("slow seconds (CPU above %.0f ns a task): %d of %d%n",
        SLOW_CPU_NANOS_PER_TASK, slow, run.size());
    out.printf("seconds after a far round trip (%d ns or more): %d, CPU a task %s; the others %s%n",
        FAR_ROUND_TRIP_NANOS, run.stream().filter(Second::far).count(),
        meanCpu(run.stream().filter(Second::far).toList()),
        meanCpu(run.stream().filter(x -> !x.far()).toList()));
    return run;
  }

  private static String meanCpu(List<Second> seconds) {
    return seconds.isEmpty() ? "-" : String.format("%.0f ns",
        seconds.stream().mapToDouble(Second::cpuNanosPerTask).average().orElseThrow());
  }

  /** Round trips timed together; the figure is the median chunk's time ÷ this. */
  static final int TRIPS_PER_CHUNK = 64;

  private static final int MAX_CHUNKS = 16_384;

  /**
   * Nanoseconds for one cache line to go from this thread to another spinning thread and back
   * (the other answers each value it sees with the next): the median over chunks of {@value
   * #TRIPS_PER_CHUNK} trips, measured for about {@code nanos} (or until {@value #MAX_CHUNKS}
   * chunks), so that a chunk in which either thread waited for a core (the JIT, the collector,
   * another process) does not stand for the line's trip. The other thread is joined before this
   * returns. On a machine of one core each trip waits for the scheduler, so the figure is large
   * there, and the measuring still ends: the time is looked at while waiting too. NaN if not one
   * chunk completed.
   */
  static double lineRoundTrip(long nanos) throws InterruptedException {
    if (nanos <= 0) {
      throw new IllegalArgumentException("nanos must be > 0, was " + nanos);
    }
    java.util.concurrent.atomic.AtomicLong line = new java.util.concurrent.atomic.AtomicLong();
    Thread answerer = Thread.ofPlatform().name("line-round-trip").daemon(true).start(() -> {
      for (long expect = 1; ; ) {
        long seen = line.get();
        if (seen < 0) {
          return;
        }
        if (seen == expect) {
          // a CAS, not a store: the measuring thread may have written the stop (-1) since the
          // read, and the stop must not be written over (the join below would wait for ever)
          if (line.compareAndSet(expect, expect + 1)) {
            expect += 2;
          }
        } else {
          Thread.onSpinWait();
        }
      }
    });
    long[] chunks = new long[MAX_CHUNKS];
    int n = 0;
    long deadline = System.nanoTime() + nanos;
    try {
      long v = 0;
      measuring:
      while (n < MAX_CHUNKS) {
        long chunkStart = System.nanoTime();
        if (chunkStart >= deadline) {
          break;
        }
        for (int trip = 0; trip < TRIPS_PER_CHUNK; trip++, v += 2) {
          line.set(v + 1);
          for (int spins = 0; line.get() != v + 2; spins++) {
            if ((spins & 1023) == 1023 && System.nanoTime() > deadline) {
              break measuring;
            }
            Thread.onSpinWait();
          }
        }
        chunks[n++] = System.nanoTime() - chunkStart;
      }
    } finally {
      line.set(-1);
      answerer.join();
    }
    if (n == 0) {
      return Double.NaN;
    }
    java.util.Arrays.sort(chunks, 0, n);
    return chunks[n / 2] / (double) TRIPS_PER_CHUNK;
  }
}
