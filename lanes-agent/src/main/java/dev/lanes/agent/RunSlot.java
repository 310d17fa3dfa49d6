package dev.lanes.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One worker thread's timing of the tasks it runs for one pool: the task running now (for the
 * watchdog's deadlock and blocking checks) and a ring of finished tasks' (wait, run) pairs, and of
 * the requests those tasks began to serve (Tomcat's), that the pool's record drains into its
 * histograms.
 *
 * <p><b>Concurrency design.</b> A single writer, the owner thread, appends samples and publishes
 * them with a release store of {@link #written}; readers drain under the record's monitor
 * (serialising the watchdog and the owner, which drains its own ring when it is full) and publish
 * what they consumed with a release store of {@link #read}. The task running now is published the
 * same way ({@link #current} after {@link #currentStart}), so a reader that sees a task sees when
 * it started. Counts are exact once drained; a reader sees finished tasks at most one drain late.
 * A task that was not sampled (agent option {@code sample=N}) is only counted: the owner adds it
 * to {@link #untimed} (and {@link #untimedFailed}) with a release store, and a drain hands over
 * the counts' growth since its last read.
 */
final class RunSlot {
  /** Ring size: a worker drains its own ring when it fills between two watchdog ticks. */
  static final int CAPACITY = 256;
  private static final int MASK = CAPACITY - 1;
  /**
   * A thread measures the CPU time of the first task it starts after this many nanoseconds since
   * the last one it measured (a thread-CPU read costs about a microsecond: 1 ms keeps it under
   * 0.2 % of the thread's time, whatever the tasks' size).
   */
  static final long CPU_SAMPLE_INTERVAL_NANOS = 1_000_000L;
  static final long UNKNOWN = -1;
  /** The start published for a task that is not timed (sampled mode): no clock was read. */
  static final long START_UNKNOWN = Long.MIN_VALUE;
  /** The wait of work that was never queued: an event loop's IO turn (counted apart from tasks). */
  static final long NOT_QUEUED = -2;
  /**
   * The run stored for a request that the running task began to serve (no run of its own; its
   * wait is the request's): told apart from a task's run, failed ones included, when drained.
   */
  private static final long REQUEST = Long.MIN_VALUE;
  /** As {@link #REQUEST}, for the first request its task served. */
  private static final long FIRST_REQUEST = Long.MIN_VALUE + 1;

  private static final VarHandle WRITTEN;
  private static final VarHandle READ;
  private static final VarHandle CURRENT;
  private static final VarHandle CURRENT_START;
  private static final VarHandle UNTIMED;
  private static final VarHandle UNTIMED_FAILED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      WRITTEN = l.findVarHandle(RunSlot.class, "written", long.class);
      READ = l.findVarHandle(RunSlot.class, "read", long.class);
      CURRENT = l.findVarHandle(RunSlot.class, "current", Object.class);
      CURRENT_START = l.findVarHandle(RunSlot.class, "currentStart", long.class);
      UNTIMED = l.findVarHandle(RunSlot.class, "untimed", long.class);
      UNTIMED_FAILED = l.findVarHandle(RunSlot.class, "untimedFailed", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Thread owner;
  final Object pool;
  final PoolRecord record;
  private final long[] waits = new long[CAPACITY];
  private final long[] runs = new long[CAPACITY];
  @SuppressWarnings("unused") private long written; // through WRITTEN
  @SuppressWarnings("unused") private long read; // through READ
  @SuppressWarnings("unused") private Object current; // through CURRENT
  @SuppressWarnings("unused") private long currentStart; // through CURRENT_START
  @SuppressWarnings("unused") private long untimed; // through UNTIMED; owner writes
  @SuppressWarnings("unused") private long untimedFailed; // through UNTIMED_FAILED; owner writes
  /** The untimed counts at the last drain (under the record's monitor). */
  private long drainedUntimed;
  private long drainedUntimedFailed;

  // Owner thread only.
  int depth;
  /** The running top-level task is timed (always, unless sampled mode left it out). */
  boolean timed = true;
  long started;
  long waited;
  long cpuStart = UNKNOWN;
  long lastCpuSample = Long.MIN_VALUE / 2;
  /** When the event loop's current IO turn began (owner only). */
  long ioStarted;
  /** Requests the running top-level task began to serve so far (owner only). */
  int requestsInTask;
  /** Tasks whose CPU time was measured, and their CPU time; owner writes, readers read racily. */
  volatile long cpuTasks;
  volatile long cpuNanos;

  RunSlot(Thread owner, Object pool, PoolRecord record) {
    this.owner = owner;
    this.pool = pool;
    this.record = record;
  }

  /** Owner: publishes the task it is about to run. */
  void begin(Object task, long start) {
    CURRENT_START.setOpaque(this, start);
    CURRENT.setRelease(this, task);
  }

  /** Owner: the task ended. */
  void clear() {
    CURRENT.setRelease(this, null);
  }

  /** Any thread: the task running now, or null. */
  Object current() {
    return CURRENT.getAcquire(this);
  }

  /** Any thread, after {@link #current()} returned non-null: when that task started. */
  long currentStart() {
    return (long) CURRENT_START.getOpaque(this);
  }

  /**
   * Owner: records a finished task ({@code wait} {@link #UNKNOWN} when it was never stamped; a
   * failed task's run time is stored as {@code -run - 1}).
   */
  void append(long wait, long run, boolean failed) {
    long w = written;
    if (w - (long) READ.getAcquire(this) >= CAPACITY) {
      record.drain(this);
    }
    int i = (int) (w & MASK);
    waits[i] = wait;
    runs[i] = failed ? -run - 1 : run;
    WRITTEN.setRelease(this, w + 1);
  }

  /** Owner: a task that was not timed ended; counted only. */
  void countUntimed(boolean failed) {
    UNTIMED.setRelease(this, untimed + 1);
    if (failed) { // after the count: a reader that sees the failure sees its task counted
      UNTIMED_FAILED.setRelease(this, untimedFailed + 1);
    }
  }

  /**
   * Owner: the running task began to serve a request that waited {@code wait} for a thread ({@code
   * first}: the first request of this task).
   */
  void appendRequest(long wait, boolean first) {
    long w = written;
    if (w - (long) READ.getAcquire(this) >= CAPACITY) {
      record.drain(this);
    }
    int i = (int) (w & MASK);
    waits[i] = wait;
    runs[i] = first ? FIRST_REQUEST : REQUEST;
    WRITTEN.setRelease(this, w + 1);
  }

  /** Under the record's monitor: hands every published sample to {@code into}; returns how many. */
  int drainTo(SampleSink into) {
    long r = read;
    long w = (long) WRITTEN.getAcquire(this);
    for (long k = r; k < w; k++) {
      int i = (int) (k & MASK);
      long run = runs[i];
      if (run == REQUEST || run == FIRST_REQUEST) {
        into.request(waits[i], run == FIRST_REQUEST);
        continue;
      }
      boolean failed = run < 0;
      into.sample(waits[i], failed ? -run - 1 : run, failed);
    }
    READ.setRelease(this, w);
    long f = (long) UNTIMED_FAILED.getAcquire(this); // first: see countUntimed
    long n = (long) UNTIMED.getAcquire(this);
    if (n != drainedUntimed || f != drainedUntimedFailed) {
      into.untimed(n - drainedUntimed, f - drainedUntimedFailed);
      drainedUntimed = n;
      drainedUntimedFailed = f;
    }
    return (int) (w - r);
  }

  /** Receives drained samples. */
  interface SampleSink {
    void sample(long wait, long run, boolean failed);

    /**
     * A request began, having waited {@code wait} for a thread ({@link #UNKNOWN}: not known);
     * {@code first}: the first its task served.
     */
    void request(long wait, boolean first);

    /** {@code count} tasks ended without timing ({@code failed} of them failed). */
    void untimed(long count, long failed);
  }
}
