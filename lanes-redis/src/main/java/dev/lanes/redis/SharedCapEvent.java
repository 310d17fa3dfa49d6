package dev.lanes.redis;

import java.time.Instant;

/**
 * Something a shared cap's listeners should know about.
 *
 * @param cap the shared cap's name (its lane's name)
 * @param kind what happened
 * @param health the health after the event
 * @param detail a sentence: the Redis error that caused a change, or how many permits were put back
 * @param at wall-clock time of the event
 */
public record SharedCapEvent(String cap, Kind kind, SharedCapHealth health, String detail,
    Instant at) {

  public enum Kind {
    /** A call to Redis failed or timed out: the fault policy now applies. */
    REDIS_LOST,
    /** A call to Redis succeeded again: the global cap applies again. */
    REDIS_BACK,
    /**
     * Renewing found permits of running tasks missing (their lease lapsed, or Redis lost its data)
     * and put them back: while they were missing, other instances could be granted their places.
     */
    PERMITS_REINSTATED
  }
}
