package dev.lanes.alerts;

import java.util.Locale;

/** Durations for people: the unit follows the size. */
final class Durations {
  private Durations() {}

  static String human(double nanos) {
    double abs = Math.abs(nanos);
    if (abs < 1e3) {
      return String.format(Locale.ROOT, "%.0f ns", nanos);
    }
    if (abs < 1e6) {
      return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
    }
    if (abs < 1e9) {
      return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }
}
