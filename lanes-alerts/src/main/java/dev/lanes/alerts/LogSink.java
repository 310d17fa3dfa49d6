package dev.lanes.alerts;

import java.util.Objects;

/** Writes each alert to a {@code System.Logger} (see {@link AlertSink#log}). Stateless. */
final class LogSink implements AlertSink {
  static final String LOGGER_NAME = "dev.lanes.alerts";
  private static final System.Logger LOG = System.getLogger(LOGGER_NAME);

  private final System.Logger.Level level;

  LogSink(System.Logger.Level level) {
    this.level = Objects.requireNonNull(level, "log sink level must not be null");
  }

  @Override
  public void send(Alert alert) {
    System.Logger.Level at = alert.resolved() && level.getSeverity()
        > System.Logger.Level.INFO.getSeverity() ? System.Logger.Level.INFO : level;
    if (LOG.isLoggable(at)) {
      LOG.log(at, alert.text());
    }
  }

  @Override
  public String toString() {
    return "AlertSink.log(" + level + ")";
  }
}
