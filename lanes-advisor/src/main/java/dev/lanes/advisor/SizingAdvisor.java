package dev.lanes.advisor;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.LaneKind;
import dev.lanes.LaneStats;
import dev.lanes.Timings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a lane's measured figures into a recommended size.
 *
 * <ul>
 *   <li>Blocking and virtual lanes: concurrency ≈ cores × target utilisation × (1 + W/C), where
 *       W/C is the measured blocking ratio, capped at {@code maxConcurrency}. When the tasks
 *       mostly wait (W/C above {@link LaneStats#BLOCKING_WC}) and that asks for more than twice
 *       the concurrency now, a caution says the formula assumes the thing waited on scales, and
 *       gives what the measured load needs by Little's law. Without CPU
 *       figures (virtual threads have none), Little's law on the concurrency the load needs:
 *       arrival rate × mean run time ÷ target utilisation.
 *   <li>CPU lanes: concurrency ≈ cores; a concurrency above the cores on CPU-bound tasks is
 *       flagged (context switches buy nothing).
 *   <li>Queue capacity, for every lane: Little's law, arrival rate × acceptable wait.
 *   <li>A lane whose tasks split into CPU-bound and blocking groups (by label, when a {@link
 *       LabelWatch} summed them, or by per-task W/C) is flagged with a suggestion to split it.
 *   <li>Too few samples: no recommendation, and the reasoning says how many there are and how
 *       many are needed.
 * </ul>
 *
 * @param targetUtilisation the CPU utilisation to size for (0 to 1]
 * @param acceptableWait the queue wait a task may suffer at the measured arrival rate
 * @param minSamples the fewest measured tasks (CPU-sampled, where W/C is used) to advise on
 * @param maxConcurrency upper bound on a recommendation
 *
 * <pre>{@code
 * SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), cores);
 * System.out.println(a.toText());
 * }</pre>
 */
public record SizingAdvisor(
    double targetUtilisation, Duration acceptableWait, long minSamples, int maxConcurrency) {

  /**
   * Labels whose W/C differ by this factor (the higher above {@link LaneStats#BLOCKING_WC}) are
   * mixed.
   */
  public static final double MIXED_LABEL_FACTOR = 10.0;

  public SizingAdvisor {
    if (!(targetUtilisation > 0 && targetUtilisation <= 1)) {
      throw new IllegalArgumentException(
          "advisor targetUtilisation must be in (0, 1], was " + targetUtilisation);
    }
    Objects.requireNonNull(acceptableWait, "advisor acceptableWait must not be null");
    if (acceptableWait.isNegative() || acceptableWait.isZero()) {
      throw new IllegalArgumentException("advisor acceptableWait must be > 0, was " + acceptableWait);
    }
    if (minSamples < 1) {
      throw new IllegalArgumentException("advisor minSamples must be ≥ 1, was " + minSamples);
    }
    if (maxConcurrency < 1) {
      throw new IllegalArgumentException("advisor maxConcurrency must be ≥ 1, was " + maxConcurrency);
    }
  }

  /**
   * Target utilisation 0.8, acceptable wait 500 ms, at least 50 samples, a concurrency of at most
   * 1,000.
   */
  public static SizingAdvisor defaults() {
    return new SizingAdvisor(0.8, Duration.ofMillis(500), 50, 1000);
  }

  /** Advice for the lane {@code s} describes, on a machine of {@code cores} cores. */
  public SizingAdvice advise(LaneStats s, int cores) {
    return advise(s, cores, Map.of());
  }

  /**
   * Advice that also compares the lane's labels as {@code labels} summed them (the "mixed lane"
   * warning by label).
   */
  public SizingAdvice advise(LaneStats s, int cores, LabelWatch labels) {
    Objects.requireNonNull(labels, "labels");
    return advise(s, cores, labels.figures());
  }

  /** Advice for {@code lane} now, with its labels as {@code labels} summed them. */
  public SizingAdvice advise(Lane lane, LabelWatch labels) {
    return advise(lane.stats(), Runtime.getRuntime().availableProcessors(), labels);
  }

  private SizingAdvice advise(LaneStats s, int cores, Map<String, LabelFigures> byLabel) {
    Objects.requireNonNull(s, "stats");
    if (cores < 1) {
      throw new IllegalArgumentException("advisor cores must be ≥ 1, was " + cores);
    }
    Timings t = s.sinceStart();
    long cpuSamples = t.cpuTime().count();
    long ran = t.runTime().count();
    double wc = t.blockingRatio();
    double uptimeSec = s.uptimeNanos() / 1e9;
    double arrivalPerSec = uptimeSec > 0 ? s.submitted() / uptimeSec : 0;
    double util = s.utilisation();
    List<String> warnings = new ArrayList<>();
    mixedWarning(s, byLabel).ifPresent(warnings::add);
    pinningWarning(s).ifPresent(warnings::add);

    boolean useWc = s.kind() != LaneKind.VIRTUAL && cpuSamples > 0;
    long samples = useWc ? cpuSamples : ran;
    if (samples < minSamples) {
      String what = useWc || s.kind() != LaneKind.VIRTUAL ? "tasks with a CPU reading" : "finished tasks";
      return new SizingAdvice(s.lane(), s.kind(), false, samples, minSamples,
          s.concurrency(), s.concurrency(), s.queueCapacity(), s.queueCapacity(), wc,
          util, warnings,
          String.format(Locale.ROOT, "It has %d %s and needs at least %d.", samples, what, minSamples));
    }

    int queue = (int) Math.max(1, Math.min(LaneBuilder.MAX_QUEUE_CAPACITY,
        Math.ceil(arrivalPerSec * acceptableWait.toNanos() / 1e9)));
    String queueWhy = String.format(Locale.ROOT,
        "Queue: arrival %.1f/s × acceptable wait %d ms = %d (Little's law).",
        arrivalPerSec, acceptableWait.toMillis(), queue);

    int recommended;
    String why;
    if (s.kind() == LaneKind.CPU) {
      recommended = cores;
      why = String.format(Locale.ROOT, "CPU lane: concurrency = cores = %d (measured W/C %s).",
          cores, fmt(wc));
      if (s.concurrency() > cores) {
        // Threads beyond the cores wait for a core while runnable, which the measured W/C counts
        // as waiting (about threads/cores - 1 of it), so W/C cannot clear an oversized CPU lane.
        warnings.add(String.format(Locale.ROOT,
            "concurrency %d on %d cores in a CPU lane: for computing tasks the extra threads add"
                + " context switches, not throughput (measured W/C %s, of which about %.1f comes"
                + " from waiting for a core)", s.concurrency(), cores, fmt(wc),
            Math.max(0, (double) s.concurrency() / cores - 1)));
      }
    } else if (useWc) {
      double raw = cores * targetUtilisation * (1 + wc);
      recommended = (int) Math.max(1, Math.min(maxConcurrency, Math.ceil(raw)));
      why = String.format(Locale.ROOT,
          "cores %d × target utilisation %.2f × (1 + W/C %.2f) = %.1f → %d%s.",
          cores, targetUtilisation, wc, raw, recommended, raw > maxConcurrency ? " (capped)" : "");
      if (wc > LaneStats.BLOCKING_WC && recommended > 2 * s.concurrency()) {
        double byLoad = arrivalPerSec * t.runTime().mean() / 1e9 / targetUtilisation;
        warnings.add(String.format(Locale.ROOT,
            "caution: W/C %.1f makes the formula ask for %d, which assumes that what the tasks"
                + " wait on serves any number at once. If they wait on a database, an API or a"
                + " lock, size the lane by what that serves (its pool, its rate limit): threads"
                + " beyond it queue there instead of here. The load measured so far needs about"
                + " %.1f at once (arrival %.1f/s × mean run %.1f ms ÷ %.2f, Little's law); raise"
                + " the concurrency in steps and watch the downstream, or let lanes-adapt find it",
            wc, recommended, byLoad, arrivalPerSec, t.runTime().mean() / 1e6, targetUtilisation));
      }
    } else {
      double meanRunSec = t.runTime().mean() / 1e9;
      double raw = arrivalPerSec * meanRunSec / targetUtilisation;
      recommended = (int) Math.max(1, Math.min(maxConcurrency, Math.ceil(raw)));
      why = String.format(Locale.ROOT,
          "No CPU figures (virtual threads have none): arrival %.1f/s × mean run %.1f ms ÷ target"
              + " utilisation %.2f = %.1f → %d (Little's law)%s.",
          arrivalPerSec, meanRunSec * 1e3, targetUtilisation, raw, recommended,
          raw > maxConcurrency ? " (capped)" : "");
    }
    return new SizingAdvice(s.lane(), s.kind(), true, samples, minSamples, s.concurrency(),
        recommended, s.queueCapacity(), queue, wc, util, warnings, why + " " + queueWhy);
  }

  /**
   * A virtual lane that reports pinning ({@code LaneBuilder.reportPinning()}) and pinned: how
   * often, how long, and where most of the time went, with the label of the task that pinned
   * there.
   */
  private static Optional<String> pinningWarning(LaneStats s) {
    dev.lanes.Pinning p = s.pinning();
    if (p.count() == 0) {
      return Optional.empty();
    }
    StringBuilder w = new StringBuilder(String.format(Locale.ROOT,
        "pinned its carrier %,d time%s for %s (longest %s): while pinned, a task holds one of the"
            + " few carrier threads every virtual thread in the JVM shares",
        p.count(), p.count() == 1 ? "" : "s", millis(p.totalNanos()), millis(p.longestNanos())));
    if (!p.sites().isEmpty()) {
      dev.lanes.Pinning.Site top = p.sites().get(0);
      w.append(String.format(Locale.ROOT, "; most in %s (%,d time%s, %s%s%s)", top.frame(),
          top.count(), top.count() == 1 ? "" : "s", millis(top.totalNanos()),
          top.label().isEmpty() ? "" : ", label \"" + top.label() + "\"",
          top.reason().isEmpty() ? "" : ": " + top.reason()));
    }
    w.append(". Move the blocking out of what pins (a class initializer, a native call), or run"
        + " that work on a platform lane");
    return Optional.of(w.toString());
  }

  private static String millis(long nanos) {
    return nanos >= 1_000_000_000L
        ? String.format(Locale.ROOT, "%.1f s", nanos / 1e9)
        : String.format(Locale.ROOT, "%.0f ms", nanos / 1e6);
  }

  private static Optional<String> mixedWarning(LaneStats s, Map<String, LabelFigures> byLabel) {
    // By label: one label mostly waits (W/C above BLOCKING_WC) while another's W/C is at least
    // ten times lower. A ratio, not a fixed bound, because on a busy machine computing tasks also
    // wait for a core and their W/C rises.
    String lowLabel = null;
    String highLabel = null;
    for (Map.Entry<String, LabelFigures> e : byLabel.entrySet()) {
      double wc = e.getValue().blockingRatio();
      if (e.getKey().equals(LabelWatch.OTHER_LABEL) || e.getValue().cpuSamples() < 5
          || Double.isNaN(wc)) {
        continue;
      }
      if (lowLabel == null || wc < byLabel.get(lowLabel).blockingRatio()) {
        lowLabel = e.getKey();
      }
      if (highLabel == null || wc > byLabel.get(highLabel).blockingRatio()) {
        highLabel = e.getKey();
      }
    }
    if (lowLabel != null && !lowLabel.equals(highLabel)) {
      double low = byLabel.get(lowLabel).blockingRatio();
      double high = byLabel.get(highLabel).blockingRatio();
      if (high > LaneStats.BLOCKING_WC && high >= MIXED_LABEL_FACTOR * Math.max(low, 0.01)) {
        return Optional.of(String.format(Locale.ROOT,
            "mixed lane: label \"%s\" computes (W/C %.2f) while \"%s\" mostly waits (W/C %.2f);"
                + " split them into a CPU lane and a blocking lane",
            lowLabel, low, highLabel, high));
      }
    }
    long all = s.sinceStart().cpuTime().count();
    if (all >= 20 && s.cpuBoundSamples() >= 0.2 * all && s.blockingSamples() >= 0.2 * all) {
      return Optional.of(String.format(Locale.ROOT,
          "mixed lane: of %d tasks with a CPU reading, %d computed (W/C < %.2f) and %d mostly"
              + " waited (W/C > %.0f); split them into a CPU lane and a blocking lane",
          all, s.cpuBoundSamples(), LaneStats.CPU_BOUND_WC, s.blockingSamples(),
          LaneStats.BLOCKING_WC));
    }
    return Optional.empty();
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "unmeasured" : String.format(Locale.ROOT, "%.2f", v);
  }
}
