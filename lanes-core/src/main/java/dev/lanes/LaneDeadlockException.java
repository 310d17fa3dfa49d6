package dev.lanes;

import java.io.Serial;

/**
 * Thrown from a wait (or used to fail a queued child task) when a lane with {@link
 * DeadlockPolicy#FAIL} finds a nested-submission starvation deadlock. The message names the lane,
 * its worker and queued counts.
 */
public final class LaneDeadlockException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String lane;

  public LaneDeadlockException(String lane, String message) {
    super(message);
    this.lane = lane;
  }

  public String lane() {
    return lane;
  }
}
