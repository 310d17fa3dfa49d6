package dev.lanes.advisor;

import java.util.concurrent.TimeUnit;

/** Busy work for the advisor's tests. */
final class Work {
  private Work() {}

  /** Spins on the CPU for about {@code millis} of wall time. */
  static long spinMillis(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + 17) ^ x;
    }
    return x;
  }

  /** Spins until this thread has used {@code millis} of CPU time (however long that takes). */
  static long spinCpuMillis(long millis) {
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long end = mx.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long x = 0;
    while (mx.getCurrentThreadCpuTime() < end) {
      for (int i = 0; i < 1_000; i++) {
        x += Long.numberOfTrailingZeros(x + 17) ^ x;
      }
    }
    return x;
  }
}
