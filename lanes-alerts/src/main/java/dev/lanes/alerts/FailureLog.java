package dev.lanes.alerts;

import dev.lanes.Ticker;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Logs a repeating failure at most once per interval, and says in the next line how many it held
 * back, so a webhook that is down does not flood the log.
 *
 * <p><b>Concurrency design.</b> Any thread may call {@link #failed}; {@code lock} guards {@code
 * lastLineAt} and {@code heldBack}. The line is written after the lock is released (the logger is
 * other code). Two failures racing at the end of an interval may both be judged inside it or one
 * outside: at most one line per interval either way.
 */
final class FailureLog {
  private static final System.Logger LOG = System.getLogger(LogSink.LOGGER_NAME);

  private final Ticker ticker;
  private final long intervalNanos;
  private final Duration interval;
  private final ReentrantLock lock = new ReentrantLock();
  private boolean loggedOnce; // guarded by lock
  private long lastLineAt; // guarded by lock
  private long heldBack; // guarded by lock

  FailureLog(Ticker ticker, Duration interval) {
    this.ticker = ticker;
    this.interval = interval;
    this.intervalNanos = interval.toNanos();
  }

  /**
   * Counts one failure and logs it at WARNING unless a line was written less than the interval
   * ago.
   *
   * @param what one sentence: what failed and why
   */
  void failed(String what) {
    long now = ticker.read();
    long before;
    lock.lock();
    try {
      if (loggedOnce && now - lastLineAt < intervalNanos) {
        heldBack++;
        return;
      }
      before = heldBack;
      heldBack = 0;
      lastLineAt = now;
      loggedOnce = true;
    } finally {
      lock.unlock();
    }
    LOG.log(System.Logger.Level.WARNING, what
        + (before > 0 ? " (" + before + " more failures since the last line)" : "")
        + "; further failures within " + interval + " are counted, not logged");
  }
}
