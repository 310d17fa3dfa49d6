package dev.lanes.bench;

import org.openjdk.jmh.infra.Blackhole;

/** CPU work of a fixed size for the work-sized benchmark (JMH's {@code consumeCPU} loop). */
public final class Work {

  /**
   * Tokens of {@link Blackhole#consumeCPU} that took 10–14 µs on the machine of BENCHMARKS.md
   * (measured in each run by {@code TaskSizeBenchmark.workSizedTask}: 10.0 and 14.0 µs in the two
   * full runs of issue #11); a fixed number, so every executor and every run gets the same work.
   */
  public static final long TEN_MICROS_TOKENS = 6_100;

  private Work() {}

  public static void spin(long tokens) {
    Blackhole.consumeCPU(tokens);
  }
}
