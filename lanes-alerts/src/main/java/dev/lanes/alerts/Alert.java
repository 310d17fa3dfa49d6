package dev.lanes.alerts;

import dev.lanes.Distribution;
import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import dev.lanes.Timings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One alert about one lane, with its evidence: the lane's figures when the alert was made, what
 * the rule measured, the lane's own diagnosis, and its workers' stacks.
 *
 * @param lane the lane's name
 * @param kind what the alert is about
 * @param resolved false for the alert that reports trouble; true for the recovery message (sent
 *     only when {@link LaneAlerts.Builder#recoveryMessages} is on) once that episode ended
 * @param at wall-clock time the alert was made, for people (durations come from the ticker)
 * @param headline one line naming the lane, what is wrong, the measured figure and the threshold
 * @param stats the lane's snapshot when the alert was made
 * @param figures what the rule measured, in order (for example {@code saturatedForMs} and {@code
 *     thresholdMs}; {@code rejectedPerSecond}, one {@code rejectedPerSecond.<outcome>} per reason
 *     seen, {@code windowMs}); {@code silencedEpisodes}: episodes of this kind on this lane that
 *     began inside the silence window since the last alert and were not sent
 * @param diagnostic the lane's own explanation (the {@code HealthEvent}'s diagnostic for a
 *     deadlock, with each blocked worker's frames), or {@code ""}
 * @param workerStacks each of the lane's workers (thread name, state, frames) as text when the
 *     alert was made, once per episode; {@code ""} on a recovery message
 * @param conditions every condition that held at the check that made the alert, {@code kind}
 *     among them on a firing alert (a SATURATED condition holds from the first check that saw the
 *     lane saturated); on a recovery message, every kind its lane episode had
 */
public record Alert(
    String lane,
    AlertKind kind,
    boolean resolved,
    Instant at,
    String headline,
    LaneStats stats,
    Map<String, Double> figures,
    String diagnostic,
    String workerStacks,
    Set<AlertKind> conditions) {

  /**
   * Makes an alert whose only condition is its kind.
   *
   * @throws NullPointerException if any component is null
   */
  public Alert(String lane, AlertKind kind, boolean resolved, Instant at, String headline,
      LaneStats stats, Map<String, Double> figures, String diagnostic, String workerStacks) {
    this(lane, kind, resolved, at, headline, stats, figures, diagnostic, workerStacks,
        kind == null ? Set.of() : Set.of(kind));
  }

  /**
   * Makes an alert; keeps unmodifiable copies of {@code figures} in its order and of {@code
   * conditions} in the kinds' order.
   *
   * @throws NullPointerException if any component is null
   */
  public Alert {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(headline, "headline");
    Objects.requireNonNull(stats, "stats");
    Objects.requireNonNull(diagnostic, "diagnostic");
    Objects.requireNonNull(workerStacks, "workerStacks");
    figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    Objects.requireNonNull(conditions, "conditions");
    conditions = conditions.isEmpty() ? Set.of()
        : Collections.unmodifiableSet(EnumSet.copyOf(conditions));
  }

  /**
   * {@return the state the alert reports: the worst of its conditions, and of the lane's own
   * health when that is worse (a recovery message: the lane's health)}
   */
  public LaneHealth state() {
    LaneHealth state = stats.health();
    if (resolved) {
      return state;
    }
    for (AlertKind k : conditions) {
      LaneHealth h = k.health();
      if (h.compareTo(state) > 0) {
        state = h;
      }
    }
    return state;
  }

  /**
   * {@return the evidence as lines for people: queue wait against run time (for a saturation or
   * refusal alert, the means over the tasks that ended in the window the alert judged; otherwise
   * mean and p99 of the lane's last stats interval), the oldest queued task's age, running against
   * concurrency, queued against queue capacity, the counts (each reason for refusals), the health
   * the lane's monitor gives, and what the rule measured}
   */
  public List<String> evidence() {
    List<String> lines = new ArrayList<>();
    Double ended = figures.get("endedInWindow");
    Timings recent = stats.recent();
    if (ended != null) {
      String window = Durations.human(figures.get("judgedWindowMs") * 1e6);
      lines.add(ended == 0
          ? "queue wait / run: no task ended in the " + window + " this alert judged"
          : "queue wait mean " + Durations.human(figures.get("queueWaitMeanMsInWindow") * 1e6)
              + " vs run mean " + Durations.human(figures.get("runMeanMsInWindow") * 1e6)
              + " over the " + number(ended) + " tasks that ended in the " + window
              + " this alert judged");
    } else if (recent.queueWait().isEmpty()) {
      lines.add("queue wait / run: no task ended in the lane's last stats interval");
    } else {
      lines.add("queue wait " + meanAndP99(recent.queueWait()) + " vs run "
          + meanAndP99(recent.runTime()) + " (the lane's last stats interval, "
          + recent.queueWait().count() + " tasks)");
    }
    lines.add("oldest waiting: " + (stats.queued() == 0 ? "none queued"
        : Durations.human(stats.oldestQueuedNanos())));
    int beyondCapacity = stats.queued() - stats.queueCapacity();
    lines.add("in flight " + stats.running() + " of concurrency " + stats.concurrency()
        + "; queued " + stats.queued() + " of capacity " + stats.queueCapacity()
        + (beyondCapacity > 0 ? ", and " + beyondCapacity + " that the lane's "
            + (stats.concurrency() - stats.running()) + " free workers have not taken yet" : ""));
    StringBuilder counts = new StringBuilder("counts: submitted ").append(stats.submitted())
        .append(", completed ").append(stats.completed())
        .append(", failed ").append(stats.failed())
        .append(", rejected ").append(stats.rejected());
    String reasons = rejectionReasons(stats);
    if (!reasons.isEmpty()) {
      counts.append(" (").append(reasons).append(')');
    }
    lines.add(counts.toString());
    LaneHealth state = state();
    if (resolved || state == stats.health()) {
      lines.add("health (the lane's own monitor): " + stats.health());
    } else {
      lines.add("state: " + state + " (" + names(conditions) + " at this check); the lane's own"
          + " monitor, judging over its own windows, said " + stats.health());
    }
    if (!figures.isEmpty()) {
      StringBuilder measured = new StringBuilder("measured:");
      figures.forEach((k, v) -> measured.append(' ').append(k).append('=').append(number(v)));
      lines.add(measured.toString());
    }
    return lines;
  }

  /**
   * {@return the headline, then the evidence (one line each, indented), then the lane's
   * diagnostic and the workers' stacks when there are any}
   */
  public String text() {
    StringBuilder b = new StringBuilder(headline);
    for (String line : evidence()) {
      b.append("\n  ").append(line);
    }
    if (!diagnostic.isEmpty()) {
      b.append("\n  diagnostic: ").append(diagnostic.replace("\n", "\n    "));
    }
    if (!workerStacks.isEmpty()) {
      b.append("\n  worker stacks:\n    ").append(workerStacks.strip().replace("\n", "\n    "));
    }
    return b.toString();
  }

  static String names(Set<AlertKind> kinds) {
    StringBuilder b = new StringBuilder();
    for (AlertKind k : kinds) {
      b.append(b.isEmpty() ? "" : ", ").append(k);
    }
    return b.toString();
  }

  static String rejectionReasons(LaneStats stats) {
    StringBuilder b = new StringBuilder();
    for (TaskOutcome o : TaskOutcome.values()) {
      if (o.isRejection() && stats.count(o) > 0) {
        if (!b.isEmpty()) {
          b.append(", ");
        }
        b.append(o.tag()).append(' ').append(stats.count(o));
      }
    }
    return b.toString();
  }

  private static String meanAndP99(Distribution d) {
    return "mean " + Durations.human(d.mean()) + ", p99 " + Durations.human(d.p99());
  }

  static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.2f", v);
  }
}
