package dev.lanes.serve;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A load scenario: bursts of requests at a rate, and pauses, in order. Counts, rates and pauses are
 * bounded, so a scenario's size is known before it starts.
 */
record Scenario(String name, List<Step> steps) {

  static final int MAX_COUNT = 10_000;
  static final int MAX_RATE = 100_000;
  static final long MAX_PAUSE_MS = 60_000;

  /** The scenarios {@code ./lanes load --scenario} knows. */
  static final List<String> NAMES = List.of("noisy-neighbour");

  Scenario {
    steps = List.copyOf(steps);
  }

  /** One step: a burst ({@code count} GETs of {@code path} at {@code rate} per second) or a pause. */
  record Step(String endpoint, String pathAndQuery, int count, int rate, long pauseMs) {

    static Step burst(String endpoint, String pathAndQuery, int count, int rate) {
      requireRange("count", count, 1, MAX_COUNT);
      requireRange("rate", rate, 1, MAX_RATE);
      return new Step(endpoint, pathAndQuery, count, rate, 0);
    }

    static Step pause(long ms) {
      requireRange("pause", ms, 0, MAX_PAUSE_MS);
      return new Step(null, null, 0, 0, ms);
    }

    boolean isPause() {
      return endpoint == null;
    }

    String describe() {
      return isPause()
          ? "pause " + pauseMs + " ms"
          : count + " x GET " + pathAndQuery + " at " + rate + "/s";
    }
  }

  /**
   * A burst of slow requests, a pause, then a burst of fast ones: on one shared pool the fast
   * requests wait behind the slow ones; on lanes they do not.
   */
  static Scenario noisyNeighbour(int slowCount, long slowMs, int slowRate, long pauseMs, int fastCount, int fastRate) {
    requireRange("slow-ms", slowMs, 0, EndpointWork.MAX_MS);
    List<Step> steps = new ArrayList<>();
    steps.add(Step.burst("/slow", "/slow?ms=" + slowMs, slowCount, slowRate));
    steps.add(Step.pause(pauseMs));
    steps.add(Step.burst("/fast", "/fast", fastCount, fastRate));
    return new Scenario("noisy-neighbour", steps);
  }

  int requests() {
    return steps.stream().mapToInt(Step::count).sum();
  }

  /** Endpoints in the order they first appear. */
  List<String> endpoints() {
    List<String> out = new ArrayList<>();
    for (Step s : steps) {
      if (!s.isPause() && !out.contains(s.endpoint())) {
        out.add(s.endpoint());
      }
    }
    return out;
  }

  String describe() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < steps.size(); i++) {
      b.append(String.format(Locale.ROOT, "%s%d. %s", i == 0 ? "" : "   ", i + 1, steps.get(i).describe()));
    }
    return b.toString();
  }

  private static void requireRange(String what, long v, long min, long max) {
    if (v < min || v > max) {
      throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + v);
    }
  }
}
