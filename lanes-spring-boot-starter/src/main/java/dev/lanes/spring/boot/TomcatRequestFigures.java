package dev.lanes.spring.boot;

import dev.lanes.Distribution;
import dev.lanes.Lane;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The embedded Tomcat's requests in its lane ({@code lanes.server.lane}), counted apart from the
 * lane's tasks. A task of that lane is a socket <em>dispatch</em> ({@value
 * LanesAutoConfiguration#TOMCAT_DISPATCH}): it serves the requests waiting on one connection —
 * none (a client's close), one, or several pipelined ones — so the lane's task count depends on
 * the client's pace. Here each request is counted once, when Tomcat's pipeline first sees it, and
 * given the queue wait of the dispatch that serves it if it is that dispatch's first request, none
 * if a dispatch already running read it (it never waited for a thread). Nothing is divided: the
 * requests' wait sum is the wait sum of the dispatches that served a request.
 *
 * <p>A dispatch's wait is measured here, on {@link System#nanoTime()}, from the moment Tomcat
 * hands it over to the moment a worker starts it — the same span the lane measures as the task's
 * queue wait, give or take the calls in between. A request's run time is the time Tomcat's
 * pipeline took for it on that thread (an asynchronous request's later dispatches are not added).
 * Figures are since start.
 *
 * <p>{@link TomcatRequestValve} counts the requests; this class names no Tomcat type, so the
 * endpoint and meters that read it load without Tomcat.
 *
 * <p><b>Concurrency design.</b> A dispatch runs on one worker thread, which finds it through a
 * {@link ThreadLocal} set for the dispatch's run; the first request marks the dispatch credited
 * (the same thread, so a plain field). The counters are {@link LongAdder}s and the distributions
 * {@link ConcurrentHistogram}s, written by any worker and read by any reader without a lock; figures
 * read while requests end may differ by the requests ending at that moment.
 */
final class TomcatRequestFigures {
  private static final ThreadLocal<Dispatch> RUNNING = new ThreadLocal<>();
  private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);

  private final String lane;
  private final LongAdder requests = new LongAdder();
  private final LongAdder readByRunningDispatch = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final LongAdder runNanos = new LongAdder();
  private final Histogram waits = new ConcurrentHistogram(HIGHEST_NANOS, 2);
  private final Histogram runs = new ConcurrentHistogram(HIGHEST_NANOS, 2);

  TomcatRequestFigures(Lane lane) {
    this.lane = lane.name();
  }

  /** The lane these requests ran in. */
  String lane() {
    return lane;
  }

  /** Tomcat's socket task, wrapped so that the requests it serves find their wait. */
  Runnable dispatch(Runnable socketTask) {
    return new Dispatch(socketTask, System.nanoTime());
  }

  /**
   * The queue wait of the request Tomcat's pipeline is starting on this thread: its dispatch's
   * wait if it is the dispatch's first request, else {@link #READ_BY_RUNNING_DISPATCH} (also on a
   * thread that runs no dispatch).
   */
  static long waitOfRequestStartingHere() {
    Dispatch d = RUNNING.get();
    return d == null ? READ_BY_RUNNING_DISPATCH : d.takeWait();
  }

  /** What {@link #waitOfRequestStartingHere} says of a request that did not wait for a thread. */
  static final long READ_BY_RUNNING_DISPATCH = -1;

  /** Requests counted since start. */
  long requests() {
    return requests.sum();
  }

  /**
   * Requests read by a dispatch already running (pipelined, or a kept-alive connection's next
   * request read before its dispatch ended): they did not wait for a thread.
   */
  long readByRunningDispatch() {
    return readByRunningDispatch.sum();
  }

  /** Their queue wait, summed, in nanoseconds. */
  long waitNanosTotal() {
    return waitNanos.sum();
  }

  /** Their run time, summed, in nanoseconds. */
  long runNanosTotal() {
    return runNanos.sum();
  }

  /** The requests' queue waits since start (nanoseconds). */
  Distribution queueWait() {
    return distribution(waits);
  }

  /** The requests' run times since start (nanoseconds). */
  Distribution runTime() {
    return distribution(runs);
  }

  private static Distribution distribution(Histogram h) {
    Histogram copy = h.copy();
    if (copy.getTotalCount() == 0) {
      return Distribution.EMPTY;
    }
    return new Distribution(copy.getTotalCount(), copy.getMean(), copy.getValueAtPercentile(50),
        copy.getValueAtPercentile(90), copy.getValueAtPercentile(99), copy.getMaxValue());
  }

  /**
   * One request: its queue wait ({@link #READ_BY_RUNNING_DISPATCH} for one read by a dispatch
   * already running, counted as no wait) and its run time, in nanoseconds.
   */
  void record(long wait, long run) {
    if (wait == READ_BY_RUNNING_DISPATCH) {
      readByRunningDispatch.increment();
      wait = 0;
    }
    waits.recordValue(Math.min(wait, HIGHEST_NANOS));
    runs.recordValue(Math.min(run, HIGHEST_NANOS));
    waitNanos.add(wait);
    runNanos.add(run);
    requests.increment();
  }

  /** One socket dispatch: when Tomcat handed it over, and whether a request took its wait. */
  private static final class Dispatch implements Runnable {
    private final Runnable socketTask;
    private final long handedOverAt;
    private long waitedNanos = READ_BY_RUNNING_DISPATCH; // set when it starts; taken by its first request

    Dispatch(Runnable socketTask, long handedOverAt) {
      this.socketTask = socketTask;
      this.handedOverAt = handedOverAt;
    }

    @Override
    public void run() {
      waitedNanos = Math.max(0, System.nanoTime() - handedOverAt);
      Dispatch outer = RUNNING.get();
      RUNNING.set(this);
      try {
        socketTask.run();
      } finally {
        if (outer == null) {
          RUNNING.remove();
        } else {
          RUNNING.set(outer);
        }
      }
    }

    /** The dispatch's wait for its first request; {@link #READ_BY_RUNNING_DISPATCH} for the later ones. */
    long takeWait() {
      long w = waitedNanos;
      waitedNanos = READ_BY_RUNNING_DISPATCH;
      return w;
    }

    @Override
    public String toString() {
      return socketTask.toString();
    }
  }
}
