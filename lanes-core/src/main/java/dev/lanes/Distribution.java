package dev.lanes;

import java.util.concurrent.TimeUnit;

/**
 * Summary of one timing over many tasks, in nanoseconds. Percentiles come from an HdrHistogram
 * with two significant digits (within 1 %); mean and max are exact.
 */
public record Distribution(long count, double mean, long p50, long p90, long p99, long max) {

  public static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0);

  public boolean isEmpty() {
    return count == 0;
  }

  public double meanMillis() {
    return mean / 1e6;
  }

  public double p50Millis() {
    return p50 / 1e6;
  }

  public double p90Millis() {
    return p90 / 1e6;
  }

  public double p99Millis() {
    return p99 / 1e6;
  }

  public double maxMillis() {
    return max / 1e6;
  }

  /** A percentile field converted, for tables: {@code in(TimeUnit.MICROSECONDS, p99())}. */
  public static double in(TimeUnit unit, long nanos) {
    return (double) nanos / unit.toNanos(1);
  }
}
