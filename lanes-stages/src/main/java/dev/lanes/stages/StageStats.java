package dev.lanes.stages;

import dev.lanes.Distribution;
import dev.lanes.LaneHealth;

/**
 * One stage of a pipeline in a {@link PipelineStats} snapshot. The counts and figures are this
 * pipeline's items only, even when the stage's lane also runs other work; the {@code lane…}
 * gauges are the whole lane's, read at the snapshot.
 *
 * <p>Counts: every item handed to the stage ({@code offered}) is, at any instant, in the stage
 * ({@link #inStage()}: queued or running) or ended there as {@code completed} (its function
 * returned), {@code failed} (its function threw) or {@code rejected} (its lane refused or dropped
 * it). A completed item is then offered to the next stage, or, at the last stage, completes the
 * pipeline's future.
 *
 * @param stage the stage's name
 * @param index its position, from 0
 * @param lane the name of the lane it runs on
 * @param laneShared true if that lane runs other stages of this pipeline too (their waits are
 *     then the same lane's)
 * @param offered items handed to the stage, accepted by its lane or refused (counted when the
 *     hand-off returns: an item whose hand-off still waits for room is not counted yet)
 * @param completed items its function returned
 * @param failed items its function threw on
 * @param rejected items its lane refused when handed in, or dropped before they ran
 * @param queueWait the lane's queue wait of this stage's tasks (from the lane's {@code
 *     TaskRecord}s: accepted → the task started), in nanoseconds
 * @param run the lane's run time of this stage's tasks, in nanoseconds: the function and the
 *     hand-off to the next stage (see {@code handoff})
 * @param handoff time each task spent handing its result to the next stage, part of {@code run}:
 *     when the next stage's lane blocks its caller while full, this is the time the stage was
 *     held up by its downstream (back-pressure); under caller-runs it includes the downstream's
 *     work done on this stage's thread. Empty for the last stage
 * @param laneQueued tasks queued in the whole lane now
 * @param laneQueueCapacity the lane's queue capacity. The lane holds at most {@code
 *     laneConcurrency + laneQueueCapacity} unfinished tasks, queued or running (while its threads
 *     are between tasks, all of them may be in the queue at once)
 * @param laneConcurrency the lane's concurrency now
 * @param laneHealth the lane's health now
 */
public record StageStats(
    String stage,
    int index,
    String lane,
    boolean laneShared,
    long offered,
    long completed,
    long failed,
    long rejected,
    Distribution queueWait,
    Distribution run,
    Distribution handoff,
    int laneQueued,
    int laneQueueCapacity,
    int laneConcurrency,
    LaneHealth laneHealth) {

  /**
   * {@return items in the stage now (queued or running): offered less those that ended there}
   * Exact once the pipeline is quiet; under load the four counts are read one after another.
   */
  public long inStage() {
    return Math.max(0, offered - completed - failed - rejected);
  }

  /**
   * {@return the mean time, in nanoseconds, a task of this stage spent on its own work: mean run
   * less mean hand-off, at least 0}
   */
  public double ownRunMeanNanos() {
    return Math.max(0, run.mean() - (handoff.isEmpty() ? 0 : handoff.mean()));
  }
}
