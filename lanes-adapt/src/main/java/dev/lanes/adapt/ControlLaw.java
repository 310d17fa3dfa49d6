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

  /**
   * Decisions are at least this far apart (on the lane's ticker): tasks of microseconds would
   * otherwise make the controller read the lane's stats every few tasks. Samples that arrive
   * meanwhile are not lost: they count in the next decision, and while probing the limit grows by
   * the growth factor once per {@code probeSamples} of them.
   */
  static final long MIN_DECISION_SPACING_NANOS = 500_000;

  /**
   * At or above the capacity the last cut estimated, the limit grows only on every this-many-th
   * decision that would grow it: it has to step past the capacity to find it again, but should
   * spend little time there (TCP's congestion avoidance above its threshold, in spirit).
   */
  static final int SLOW_GROWTH_EVERY = 4;

  /** Full windows the smoothed run time takes in before its values count as minima. */
  static final int BASELINE_WARMUP_WINDOWS = 5;

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
  private long lastDecisionNanos = Long.MIN_VALUE;
  /** The latest samples (at most samplesPerDecision), a ring; their mean is the recent run time. */
  private final double[] ring;
  private int ringCount;
  private int ringNext;
  private double ringSum;
  /** Samples taken since the last decision. */
  private int sinceDecision;
  private double smoothed = Double.NaN;
  private int fullWindows;
  /** The capacity the last cut estimated (limit × baseline ÷ recent); 0 before any cut. */
  private int estimatedCapacity;
  /** Decisions that would have grown the limit at or above the estimated capacity, since it last grew there. */
  private int heldGrowths;
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
  boolean add(long startedNanos, long endedNanos, long runNanos) {
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
    return sinceDecision >= (probing ? settings.probeSamples() : settings.samplesPerDecision())
        && (lastDecisionNanos == Long.MIN_VALUE
            || endedNanos - lastDecisionNanos >= MIN_DECISION_SPACING_NANOS);
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
    int fresh = sinceDecision;
    sinceDecision = 0;
    lastDecisionNanos = now;
    // Only a full window feeds the baseline: the first few tasks to end are the shortest of
    // those that started together, and a baseline seeded by them would make every later window
    // look congested.
    boolean full = samples == ring.length;
    double baseline = Double.NaN;
    if (full) {
      smoothed = Double.isNaN(smoothed) ? recent : smoothed + BASELINE_SMOOTHING * (recent - smoothed);
      // The smoothed figure needs a few windows to forget where it started; until then it is the
      // baseline itself, and it is not remembered as a minimum.
      baseline = ++fullWindows > BASELINE_WARMUP_WINDOWS ? baseline(now, smoothed)
          : minima.isEmpty() ? smoothed : Math.min(smoothed, minima.peekFirst().runNanos());
    } else if (!minima.isEmpty()) {
      baseline = minima.peekFirst().runNanos();
    }
    int min = settings.minLimit();
    int to = limit;
    LimitChange.Reason reason = null;
    if (full
        && recent > baseline * (1 + settings.runTimeTolerance())
        && recent - baseline >= minRiseNanos) {
      // Congested: at the same work per task, run time grows with the calls in flight beyond
      // what the resource serves at once, so limit × baseline ÷ recent estimates what it serves.
      double target = limit * baseline / recent;
      double next = limit - settings.smoothing() * (limit - target);
      to = Math.max(min, Math.min(limit - 1, (int) Math.floor(next)));
      reason = LimitChange.Reason.CUT;
      probing = false;
      estimatedCapacity = Math.max(1, (int) Math.round(target));
      heldGrowths = 0;
    } else if (queued > 0 && limit < maxLimit) {
      // Flat run time and tasks waiting in line: more in flight is likely to be served as fast.
      // Never beyond the demand seen now (running + queued): a limit nobody can use is no signal.
      long demand = (long) running + queued;
      // While probing: the growth factor once per probeSamples fresh samples (several at once
      // when many tasks ended since the last decision, e.g. a burst ending together).
      double steps = Math.max(1, fresh / settings.probeSamples());
      long grown = probing
          ? (long) Math.min(Integer.MAX_VALUE, Math.ceil(limit * Math.pow(settings.growthFactor(), steps)))
          : limit + Math.max(1, limit / 16);
      to = (int) Math.min(maxLimit, Math.min(grown, Math.max(demand, limit)));
      reason = probing ? LimitChange.Reason.PROBE : LimitChange.Reason.GROW;
      if (!probing && to > limit && limit >= estimatedCapacity && ++heldGrowths < SLOW_GROWTH_EVERY) {
        to = limit; // at or above the last estimate of the capacity: grow on every 4th only
      } else if (to > limit && limit >= estimatedCapacity) {
        heldGrowths = 0;
      }
    }
    to = Math.max(min, Math.min(maxLimit, to));
    if (to != limit) {
      lastChangeNanos = now;
      if (!probing) {
        clearRing(); // the next decision sees only tasks that ran under the new limit
      }
    }
    return new Decision(limit, to, to != limit ? reason : null, samples, Math.round(recent),
        Double.isNaN(baseline) ? 0 : Math.round(baseline));
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
