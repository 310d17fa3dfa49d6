package dev.lanes.lab.report;

import java.util.Locale;

/**
 * How the lab writes numbers and durations, everywhere (tables, verdicts, the console): thousands
 * separated by commas, milliseconds with as many decimals as their size needs, durations in the
 * largest unit that keeps them readable.
 */
public final class Format {

  private Format() {}

  /** A time in milliseconds: {@code 1,546}, {@code 35.0}, {@code 0.93}. */
  public static String ms(double ms) {
    return String.format(Locale.ROOT, Math.abs(ms) >= 100 ? "%,.0f" : Math.abs(ms) >= 1 ? "%.1f" : "%.2f", ms);
  }

  /** A count: {@code 1,274}. */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** A duration for people: {@code 850 ms}, {@code 12.4 s}, {@code 2 min 35 s}. */
  public static String duration(long millis) {
    if (millis < 1000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
    long s = Math.round(millis / 1000.0);
    return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
  }

  /** A java.time.Duration for people, as {@link #duration(long)}. */
  public static String duration(java.time.Duration d) {
    return duration(d.toMillis());
  }
}
