package dev.lanes.lab.support;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** Heap figures from the {@link MemoryMXBean}. */
public final class Heap {

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private Heap() {}

  /** Used heap in MB now (includes garbage not yet collected). */
  public static double usedMb() {
    return MEMORY.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
  }

  /** Asks for a full collection, so the next reading starts from live data. */
  public static void settle() {
    MEMORY.gc();
  }
}
