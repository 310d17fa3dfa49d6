package dev.lanes;

/** A lane's health state, worst last. */
public enum LaneHealth {
  /** Tasks start about as soon as they arrive. */
  OK,
  /** Tasks wait in line longer than the configured threshold (see {@link LaneBuilder#saturatedWhenWaitExceedsRun}). */
  SATURATED,
  /** The lane refused or dropped tasks in the window. */
  REJECTING,
  /** Every worker waits on work queued behind it in the same lane: a starvation deadlock. */
  DEADLOCKED
}
