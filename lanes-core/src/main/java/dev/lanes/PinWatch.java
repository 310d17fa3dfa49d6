package dev.lanes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingStream;

/**
 * Attributes the JDK's {@code jdk.VirtualThreadPinned} events to the lanes that report pinning
 * ({@link LaneBuilder#reportPinning()}) and to the label of the task that pinned: one in-process
 * JFR stream for the JVM, started when the first such lane is built and closed when the last one
 * terminated. The stream also records lanes' own {@code dev.lanes.Task} events with the same
 * threshold: a task that pinned its carrier that long ran at least that long, so its event is
 * there, and gives the lane and label of the pinned thread over the pin's time.
 *
 * <p>The two come in either order (a task's event is committed when it ends, after its pins; the
 * stream delivers per flush, about once a second). So each task event is kept for a while per
 * thread, each pin waits for a task event of its thread that covers it, and a pin nothing covered
 * after {@link #PATIENCE} goes to the lane its thread is named after ({@code <lane>-<n>}) with no
 * label, or is dropped if none is.
 *
 * <p><b>Concurrency design.</b> The stream calls back on its one thread: the pending pins and
 * recent task spans are that thread's alone. The set of reporting lanes is a concurrent map; each
 * lane's {@link Book} is read by {@code stats()} on other threads and so guards itself with a
 * lock (no monitor: {@code stats()} may run on a virtual thread).
 */
final class PinWatch {
  /** The JDK's own default threshold for {@code jdk.VirtualThreadPinned}. */
  static final Duration THRESHOLD = Duration.ofMillis(20);
  /** How long a pin waits for the event of the task it happened in. */
  static final Duration PATIENCE = Duration.ofSeconds(10);

  private static final Map<String, Book> BOOKS = new ConcurrentHashMap<>();
  /** Guards {@link #stream} (watch and unwatch; never on a task's path). */
  private static final ReentrantLock LOCK = new ReentrantLock();
  private static RecordingStream stream; // guarded by LOCK

  private PinWatch() {}

  /** Starts reporting pinning for the lane named {@code lane}; returns its book. */
  static Book watch(String lane) {
    LOCK.lock();
    try {
      Book b = new Book();
      BOOKS.put(lane, b);
      if (stream == null) {
        stream = open();
      }
      return b;
    } finally {
      LOCK.unlock();
    }
  }

  /** The lane named {@code lane} terminated: its book leaves; the last one closes the stream. */
  static void unwatch(String lane, Book book) {
    LOCK.lock();
    try {
      BOOKS.remove(lane, book);
      if (BOOKS.isEmpty() && stream != null) {
        stream.close();
        stream = null;
      }
    } finally {
      LOCK.unlock();
    }
  }

  private static RecordingStream open() {
    // Loaded here, not by the first task that makes one: registering an event class takes JFR
    // tens of milliseconds, which on a virtual thread pins its carrier (seen: 81 ms).
    try {
      Class.forName(LaneEvents.TaskEvent.class.getName(), true, PinWatch.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
    RecordingStream rs = new RecordingStream();
    rs.enable("jdk.VirtualThreadPinned").withThreshold(THRESHOLD).withStackTrace();
    rs.enable(LaneEvents.TaskEvent.class).withThreshold(THRESHOLD).withoutStackTrace();
    Matcher m = new Matcher();
    rs.onEvent("jdk.VirtualThreadPinned", e -> safely(() -> m.pinned(e)));
    rs.onEvent("dev.lanes.Task", e -> safely(() -> m.task(e)));
    rs.onFlush(() -> safely(m::expire));
    rs.setMaxAge(Duration.ofSeconds(30));
    rs.startAsync();
    return rs;
  }

  private static final System.Logger LOG = System.getLogger(PinWatch.class.getName());
  private static boolean failureLogged; // the stream's thread only

  /** Runs a callback; what it throws is logged once and never ends the stream. */
  private static void safely(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      if (!failureLogged) {
        failureLogged = true;
        LOG.log(System.Logger.Level.WARNING, "lanes: reading a pinning event failed", e);
      }
    }
  }

  /** Joins pins to the task spans of their threads. Used by the stream's thread only. */
  private static final class Matcher {
    private record Span(String lane, String label, Instant start, Instant end, Instant seen) {}

    private record Pin(long thread, String threadName, Instant start, Instant end, long nanos,
        String frame, String stack, String reason, Instant seen) {}

    private final Map<Long, ArrayDeque<Span>> spans = new HashMap<>();
    private final List<Pin> pending = new ArrayList<>();

    void task(RecordedEvent e) {
      if (e.getThread() == null) {
        return;
      }
      long thread = e.getThread().getJavaThreadId();
      Span s = new Span(e.getString("lane"), e.getString("label"), e.getStartTime(),
          e.getEndTime(), Instant.now());
      ArrayDeque<Span> q = spans.computeIfAbsent(thread, k -> new ArrayDeque<>());
      q.addLast(s);
      if (q.size() > 64) {
        q.removeFirst();
      }
      for (Iterator<Pin> it = pending.iterator(); it.hasNext(); ) {
        Pin p = it.next();
        if (p.thread == thread && covers(s, p)) {
          it.remove();
          book(s.lane, s.label, p);
        }
      }
    }

    void pinned(RecordedEvent e) {
      if (e.getThread() == null) {
        return;
      }
      long thread = e.getThread().getJavaThreadId();
      Pin p = new Pin(thread, e.getThread().getJavaName(), e.getStartTime(), e.getEndTime(),
          e.getDuration().toNanos(), firstOwnFrame(e.getStackTrace()), top(e.getStackTrace()),
          e.hasField("pinnedReason") ? e.getString("pinnedReason") : "",
          Instant.now());
      ArrayDeque<Span> q = spans.get(thread);
      if (q != null) {
        for (Span s : q) {
          if (covers(s, p)) {
            book(s.lane, s.label, p);
            return;
          }
        }
      }
      pending.add(p);
    }

    /** Pins nothing covered in time go to the lane their thread is named after; old spans go. */
    void expire() {
      Instant now = Instant.now();
      Instant old = now.minus(PATIENCE);
      for (Iterator<Pin> it = pending.iterator(); it.hasNext(); ) {
        Pin p = it.next();
        if (p.seen.isBefore(old)) {
          it.remove();
          String lane = laneNamed(p.threadName);
          if (lane != null) {
            book(lane, "", p);
          }
        }
      }
      for (Iterator<ArrayDeque<Span>> it = spans.values().iterator(); it.hasNext(); ) {
        ArrayDeque<Span> q = it.next();
        while (!q.isEmpty() && q.peekFirst().seen.isBefore(old)) {
          q.removeFirst();
        }
        if (q.isEmpty()) {
          it.remove();
        }
      }
    }

    private static boolean covers(Span s, Pin p) {
      return !p.start.isBefore(s.start) && !p.end.isAfter(s.end);
    }

    private static void book(String lane, String label, Pin p) {
      Book b = lane == null ? null : BOOKS.get(lane);
      if (b != null) {
        b.add(label == null ? "" : label, p.nanos, p.frame, p.stack, p.reason);
      }
    }

    /** The lane a thread named {@code <lane>-<n>} belongs to, if it reports pinning. */
    private static String laneNamed(String threadName) {
      if (threadName == null) {
        return null;
      }
      int dash = threadName.lastIndexOf('-');
      if (dash <= 0 || dash == threadName.length() - 1) {
        return null;
      }
      for (int i = dash + 1; i < threadName.length(); i++) {
        if (!Character.isDigit(threadName.charAt(i))) {
          return null;
        }
      }
      String lane = threadName.substring(0, dash);
      return BOOKS.containsKey(lane) ? lane : null;
    }
  }

  private static boolean jdkFrame(RecordedFrame f) {
    String type = f.getMethod().getType().getName();
    return type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
  }

  private static String frameText(RecordedFrame f) {
    String line = f.getLineNumber() > 0 ? ":" + f.getLineNumber() : "";
    return f.getMethod().getType().getName() + "." + f.getMethod().getName() + line;
  }

  private static String firstOwnFrame(RecordedStackTrace st) {
    if (st == null || st.getFrames().isEmpty()) {
      return "(no stack)";
    }
    for (RecordedFrame f : st.getFrames()) {
      if (f.isJavaFrame() && !jdkFrame(f)) {
        return frameText(f);
      }
    }
    return frameText(st.getFrames().get(0));
  }

  private static String top(RecordedStackTrace st) {
    if (st == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    List<RecordedFrame> frames = st.getFrames();
    for (int i = 0; i < Math.min(12, frames.size()); i++) {
      b.append(i == 0 ? "" : "\n").append(frameText(frames.get(i)));
    }
    return b.toString();
  }

  /** One lane's pins: totals and the sites with the most time; guarded by its lock. */
  static final class Book {
    private final ReentrantLock lock = new ReentrantLock();
    private long count;
    private long totalNanos;
    private long longestNanos;
    private final Map<String, long[]> bySite = new HashMap<>(); // count, total, longest
    private final Map<String, String[]> siteText = new HashMap<>(); // stack, reason, label

    void add(String label, long nanos, String frame, String stack, String reason) {
      lock.lock();
      try {
        addLocked(label, nanos, frame, stack, reason);
      } finally {
        lock.unlock();
      }
    }

    private void addLocked(String label, long nanos, String frame, String stack, String reason) {
      count++;
      totalNanos += nanos;
      longestNanos = Math.max(longestNanos, nanos);
      long[] s = bySite.get(frame);
      if (s == null) {
        if (bySite.size() >= 256) {
          return; // counted in the totals only
        }
        s = new long[3];
        bySite.put(frame, s);
      }
      s[0]++;
      s[1] += nanos;
      s[2] = Math.max(s[2], nanos);
      siteText.put(frame, new String[] {stack, reason, label});
    }

    Pinning snapshot() {
      lock.lock();
      try {
        return snapshotLocked();
      } finally {
        lock.unlock();
      }
    }

    private Pinning snapshotLocked() {
      List<Pinning.Site> sites = new ArrayList<>();
      for (var e : bySite.entrySet()) {
        String[] t = siteText.get(e.getKey());
        long[] s = e.getValue();
        sites.add(new Pinning.Site(e.getKey(), t[0], t[1], t[2], s[0], s[1], s[2]));
      }
      sites.sort((a, b) -> Long.compare(b.totalNanos(), a.totalNanos()));
      return new Pinning(true, count, totalNanos, longestNanos,
          sites.subList(0, Math.min(Pinning.MAX_SITES, sites.size())));
    }
  }
}
