package dev.lanes;

import java.util.Map;

/**
 * A lane's health, or its diagnosis, changed ({@code from == to} for a suspected starvation
 * deadlock on a lane that was already SATURATED).
 *
 * @param lane the lane's name
 * @param from the previous state
 * @param to the new state
 * @param atNanos when, on the lane's ticker
 * @param figures the measurements that caused it (e.g. {@code meanWaitMs}, {@code meanRunMs},
 *     {@code rejectedInWindow}, {@code queued}, {@code workers})
 * @param diagnostic a human-readable explanation; for DEADLOCKED, each worker's frames
 */
public record HealthEvent(
    String lane,
    LaneHealth from,
    LaneHealth to,
    long atNanos,
    Map<String, Double> figures,
    String diagnostic) {

  /**
   * Makes an event; keeps an unmodifiable copy of {@code figures}.
   *
   * @throws NullPointerException if {@code figures} is null or holds a null key or value
   */
  public HealthEvent {
    figures = Map.copyOf(figures);
  }
}
