package dev.lanes.advisor;


/** Busy work for the advisor's tests. */
final class Work {
  private Work() {}

  /** Spins on the CPU for about {@code millis} of wall time. */
  static long spinMillis(long millis) {
    return dev.lanes.testkit.Spin.millis(millis);
  }

  /** Spins until this thread has used {@code millis} of CPU time (however long that takes). */
  static long spinCpuMillis(long millis) {
    return dev.lanes.testkit.Spin.cpuMillis(millis);
  }
}
