package dev.lanes.testkit;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A hang guard for a CPU-bound check (a model checker) that follows the work done, not the wall
 * clock. Beside a CPU hog such a check takes as much longer as the machine is busy, so a
 * wall-clock timeout fails a check that was progressing; but a hung check shows either as a
 * <b>stall</b> (none of its threads was runnable for a whole window: all parked, waiting or
 * blocked) or as a <b>livelock</b> (the JVM used far more CPU than the check needs: its budget).
 * Neither depends on how busy the machine is: a thread waiting for a core is runnable, and CPU
 * time counts only the time the JVM ran.
 *
 * <p>Concurrency: the check runs on its own daemon thread in a thread group of its own, started
 * and joined here; the threads it starts join that group (the JDK's default), so they are its
 * threads. The caller samples their states and the process's CPU time ({@code
 * com.sun.management.OperatingSystemMXBean}) every {@link #POLL} while it waits. The check
 * thread's end happens-before {@code run} returns or rethrows what the check threw. On a stall or
 * an exhausted budget the guard prints a thread dump ({@link HangGuard#threadDump()}) to standard
 * error, interrupts the check, gives it {@link #POLL} to end, and fails; a check that ignores
 * interrupts is left behind, a daemon.
 */
public final class ProgressGuard {
  /** How often the check's threads and the CPU time are sampled. */
  public static final Duration POLL = Duration.ofSeconds(1);
  /** The default stall window: none of the check's threads was runnable for this long. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

  private final String what;
  private final Duration cpuBudget;
  private final Duration window;

  private ProgressGuard(String what, Duration cpuBudget, Duration window) {
    this.what = what;
    this.cpuBudget = cpuBudget;
    this.window = window;
  }

  /**
   * Runs {@code check} and returns when it ended; rethrows what it threw (an {@link Error} or a
   * {@link RuntimeException} as it was; anything else wrapped). Fails with an {@link
   * AssertionError} once the JVM used {@code cpuBudget} of CPU since the start, or when none of
   * the check's threads was runnable for a minute.
   */
  public static void run(String what, Duration cpuBudget, Runnable check) {
    run(what, cpuBudget, DEFAULT_WINDOW, check);
  }

  /** {@link #run(String, Duration, Runnable)} with its own stall window. */
  public static void run(String what, Duration cpuBudget, Duration window, Runnable check) {
    if (cpuBudget.isNegative() || cpuBudget.isZero() || window.compareTo(POLL) < 0) {
      throw new IllegalArgumentException("progress guard \"" + what + "\": needs a positive CPU"
          + " budget and a window of at least " + POLL + "; was budget " + cpuBudget + ", window "
          + window);
    }
    new ProgressGuard(what, cpuBudget, window).guard(check);
  }

  private void guard(Runnable check) {
    Throwable[] thrown = new Throwable[1];
    ThreadGroup threads = new ThreadGroup("guarded " + what);
    Thread runner = new Thread(threads, () -> {
      try {
        check.run();
      } catch (Throwable t) {
        thrown[0] = t;
      }
    }, "guarded " + what);
    runner.setDaemon(true);
    long startWall = System.nanoTime();
    long startCpu = processCpuNanos();
    long lastRunnable = startWall;
    runner.start();
    try {
      while (!runner.join(POLL)) {
        long now = System.nanoTime();
        long used = processCpuNanos() - startCpu;
        if (anyRunnable(threads)) {
          lastRunnable = now;
        }
        if (used > cpuBudget.toNanos()) {
          fail(runner, "used " + seconds(used) + " of CPU, past its budget of "
              + seconds(cpuBudget.toNanos()) + ", in " + seconds(now - startWall)
              + " wall: a livelock, or it needs more than its budget");
        } else if (now - lastRunnable >= window.toNanos()) {
          fail(runner, "made no progress: none of its threads was runnable for "
              + seconds(now - lastRunnable) + " (" + seconds(used) + " of CPU used over "
              + seconds(now - startWall) + "): hung");
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

  /** Whether a live thread of the group runs or waits for a core (not parked, waiting, blocked). */
  private static boolean anyRunnable(ThreadGroup group) {
    Thread[] live = new Thread[group.activeCount() + 8];
    int n = group.enumerate(live, true);
    for (int i = 0; i < n; i++) {
      if (live[i].getState() == Thread.State.RUNNABLE) {
        return true;
      }
    }
    return false;
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
