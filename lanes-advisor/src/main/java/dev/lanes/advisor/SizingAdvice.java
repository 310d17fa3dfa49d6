package dev.lanes.advisor;

import dev.lanes.LaneKind;

import java.util.List;

/**
 * A recommended size for one lane, derived from its measured figures, with the reasoning.
 *
 * @param lane the lane's name
 * @param kind its kind
 * @param enoughData false when there were too few samples to advise; then the recommendations
 *     repeat the current values and {@code reasoning} says how many samples there are and how
 *     many are needed
 * @param samples tasks measured (for the blocking ratio: tasks with a CPU reading)
 * @param samplesNeeded the minimum the advisor wants
 * @param currentConcurrency the lane's concurrency now
 * @param recommendedConcurrency what the figures suggest
 * @param currentQueueCapacity queue capacity now
 * @param recommendedQueueCapacity from Little's law: arrival rate × acceptable wait
 * @param blockingRatio measured W/C (NaN when not measured)
 * @param utilisation measured busy fraction of the lane's threads
 * @param warnings findings that need a person (concurrency above cores on CPU work, a mixed lane)
 * @param reasoning the steps, in words
 */
public record SizingAdvice(
    String lane,
    LaneKind kind,
    boolean enoughData,
    long samples,
    long samplesNeeded,
    int currentConcurrency,
    int recommendedConcurrency,
    int currentQueueCapacity,
    int recommendedQueueCapacity,
    double blockingRatio,
    double utilisation,
    List<String> warnings,
    String reasoning) {

  public SizingAdvice {
    warnings = List.copyOf(warnings);
  }

  /** The advice as a few lines for people. */
  public String toText() {
    StringBuilder s = new StringBuilder();
    s.append("lane \"").append(lane).append("\" (").append(kind.tag()).append("): ");
    if (!enoughData) {
      s.append("no recommendation yet. ").append(reasoning);
    } else {
      s.append("concurrency ")
          .append(currentConcurrency)
          .append(" → ")
          .append(recommendedConcurrency)
          .append(", queue ")
          .append(currentQueueCapacity)
          .append(" → ")
          .append(recommendedQueueCapacity)
          .append(". ")
          .append(reasoning);
    }
    for (String w : warnings) {
      s.append("\n  warning: ").append(w);
    }
    return s.toString();
  }
}
