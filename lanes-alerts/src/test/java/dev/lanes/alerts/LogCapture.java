package dev.lanes.alerts;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The records of logger {@code dev.lanes.alerts} (System.Logger goes to java.util.logging). */
final class LogCapture implements AutoCloseable {
  final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Logger logger = Logger.getLogger("dev.lanes.alerts"); // held: JUL keeps loggers weakly
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  LogCapture() {
    logger.addHandler(handler);
  }

  List<String> messages() {
    return records.stream().map(LogRecord::getMessage).toList();
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
  }
}
