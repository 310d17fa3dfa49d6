package dev.lanes.alerts;

/**
 * Where alerts go. {@link LaneAlerts} calls {@link #send} from its checking thread (never from a
 * lane's worker), one alert at a time per check; a sink that throws is logged (at most once per
 * failure interval) and the other sinks still get the alert. A sink that does IO should not hold
 * the caller for long: {@link WebhookSink} sends asynchronously.
 *
 * <p>Sinks given to {@link LaneAlerts.Builder#sink} that are also {@link AutoCloseable} are closed
 * by {@link LaneAlerts#close()}.
 */
@FunctionalInterface
public interface AlertSink {

  /**
   * Delivers one alert.
   *
   * @param alert the alert, with its evidence
   */
  void send(Alert alert);

  /**
   * {@return a sink that writes each alert to the {@code System.Logger} named {@code
   * dev.lanes.alerts}: the headline and the evidence, one line each, in one record}
   *
   * @param level the level of every record; a recovery message is logged at INFO when {@code
   *     level} is above INFO
   * @throws NullPointerException if {@code level} is null
   */
  static AlertSink log(System.Logger.Level level) {
    return new LogSink(level);
  }
}
