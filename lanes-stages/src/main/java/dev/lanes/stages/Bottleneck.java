package dev.lanes.stages;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Which stage holds a pipeline back, and why, computed from the stages' figures in a {@link
 * PipelineStats} snapshot. The rule, in order:
 *
 * <ol>
 *   <li><b>{@link Reason#REJECTING}</b>: a stage whose lane refused or dropped at least {@value
 *       #REJECTED_SHARE_PERCENT} % of the items handed to it cannot keep up (the largest share
 *       wins; on a tie, the later stage).
 *   <li>Otherwise the stage where an item spends the most time: mean queue wait plus mean own run
 *       (run less hand-off). A stage that spends more of its run handing items on than working
 *       ({@code handoff} mean above its own run) is <i>held</i> by its downstream — its queue
 *       grows because its threads wait for room downstream — and is not named while a stage that
 *       is not held exists. The reason is <b>{@link Reason#QUEUE_WAIT}</b> when its tasks waited
 *       in the lane's queue at least as long as they ran (the lane is saturated: too few threads
 *       for what arrives), else <b>{@link Reason#RUN_TIME}</b> (the work itself, or what it calls,
 *       is slow; more threads do not shorten a run).
 *   <li><b>{@link Reason#NONE}</b> when no item has been through a stage yet.
 * </ol>
 *
 * @param stage the stage named, empty for {@link Reason#NONE}
 * @param reason why it was named
 * @param explanation the figures behind it, for people
 */
public record Bottleneck(Optional<String> stage, Reason reason, String explanation) {

  /** A stage that refused at least this share of its items (percent) is named as rejecting. */
  public static final double REJECTED_SHARE_PERCENT = 1.0;

  /** Why a stage was named. */
  public enum Reason {
    /** No item has been through a stage yet. */
    NONE,
    /** The stage's lane refused or dropped items: it is full (or shut down). */
    REJECTING,
    /** The stage's tasks waited in its lane's queue at least as long as they ran: saturated. */
    QUEUE_WAIT,
    /** The stage's own run takes the time; its queue wait is smaller. */
    RUN_TIME
  }

  /**
   * Makes a verdict.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code stage} is empty for a reason other than NONE, or
   *     present for NONE
   */
  public Bottleneck {
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(explanation, "explanation");
    if (stage.isPresent() == (reason == Reason.NONE)) {
      throw new IllegalArgumentException("a bottleneck names a stage unless its reason is NONE, was "
          + stage + " for " + reason);
    }
  }

  /** The rule above, applied to the stages of one snapshot (in pipeline order). */
  static Bottleneck of(List<StageStats> stages) {
    List<StageStats> ran = stages.stream().filter(s -> s.run().count() > 0).toList();
    StageStats rejecting = null;
    double rejectingShare = 0;
    for (StageStats s : stages) {
      double share = s.offered() == 0 ? 0 : 100.0 * s.rejected() / s.offered();
      if (share >= REJECTED_SHARE_PERCENT && share >= rejectingShare) {
        rejecting = s;
        rejectingShare = share;
      }
    }
    if (rejecting != null) {
      return new Bottleneck(Optional.of(rejecting.stage()), Reason.REJECTING, String.format(Locale.ROOT,
          "stage \"%s\" (lane \"%s\") refused or dropped %,d of the %,d items handed to it (%.1f %%):"
              + " its lane was full or shut down, so it does not keep up with what reaches it"
              + " (lane now: %,d queued of %,d, concurrency %d)%s.",
          rejecting.stage(), rejecting.lane(), rejecting.rejected(), rejecting.offered(), rejectingShare,
          rejecting.laneQueued(), rejecting.laneQueueCapacity(), rejecting.laneConcurrency(),
          sharedNote(rejecting, stages)));
    }
    if (ran.isEmpty()) {
      return new Bottleneck(Optional.empty(), Reason.NONE, "no item has been through a stage yet.");
    }
    int last = stages.size() - 1;
    List<StageStats> held = new ArrayList<>();
    List<StageStats> candidates = new ArrayList<>();
    for (StageStats s : ran) {
      boolean isHeld = s.index() < last && !s.handoff().isEmpty() && s.handoff().mean() > s.ownRunMeanNanos();
      (isHeld ? held : candidates).add(s);
    }
    if (candidates.isEmpty()) {
      candidates = ran;
    }
    StageStats worst = null;
    double worstScore = -1;
    double total = 0;
    for (StageStats s : ran) {
      total += score(s);
    }
    for (StageStats s : candidates) {
      double score = score(s);
      if (score >= worstScore) {
        worst = s;
        worstScore = score;
      }
    }
    double wait = worst.queueWait().mean();
    double own = worst.ownRunMeanNanos();
    Reason reason = wait >= own ? Reason.QUEUE_WAIT : Reason.RUN_TIME;
    StringBuilder why = new StringBuilder(String.format(Locale.ROOT,
        "stage \"%s\" (lane \"%s\"): items spent %s ms there on average, %.0f %% of their time in"
            + " stages — %s ms waiting in its lane's queue (p99 %s ms) and %s ms running (p99 %s ms): ",
        worst.stage(), worst.lane(), ms(wait + own), total == 0 ? 0 : 100 * worstScore / total,
        ms(wait), ms(worst.queueWait().p99()), ms(own), ms(worst.run().p99())));
    why.append(reason == Reason.QUEUE_WAIT
        ? String.format(Locale.ROOT, "the stage is saturated — more arrives than its lane's %d"
            + " thread%s run — so give its lane more concurrency if what it calls can take it, or"
            + " slow the input", worst.laneConcurrency(), worst.laneConcurrency() == 1 ? "" : "s")
        : "the time is in its run, not its queue: its own work, or what it calls, is slow; more"
            + " threads for its lane would not shorten a run");
    why.append(sharedNote(worst, stages));
    for (StageStats h : held) {
      why.append(String.format(Locale.ROOT, "; stage \"%s\" spent %s of its %s ms run per item"
          + " handing items on (held up by a full stage after it)", h.stage(), ms(h.handoff().mean()),
          ms(h.run().mean())));
    }
    return new Bottleneck(Optional.of(worst.stage()), reason, why.append('.').toString());
  }

  private static double score(StageStats s) {
    return s.queueWait().mean() + s.ownRunMeanNanos();
  }

  private static String sharedNote(StageStats s, List<StageStats> stages) {
    if (!s.laneShared()) {
      return "";
    }
    List<String> others = stages.stream().filter(o -> o != s && o.lane().equals(s.lane()))
        .map(o -> "\"" + o.stage() + "\"").toList();
    return " (its lane also runs stage" + (others.size() > 1 ? "s " : " ") + String.join(", ", others)
        + ", so the queue is theirs too)";
  }

  /** Milliseconds from nanoseconds, as the lab and tables write them. */
  static String ms(double nanos) {
    double ms = nanos / 1e6;
    return String.format(Locale.ROOT, Math.abs(ms) >= 100 ? "%,.0f" : Math.abs(ms) >= 1 ? "%.1f" : "%.2f", ms);
  }
}
