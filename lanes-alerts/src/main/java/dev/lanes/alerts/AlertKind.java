package dev.lanes.alerts;

import dev.lanes.LaneHealth;

/**
 * What an {@link Alert} is about, least severe first: a lane episode whose alert named one kind
 * is followed up only when a more severe kind becomes due. Each (lane, kind) has its own silence
 * window.
 */
public enum AlertKind {
  /**
   * The lane's tasks pinned their carrier thread since the previous check (a virtual lane built
   * with {@code reportPinning()}: pins of 20 ms or more, {@code LaneStats.pinning()}); the alert
   * names the site with the most time and the label of the task that pinned there. Its episode
   * ends at the first check with no new pin.
   */
  PINNING,
  /**
   * The lane's health has been SATURATED or worse (tasks wait in line longer than its threshold)
   * for longer than {@link LaneAlerts.Builder#saturatedFor}.
   */
  SATURATED,
  /**
   * The lane refused or dropped tasks, all reasons together ({@code TaskOutcome.isRejection()}:
   * queue full, shed, block timeout, …), faster than {@link
   * LaneAlerts.Builder#rejectionsPerSecond} over its window; the evidence gives each reason's rate.
   */
  REJECTING,
  /**
   * A starvation deadlock the lane could not prove (its {@code HealthEvent} carries {@code
   * suspectedDeadlock = 1}; see DESIGN.md, "Deadlocks"). Its episode ends when the lane's health
   * is next OK.
   */
  DEADLOCK_SUSPECTED,
  /** A proven starvation deadlock: the lane's health became DEADLOCKED. */
  DEADLOCKED;

  /**
   * {@return the lane health this kind means: the state an alert of it reports at least (a
   * suspicion, not proven, means none)}
   */
  LaneHealth health() {
    return switch (this) {
      case PINNING, DEADLOCK_SUSPECTED -> LaneHealth.OK;
      case SATURATED -> LaneHealth.SATURATED;
      case REJECTING -> LaneHealth.REJECTING;
      case DEADLOCKED -> LaneHealth.DEADLOCKED;
    };
  }
}
