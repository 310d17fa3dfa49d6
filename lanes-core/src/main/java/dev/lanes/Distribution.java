package dev.lanes;

import java.util.concurrent.TimeUnit;

/**
 * Summary of one timing over many tasks, in nanoseconds. Percentiles come from an HdrHistogram
 * with two significant digits (within 1 %); mean and max are exact.
 *
 * @param count how many tasks were measured; 0 for {@link #EMPTY}
 * @param mean the mean, in nanoseconds
 * @param p50 the median, in nanoseconds
 * @param p90 the 90th percentile, in nanoseconds
 * @param p99 the 99th percentile, in nanoseconds
 * @param max the largest value, in nanoseconds; no percentile is above it
 */
public record Distribution(long count, double mean, long p50, long p90, long p99, long max) {

  /** No tasks measured: the count and every figure are 0. */
  public static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0);

  /** {@return true if no task was measured ({@code count} is 0)} */
  public boolean isEmpty() {
    return count == 0;
  }

  /** {@return the mean, in milliseconds} */
  public double meanMillis() {
    return mean / 1e6;
  }

  /** {@return the median, in milliseconds} */
  public double p50Millis() {
    return p50 / 1e6;
  }

  /** {@return the 90th percentile, in milliseconds} */
  public double p90Millis() {
    return p90 / 1e6;
  }

  /** {@return the 99th percentile, in milliseconds} */
  public double p99Millis() {
    return p99 / 1e6;
  }

  /** {@return the largest value, in milliseconds} */
  public double maxMillis() {
    return max / 1e6;
  }

  /**
   * A percentile field converted, for tables: {@code in(TimeUnit.MICROSECONDS, p99())}.
   *
   * @param unit the unit to convert to
   * @param nanos a figure in nanoseconds, such as {@link #p99()}
   * @return {@code nanos} in {@code unit}, with a fraction (not truncated)
   * @throws NullPointerException if {@code unit} is null
   */
  public static double in(TimeUnit unit, long nanos) {
    return (double) nanos / unit.toNanos(1);
  }
}
