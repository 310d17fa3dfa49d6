package dev.lanes.serve;

import dev.lanes.Lane;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import dev.lanes.Ticker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * Queue wait and run time per endpoint stage, from the lanes' own {@link TaskRecord}s: the server
 * labels every task with its stage ({@code fast}, {@code slow}, {@code call.io}, ...), and this
 * book keeps one pair of histograms per label. Unlike a lane's since-start figures, these can be
 * reset ({@code POST /stats/reset}), so that the load generator reads the figures of its own run.
 *
 * <p><b>Concurrency design.</b> Records arrive on the lanes' worker threads. The set of labels is
 * fixed at construction (the server's routes), so {@code books} is an immutable map and each
 * {@link Book} is guarded by its own lock (short critical sections: two histogram records). A
 * reset takes each book's lock in turn, so a read right after a reset may mix books reset a few
 * microseconds apart — fine for a demo. {@code resetAt} is volatile.
 *
 * <p>For the live page's time series, each book also keeps the histograms of the tasks that ended
 * since the last {@link #takeInterval} (taken once a second by {@link LiveSeries}), and the
 * requests waiting now: the server calls {@link #accepted} when a stage's lane accepts a request
 * and {@link #started} when it starts, so a request still waiting shows (count and age) before it
 * ends. The waiting set is a concurrent map of token → accepted time, read without the lock
 * (approximate while requests arrive and start).
 */
public final class EndpointBook implements AutoCloseable {

  /** Longest time a histogram tracks (longer values are clamped): one hour. */
  private static final long MAX_TRACKED_NANOS = 3_600_000_000_000L;

  private final Map<String, Book> books;
  /** The lanes followed and the listener given to each; guarded by itself. */
  private final Map<Lane, java.util.function.Consumer<TaskRecord>> followed = new LinkedHashMap<>();
  private final Ticker ticker;
  private volatile long resetAtNanos;

  /**
   * A book for these stage labels, each with the name of the lane that runs it (several labels
   * may share a lane).
   */
  public EndpointBook(Map<String, String> laneByLabel, Ticker ticker) {
    Map<String, Book> m = new LinkedHashMap<>();
    laneByLabel.forEach((label, lane) -> m.put(label, new Book(label, lane)));
    this.books = Map.copyOf(m);
    this.ticker = ticker;
    this.resetAtNanos = ticker.read();
  }

  /** Starts listening to {@code lane}'s task records, each booked under its own label. */
  public void follow(Lane lane) {
    java.util.function.Consumer<TaskRecord> listener = r -> record(r.label(), r);
    synchronized (followed) {
      followed.put(lane, listener);
    }
    lane.onTask(listener);
  }

  /**
   * Books {@code r} under {@code label} (ignored when the label is not one of this book's), for a
   * server that cannot label a task when it submits it: a web server's request executor sees a
   * connection, not a path, so the server learns the label while the task runs.
   */
  public void record(String label, TaskRecord r) {
    Book b = books.get(label);
    if (b != null) {
      b.add(r);
    }
  }

  private final java.util.concurrent.atomic.AtomicLong tokens = new java.util.concurrent.atomic.AtomicLong();

  /** A request of stage {@code label} was accepted by its lane; returns the token for {@link #started}. */
  public long accepted(String label) {
    long token = tokens.incrementAndGet();
    Book b = books.get(label);
    if (b != null) {
      b.waiting.put(token, ticker.read());
    }
    return token;
  }

  /** The request started running, or was refused, or will never run: it no longer waits. */
  public void started(String label, long token) {
    Book b = books.get(label);
    if (b != null) {
      b.waiting.remove(token);
    }
  }

  /** The figures of the tasks that ended since the previous call, and what waits now; then starts a new interval. */
  Interval takeInterval(String label) {
    Book b = books.get(label);
    return b == null ? null : b.takeInterval(ticker.read());
  }

  /** Forgets the figures so far ({@code POST /stats/reset}); what waits now still waits. */
  public void reset() {
    resetAtNanos = ticker.read();
    books.values().forEach(Book::reset);
  }

  /** Nanoseconds since the last reset (or since start). */
  long windowNanos() {
    return ticker.read() - resetAtNanos;
  }

  /** Figures per label, in route order. */
  List<Figures> figures(List<String> order) {
    List<Figures> out = new ArrayList<>();
    for (String label : order) {
      Book b = books.get(label);
      if (b != null) {
        out.add(b.figures());
      }
    }
    return out;
  }

  /** Stops listening to the lanes. */
  @Override
  public void close() {
    synchronized (followed) {
      followed.forEach(Lane::removeListener);
      followed.clear();
    }
  }

  /** Summary in milliseconds. */
  record Summary(long count, double p50, double p99, double max, double mean) {}

  /**
   * One stage's second: tasks that ended in it and their wait and run figures (ms), and the
   * requests waiting at its end with the age of the oldest (ms, 0 when none waits).
   */
  record Interval(String label, String lane, long ended, Summary queueWait, Summary runTime, int waiting,
      double oldestWaitingMs) {}

  /** One label's figures since the last reset. */
  record Figures(String label, String lane, long tasks, long failed, long rejected, Summary queueWait, Summary runTime) {}

  private static final class Book {
    final String label;
    final String lane;
    final ReentrantLock lock = new ReentrantLock();
    final Histogram wait = new Histogram(MAX_TRACKED_NANOS, 2);
    final Histogram run = new Histogram(MAX_TRACKED_NANOS, 2);
    final Histogram intervalWait = new Histogram(MAX_TRACKED_NANOS, 2);
    final Histogram intervalRun = new Histogram(MAX_TRACKED_NANOS, 2);
    final java.util.concurrent.ConcurrentHashMap<Long, Long> waiting = new java.util.concurrent.ConcurrentHashMap<>();
    long failed;
    long rejected;

    Book(String label, String lane) {
      this.label = label;
      this.lane = lane;
    }

    void add(TaskRecord r) {
      lock.lock();
      try {
        if (r.outcome().isRejection()) {
          rejected++;
          return;
        }
        if (r.startedNanos() < 0) {
          return; // cancelled before it ran: no timing, as in the lane's own figures
        }
        if (r.outcome() == TaskOutcome.FAILED) {
          failed++;
        }
        wait.recordValue(clamp(r.queueWaitNanos()));
        run.recordValue(clamp(r.runNanos()));
        intervalWait.recordValue(clamp(r.queueWaitNanos()));
        intervalRun.recordValue(clamp(r.runNanos()));
      } finally {
        lock.unlock();
      }
    }

    /** Forgets the figures so far ({@code POST /stats/reset}); what waits now still waits. */
  public void reset() {
      lock.lock();
      try {
        wait.reset();
        run.reset();
        failed = 0;
        rejected = 0;
      } finally {
        lock.unlock();
      }
    }

    Interval takeInterval(long now) {
      long oldest = Long.MAX_VALUE;
      int count = 0;
      for (long accepted : waiting.values()) {
        oldest = Math.min(oldest, accepted);
        count++;
      }
      double oldestMs = count == 0 ? 0 : Math.max(0, now - oldest) / 1e6;
      lock.lock();
      try {
        Interval i = new Interval(label, lane, intervalRun.getTotalCount(), summary(intervalWait), summary(intervalRun),
            count, oldestMs);
        intervalWait.reset();
        intervalRun.reset();
        return i;
      } finally {
        lock.unlock();
      }
    }

    Figures figures() {
      lock.lock();
      try {
        return new Figures(label, lane, wait.getTotalCount(), failed, rejected, summary(wait), summary(run));
      } finally {
        lock.unlock();
      }
    }

    private static Summary summary(Histogram h) {
      if (h.getTotalCount() == 0) {
        return new Summary(0, 0, 0, 0, 0);
      }
      return new Summary(
          h.getTotalCount(),
          h.getValueAtPercentile(50) / 1e6,
          h.getValueAtPercentile(99) / 1e6,
          h.getMaxValue() / 1e6,
          h.getMean() / 1e6);
    }

    private static long clamp(long nanos) {
      return Math.min(Math.max(0, nanos), MAX_TRACKED_NANOS);
    }
  }
}
