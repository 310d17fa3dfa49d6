package dev.lanes.testkit;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A hang guard for a CPU-bound check (a model checker) that follows the work done, not the wall
 * clock. Beside a CPU hog such a check takes as much longer as the machine is busy, so a
 * wall-clock timeout fails a check that was progressing; but a hung check shows either as a
 * <b>stall</b> (the JVM uses next to no CPU over a whole window: every thread of the check parked
 * or blocked) or as a <b>livelock</b> (the JVM used far more CPU than the check needs: its budget).
 * Neither depends on how busy the machine is, unless it is so busy that the JVM gets less than
 * {@code minCpu} per {@code window} (1 s per minute by default: a load of over 100 on 2 cores).
 *
 * <p>Concurrency: the check runs on its own daemon thread, started and joined here; the caller
 * samples the process's CPU time ({@code com.sun.management.OperatingSystemMXBean}) every
 * {@link #POLL} while it waits. The thread's end happens-before {@code run} returns or rethrows
 * what the check threw. On a stall or an exhausted budget the guard prints a thread dump
 * ({@link HangGuard#threadDump()}) to standard error, interrupts the check, gives it {@link
 * #POLL} to end, and fails; a check that ignores interrupts is left behind, a daemon.
 */
public final class ProgressGuard {
  /** How often the CPU time is sampled. */
  public static final Duration POLL = Duration.ofSeconds(1);
  /** The default stall window: the JVM used less than {@link #DEFAULT_MIN_CPU} in this long. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
  /** The default least CPU time a progressing check uses per window. */
  public static final Duration DEFAULT_MIN_CPU = Duration.ofSeconds(1);

  private final String what;
  private final Duration cpuBudget;
  private final Duration window;
  private final Duration minCpu;

  private ProgressGuard(String what, Duration cpuBudget, Duration window, Duration minCpu) {
    this.what = what;
    this.cpuBudget = cpuBudget;
    this.window = window;
    this.minCpu = minCpu;
  }

  /**
   * Runs {@code check} and returns when it ended; rethrows what it threw (an {@link Error} or a
   * {@link RuntimeException} as it was; anything else wrapped). Fails with an {@link
   * AssertionError} once the JVM used {@code cpuBudget} of CPU since the start, or used less than
   * 1 s of CPU in a minute.
   */
  public static void run(String what, Duration cpuBudget, Runnable check) {
    run(what, cpuBudget, DEFAULT_WINDOW, DEFAULT_MIN_CPU, check);
  }

  /** {@link #run(String, Duration, Runnable)} with its own stall window and least CPU per window. */
  public static void run(String what, Duration cpuBudget, Duration window, Duration minCpu,
      Runnable check) {
    if (cpuBudget.isNegative() || cpuBudget.isZero() || window.compareTo(POLL) < 0
        || minCpu.isNegative() || minCpu.compareTo(window) >= 0) {
      throw new IllegalArgumentException("progress guard \"" + what + "\": needs a positive CPU"
          + " budget, a window of at least " + POLL + " and a least CPU under the window; was budget "
          + cpuBudget + ", window " + window + ", least CPU " + minCpu);
    }
    new ProgressGuard(what, cpuBudget, window, minCpu).guard(check);
  }

  private record Sample(long wallNanos, long cpuNanos) {}

  private void guard(Runnable check) {
    Throwable[] thrown = new Throwable[1];
    Thread runner = Thread.ofPlatform().daemon().name("guarded " + what).unstarted(() -> {
      try {
        check.run();
      } catch (Throwable t) {
        thrown[0] = t;
      }
    });
    long startWall = System.nanoTime();
    long startCpu = processCpuNanos();
    ArrayDeque<Sample> recent = new ArrayDeque<>();
    recent.add(new Sample(startWall, startCpu));
    runner.start();
    try {
      while (!runner.join(POLL)) {
        Sample now = new Sample(System.nanoTime(), processCpuNanos());
        recent.addLast(now);
        while (now.wallNanos - recent.getFirst().wallNanos > window.toNanos() + POLL.toNanos()) {
          recent.removeFirst(); // keep one sample at least a window old
        }
        long used = now.cpuNanos - startCpu;
        Sample windowStart = recent.getFirst();
        boolean fullWindow = now.wallNanos - windowStart.wallNanos >= window.toNanos();
        if (used > cpuBudget.toNanos()) {
          fail(runner, "used " + seconds(used) + " of CPU, past its budget of "
              + seconds(cpuBudget.toNanos()) + ", in " + seconds(now.wallNanos - startWall)
              + " wall: a livelock, or it needs more than its budget");
        } else if (fullWindow && now.cpuNanos - windowStart.cpuNanos < minCpu.toNanos()) {
          fail(runner, "made no progress: the JVM used " + seconds(now.cpuNanos - windowStart.cpuNanos)
              + " of CPU in the last " + seconds(now.wallNanos - windowStart.wallNanos)
              + " (less than " + seconds(minCpu.toNanos()) + "), " + seconds(used) + " in all"
              + " over " + seconds(now.wallNanos - startWall) + ": hung");
        }
      }
    } catch (InterruptedException e) {
      runner.interrupt();
      Thread.currentThread().interrupt();
      throw new AssertionError("progress guard \"" + what + "\": interrupted while waiting", e);
    }
    System.out.println("progress guard \"" + what + "\": " + seconds(processCpuNanos() - startCpu)
        + " of CPU (budget " + seconds(cpuBudget.toNanos()) + "), "
        + seconds(System.nanoTime() - startWall) + " wall");
    Throwable t = thrown[0];
    if (t instanceof Error e) {
      throw e;
    } else if (t instanceof RuntimeException e) {
      throw e;
    } else if (t != null) {
      throw new IllegalStateException(t);
    }
  }

  private void fail(Thread runner, String why) throws InterruptedException {
    System.err.println("=== lanes ProgressGuard: \"" + what + "\" " + why
        + "; thread dump follows ===");
    System.err.println(HangGuard.threadDump());
    runner.interrupt();
    runner.join(POLL);
    throw new AssertionError("\"" + what + "\" " + why + " (thread dump on standard error)");
  }

  private static String seconds(long nanos) {
    return String.format("%.1f s", nanos / (double) TimeUnit.SECONDS.toNanos(1));
  }

  /** The CPU time all the JVM's threads used so far, in nanoseconds. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
