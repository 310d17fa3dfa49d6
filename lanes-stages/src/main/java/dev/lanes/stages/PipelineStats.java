package dev.lanes.stages;

import dev.lanes.Distribution;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A snapshot of one {@link Pipeline}: item counts, end-to-end time, each stage's figures and the
 * {@link Bottleneck} verdict computed from them.
 *
 * <p>How exact: the counts are kept by the pipeline before it completes an item's future, so
 * once every future you hold is done and nothing else is in flight, {@code submitted = completed
 * + failed + rejected} and each stage's counts balance ({@link StageStats#inStage()} is 0). The
 * queue-wait and run figures come from the lanes' task records, which a lane delivers on its
 * thread just after the task's future completed, so a snapshot taken the instant the last future
 * completed may miss the last few tasks' timings; under load, counts are read one after another
 * and may be off by the items moving between the reads.
 *
 * @param pipeline the pipeline's name
 * @param elapsedNanos since the pipeline was built
 * @param submitted items given to {@link Pipeline#submit}
 * @param completed items that went through every stage
 * @param failed items a stage's function threw on (the sum of the stages' {@code failed})
 * @param rejected items a stage's lane refused or dropped (the sum of the stages' {@code rejected})
 * @param endToEnd time from {@code submit} to the item's future completing, of completed items, in
 *     nanoseconds
 * @param stages each stage, in pipeline order
 * @param bottleneck the stage that holds the pipeline back, and why
 */
public record PipelineStats(
    String pipeline,
    long elapsedNanos,
    long submitted,
    long completed,
    long failed,
    long rejected,
    Distribution endToEnd,
    List<StageStats> stages,
    Bottleneck bottleneck) {

  /** Makes a snapshot; {@code stages} is copied. */
  public PipelineStats {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(endToEnd, "endToEnd");
    stages = List.copyOf(stages);
    Objects.requireNonNull(bottleneck, "bottleneck");
  }

  /** {@return items submitted and not yet ended: {@code submitted − completed − failed − rejected}} */
  public long inFlight() {
    return Math.max(0, submitted - completed - failed - rejected);
  }

  /**
   * {@return the stage named {@code name}}
   *
   * @throws IllegalArgumentException if the pipeline has no such stage; the message lists them
   */
  public StageStats stage(String name) {
    for (StageStats s : stages) {
      if (s.stage().equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("pipeline \"" + pipeline + "\" has no stage \"" + name
        + "\"; its stages are " + stages.stream().map(StageStats::stage).toList());
  }

  /**
   * {@return the snapshot as a table for people: a row per stage (lane, items, queue wait and run
   * p50 / p99 in ms, mean hand-off), the end-to-end row and the bottleneck verdict}
   */
  public String table() {
    StringBuilder out = new StringBuilder();
    String row = "%-12s %-12s %8s %8s %8s %9s %9s %9s %9s %9s%n";
    out.append(String.format(Locale.ROOT, row, "stage", "lane", "done", "failed", "rejected",
        "wait p50", "wait p99", "run p50", "run p99", "handoff"));
    for (StageStats s : stages) {
      out.append(String.format(Locale.ROOT, row, s.stage(), s.lane(), s.completed(), s.failed(),
          s.rejected(), Bottleneck.ms(s.queueWait().p50()), Bottleneck.ms(s.queueWait().p99()),
          Bottleneck.ms(s.run().p50()), Bottleneck.ms(s.run().p99()),
          s.handoff().isEmpty() ? "-" : Bottleneck.ms(s.handoff().mean())));
    }
    out.append(String.format(Locale.ROOT, "end to end: %,d of %,d items completed, %,d failed, %,d"
        + " rejected; p50 %s ms, p99 %s ms, max %s ms (times in ms)%n", completed, submitted, failed,
        rejected, Bottleneck.ms(endToEnd.p50()), Bottleneck.ms(endToEnd.p99()),
        Bottleneck.ms(endToEnd.max())));
    out.append("bottleneck: ").append(bottleneck.stage().orElse("none")).append(" (")
        .append(bottleneck.reason().name().toLowerCase(Locale.ROOT).replace('_', ' ')).append(") — ")
        .append(bottleneck.explanation()).append(System.lineSeparator());
    return out.toString();
  }
}
