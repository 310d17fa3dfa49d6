package dev.lanes;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a lane with no exception handler of its own does with a task given to {@code execute}
 * that it accepted and then dropped without running (discard-oldest, a deadlock broken by
 * failing, the gate's refusal, no thread to run it): such a task has no future to fail, and the
 * thread's uncaught-exception handler would print a full stack trace for each — thousands a second
 * under the overload a lane is for. Instead each drop is counted here (and, as always, in the
 * lane's books under its outcome), the first is logged at once in one line with what was dropped
 * and why, and the rest are summarised in one line per {@link #SUMMARY_NANOS} at most, by the
 * dropping thread or the health thread, whichever comes first after the interval. When the lane
 * terminates and leaves the health thread ({@link #laneLeft}) the summary it owes is written at
 * once, whatever the interval, and so is every drop after that: no drop is left out of the log.
 *
 * <p><b>Concurrency design.</b> A drop adds to {@code pending} (an atomic) and keeps itself as the
 * sample (a racy write of one reference: any recent drop is a fair sample). The one who writes a
 * line takes {@code lineLock} with {@code tryLock} — a dropping thread never waits for it — and
 * takes the count with {@code getAndSet(0)}, so each drop is in exactly one line. Lines are
 * written with the lane's {@link Ticker}. After {@link #laneLeft} ({@code left}, volatile) a writer
 * waits for {@code lineLock} instead: the leaver sets {@code left} and then reads {@code pending};
 * a dropper adds to {@code pending} and then reads {@code left}, so one of them sees the other's
 * write and takes the count (a Dekker pair), and neither gives up on a lock the other holds.
 */
final class DropLog {
  private static final System.Logger LOG = System.getLogger("dev.lanes");

  /** At most one summary line per lane per this long. */
  static final long SUMMARY_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String lane;
  private final Ticker ticker;
  private final AtomicLong pending = new AtomicLong();
  private final ReentrantLock lineLock = new ReentrantLock();
  /** The latest drop, as text; racy by design. */
  private volatile String sample;
  /** When the last line was written, on the lane's ticker; guarded by lineLock. */
  private long lastLineAt;
  private boolean anyLine;
  /** The lane has left the health thread: owed lines are written at once. */
  private volatile boolean left;

  DropLog(String lane, Ticker ticker) {
    this.lane = lane;
    this.ticker = ticker;
  }

  /** One accepted task given to {@code execute} was dropped, ending as {@code why} says. */
  void dropped(Runnable task, LaneRejectedException why) {
    sample = why.reason() + " of " + describe(task) + " (" + why.getMessage() + ")";
    pending.incrementAndGet();
    flush(ticker.read());
  }

  /** True while some drop waits for its summary line (the health thread flushes it). */
  boolean owesLine() {
    return pending.get() != 0;
  }

  /**
   * The lane terminated and leaves the health thread, which will not flush it again: writes the
   * summary owed now, and makes every later flush write at once.
   */
  void laneLeft(long now) {
    left = true; // then read pending (in flush): the Dekker pair with dropped()
    flush(now);
  }

  /** Writes the summary line if one is due (the dropping thread, or the health thread). */
  void flush(long now) {
    if (pending.get() == 0) {
      return;
    }
    boolean last = left;
    if (last) {
      lineLock.lock();
    } else if (!lineLock.tryLock()) {
      return;
    }
    try {
      if (!last && anyLine && now - lastLineAt < SUMMARY_NANOS) {
        return;
      }
      long n = pending.getAndSet(0);
      if (n == 0) {
        return;
      }
      String since = anyLine
          ? " in the last " + TimeUnit.NANOSECONDS.toSeconds(now - lastLineAt) + " s" : "";
      LOG.log(System.Logger.Level.WARNING, "lane \"" + lane + "\": dropped " + n
          + (n == 1 ? " task" : " tasks") + " given to execute()" + since + "; latest: " + sample
          + ". Each is counted in stats() under its outcome; "
          + (last ? "the lane has terminated." : "the next line comes in "
              + TimeUnit.NANOSECONDS.toSeconds(SUMMARY_NANOS) + " s at the soonest.")
          + " Give the lane an exceptionHandler to receive every one.");
      lastLineAt = now;
      anyLine = true;
    } finally {
      lineLock.unlock();
    }
  }

  private static String describe(Runnable task) {
    String s;
    try {
      s = String.valueOf(task);
    } catch (RuntimeException e) {
      s = task.getClass().getName();
    }
    return s.length() > 200 ? s.substring(0, 200) + "…" : s;
  }
}
