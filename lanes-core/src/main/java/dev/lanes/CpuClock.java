package dev.lanes;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** The current thread's CPU time, or -1 where the JVM cannot tell (virtual threads, some VMs). */
final class CpuClock {
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  private static final boolean SUPPORTED = supported();

  private CpuClock() {}

  private static boolean supported() {
    try {
      if (!MX.isCurrentThreadCpuTimeSupported()) {
        return false;
      }
      if (!MX.isThreadCpuTimeEnabled()) {
        MX.setThreadCpuTimeEnabled(true);
      }
      return MX.getCurrentThreadCpuTime() >= 0;
    } catch (UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  static boolean isSupported() {
    return SUPPORTED;
  }

  static long now() {
    return SUPPORTED ? MX.getCurrentThreadCpuTime() : -1;
  }
}
