package dev.lanes.adapt;

import java.util.ArrayDeque;

/**
 * The adaptive limit's control law, apart from any lane or thread: it is fed run-time samples
 * and, when a window of them is full, decides a new limit from them and the lane's demand. The
 * law is described in DESIGN.md ("The adaptive limit").
 *
 * <p>Concurrency: none of its own. It is not thread-safe; {@link AdaptiveLimit} calls it only
 * while holding its lock, which also publishes its state from one deciding thread to the next.
 */
final class ControlLaw {

  /** Weight of a window's mean in the smoothed run time whose minimum is the baseline. */
  static final double BASELINE_SMOOTHING = 0.2;

  /** A decision: the new limit (equal to the old when nothing changes) and its figures. */
  record Decision(
      int from, int to, LimitChange.Reason reason, int samples, long recentRunNanos,
      long baselineRunNanos) {
    boolean changed() {
      return to != from;
    }
  }

  private record Point(long atNanos, double runNanos) {}

  private final AdaptiveSettings settings;
  private final long horizonNanos;
  private final int maxLimit;
  private final long minRiseNanos;

  private boolean probing = true;
  /** Samples of tasks that started before this instant are ignored after probing: they ran under an older limit. */
  private long lastChangeNanos = Long.MIN_VALUE;
  /** The latest samples (at most samplesPerDecision), a ring; their mean is the recent run time. */
  private final double[] ring;
  private int ringCount;
  private int ringNext;
  private double ringSum;
  /** Samples taken since the last decision. */
  private int sinceDecision;
  private double smoothed = Double.NaN;
  /** The recent run time that made the last cut, until the first window after it is judged; NaN otherwise. */
  private double runAtCut = Double.NaN;
  /** Smoothed run times within the horizon, increasing from head to tail; the head is the baseline. */
  private final ArrayDeque<Point> minima = new ArrayDeque<>();

  /**
   * @param maxLimit the upper bound in force: the settings' maxLimit, or less if the lane allows
   *     less
   */
  ControlLaw(AdaptiveSettings settings, int maxLimit) {
    this.settings = settings;
    this.horizonNanos = settings.baselineHorizon().toNanos();
    this.maxLimit = maxLimit;
    this.minRiseNanos = settings.minRunTimeRise().toNanos();
    this.ring = new double[settings.samplesPerDecision()];
  }

  boolean probing() {
    return probing;
  }

  /** Samples taken since the last decision. */
  int windowCount() {
    return sinceDecision;
  }

  /**
   * Takes one run-time sample.
   *
   * @return true when the window is full and {@link #decide} is due
   */
  boolean add(long startedNanos, long runNanos) {
    if (!probing && lastChangeNanos != Long.MIN_VALUE && startedNanos - lastChangeNanos < 0) {
      return false; // started under an older limit: says nothing about this one
    }
    double v = Math.max(0, runNanos);
    if (ringCount == ring.length) {
      ringSum -= ring[ringNext];
    } else {
      ringCount++;
    }
    ring[ringNext] = v;
    ringSum += v;
    ringNext = (ringNext + 1) % ring.length;
    sinceDecision++;
    return sinceDecision >= (probing ? settings.probeSamples() : settings.samplesPerDecision());
  }

  /**
   * Decides from the full window and empties it.
   *
   * @param now the lane's ticker now (the end of the last sample)
   * @param limit the limit in force
   * @param running the lane's running tasks now
   * @param queued the lane's queued tasks now
   */
  Decision decide(long now, int limit, int running, int queued) {
    if (sinceDecision == 0) {
      return new Decision(limit, limit, null, 0, 0, 0);
    }
    int samples = ringCount;
    double recent = ringSum / samples;
    sinceDecision = 0;
    if (!Double.isNaN(runAtCut)) {
      // The first window run wholly under the cut limit. If run time did not fall at all, the
      // rise was not caused by this lane's calls in flight (the resource slowed for everyone):
      // cutting further would only starve the lane, so today's run time becomes the baseline.
      if (recent >= runAtCut) {
        minima.clear();
        smoothed = recent;
      }
      runAtCut = Double.NaN;
    }
    smoothed = Double.isNaN(smoothed) ? recent : smoothed + BASELINE_SMOOTHING * (recent - smoothed);
    double baseline = baseline(now, smoothed);
    int min = settings.minLimit();
    int to = limit;
    LimitChange.Reason reason = null;
    if (samples == ring.length
        && recent > baseline * (1 + settings.runTimeTolerance())
        && recent - baseline >= minRiseNanos) {
      // Congested: at the same work per task, run time grows with the calls in flight beyond
      // what the resource serves at once, so limit × baseline ÷ recent estimates what it serves.
      double target = limit * baseline / recent;
      double next = limit - settings.smoothing() * (limit - target);
      to = Math.max(min, Math.min(limit - 1, (int) Math.floor(next)));
      reason = LimitChange.Reason.CUT;
      probing = false;
      runAtCut = recent;
    } else if (queued > 0 && limit < maxLimit) {
      // Flat run time and tasks waiting in line: more in flight is likely to be served as fast.
      // Never beyond the demand seen now (running + queued): a limit nobody can use is no signal.
      long demand = (long) running + queued;
      long grown = probing
          ? (long) Math.ceil(limit * settings.growthFactor())
          : limit + Math.max(1, limit / 16);
      to = (int) Math.min(maxLimit, Math.min(grown, Math.max(demand, limit)));
      reason = probing ? LimitChange.Reason.PROBE : LimitChange.Reason.GROW;
    }
    to = Math.max(min, Math.min(maxLimit, to));
    if (to != limit) {
      lastChangeNanos = now;
      if (!probing) {
        clearRing(); // the next decision sees only tasks that ran under the new limit
      }
    }
    return new Decision(limit, to, to != limit ? reason : null, samples, Math.round(recent),
        Math.round(baseline));
  }

  private void clearRing() {
    ringCount = 0;
    ringNext = 0;
    ringSum = 0;
  }

  /** Adds the smoothed run time at {@code now} and returns the lowest within the horizon. */
  private double baseline(long now, double value) {
    while (!minima.isEmpty() && minima.peekLast().runNanos() >= value) {
      minima.pollLast();
    }
    minima.addLast(new Point(now, value));
    while (now - minima.peekFirst().atNanos() > horizonNanos) {
      minima.pollFirst();
    }
    return minima.peekFirst().runNanos();
  }
}
