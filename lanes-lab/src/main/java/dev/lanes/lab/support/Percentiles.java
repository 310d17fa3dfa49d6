package dev.lanes.lab.support;

import java.util.Arrays;
import java.util.Collection;

/** Exact percentiles of a small list of values (nearest rank). */
public final class Percentiles {

  private Percentiles() {}

  /** The {@code p}-th percentile (0–100) by nearest rank, or 0 for no values. */
  public static double of(Collection<Double> values, double p) {
    if (values.isEmpty()) {
      return 0;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  public static double mean(Collection<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }
}
