package dev.lanes.alerts;

import java.time.Duration;

/**
 * Decides, across the instances of a service, which one sends an alert: before a firing alert
 * for (lane, kind) is sent, {@link LaneAlerts} asks {@link #claim}; an instance that is refused
 * sends nothing for that lane episode, not even its recovery message (the instance that sent the
 * alert sends that). The default, {@link #none()}, always says yes. lanes-redis has one on Redis
 * ({@code dev.lanes.redis.RedisAlertDedupe}).
 *
 * <p>{@link #claim} is called on the checking thread; it should answer within a bounded time. A
 * claim that throws is taken as yes (fail open: an alert too many rather than none), and {@link
 * LaneAlerts} logs that once until a claim answers again. A dedupe that is also {@link
 * AutoCloseable} is closed by {@link LaneAlerts#close()}.
 */
@FunctionalInterface
public interface AlertDedupe {

  /**
   * {@return true if this instance may send the alert for (lane, kind) now; true again while it
   * holds the claim, false while another instance does}
   *
   * @param lane the lane's name (lanes of one name on several instances share one claim)
   * @param kind the alert's kind
   * @param hold how long the claim is held once granted (it expires after that)
   */
  boolean claim(String lane, AlertKind kind, Duration hold);

  /** {@return a dedupe that always says yes: every instance sends its own alerts} */
  static AlertDedupe none() {
    return (lane, kind, hold) -> true;
  }
}
