package dev.lanes;

/**
 * How often a lane reads the running thread's CPU time around a task. A read costs a system call
 * (about 0.6–0.7 µs on the machines lanes is developed on), which is why the default samples.
 *
 * <p>On platform lanes every-task timing reads the clock once per task boundary: a worker's
 * reading at the end of one task is the start of the next, so a task's figure also includes the
 * worker's own dequeue work (well under a microsecond of CPU). Virtual threads have no CPU time in
 * the JDK ({@code getCurrentThreadCpuTime()} returns -1), so virtual lanes report none.
 *
 * @param oneIn 0 = off, 1 = every task, n = one task in n per worker
 */
public record CpuTiming(int oneIn) {

  /** The default: one task in 64 per worker. */
  public static final int DEFAULT_SAMPLE = 64;

  public CpuTiming {
    if (oneIn < 0) {
      throw new IllegalArgumentException("cpuTiming oneIn must be ≥ 0, was " + oneIn);
    }
  }

  public static CpuTiming off() {
    return new CpuTiming(0);
  }

  public static CpuTiming everyTask() {
    return new CpuTiming(1);
  }

  /** One task in {@code n} per worker ({@code n ≥ 1}). */
  public static CpuTiming sampled(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("cpuTiming sample must be ≥ 1, was " + n);
    }
    return new CpuTiming(n);
  }

  public static CpuTiming defaults() {
    return new CpuTiming(DEFAULT_SAMPLE);
  }

  public boolean enabled() {
    return oneIn > 0;
  }

  @Override
  public String toString() {
    return oneIn == 0 ? "off" : oneIn == 1 ? "every-task" : "1-in-" + oneIn;
  }
}
