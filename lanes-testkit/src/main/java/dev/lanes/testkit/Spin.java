package dev.lanes.testkit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

/** Busy work for tests that need a task to compute rather than wait. */
public final class Spin {
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  private Spin() {}

  /** Spins on the CPU for about {@code millis} of wall time; returns a value to keep it alive. */
  public static long millis(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + 17) ^ x;
    }
    return x;
  }

  /** Spins until this thread has used {@code millis} of CPU time, however long that takes. */
  public static long cpuMillis(long millis) {
    long end = MX.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (MX.getCurrentThreadCpuTime() < end) {
      for (int i = 0; i < 1_000; i++) {
        x += Long.numberOfTrailingZeros(x + 17) ^ x;
      }
    }
    return x;
  }
}
