package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A thread's membership of a lane. Three kinds: a <em>core</em> worker of a platform lane (lives
 * until the lane shuts down or its concurrency is lowered; parks in the lane's ring when idle), an
 * <em>elastic</em> worker of a virtual lane (started with a permit, runs queued tasks back to back,
 * keeps its permit a moment when the ring is empty, then ends), and a <em>compensation</em> worker
 * (a temporary extra thread added to break a starvation deadlock).
 *
 * <p><b>Concurrency design.</b> An idle worker parks in its lane's {@link TaskRing} ({@code idle},
 * {@code nextIdle}, guarded by the ring's idle lock) and is woken by an unpark, never by an
 * interrupt, so nothing has to keep a shutdown's interrupt out of the next task. The fields a
 * worker writes on every task ({@code current}, the busy flag, its clocks, its scratch task and
 * {@code taken}) are its own, padded so that no other worker's writes share their cache line.
 * {@code waitingOn} (and {@code waitTimed}, written before it) is read by the deadlock detector
 * without locks (a racy but safe view: it only reads it).
 *
 * <p><b>Failure model.</b> A worker whose loop ends by an exception or error (from lanes' own
 * bookkeeping, a handler, a logger, an {@code OutOfMemoryError}) still leaves through the lane's
 * exit path: it gives back its permit and the lane replaces it while it runs. A thread that dies
 * before it ever entered {@link #run()} (a thread factory's wrapper that throws first) is found by
 * the health thread ({@link #entered} still false, thread terminated) and cleaned up the same way.
 * {@link #exited} makes that exit happen once.
 */
final class Worker implements Runnable {
  private static final VarHandle RUNNING_TASK;
  private static final VarHandle EXITED;

  static {
    try {
      RUNNING_TASK = MethodHandles.lookup().findVarHandle(Worker.class, "runningTask", int.class);
      EXITED = MethodHandles.lookup().findVarHandle(Worker.class, "exited", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  enum Kind {
    CORE,
    ELASTIC,
    COMPENSATION
  }

  final LaneExecutor lane;
  final Kind kind;
  /** This worker's own timing tally (single writer), or null to record under the shared lock. */
  TimingBook.Tally tally;
  volatile Thread thread;
  volatile LaneFuture<?> waitingOn;
  /** The wait on {@code waitingOn} has a timeout; written before {@code waitingOn}. */
  boolean waitTimed;

  /** Set when the thread entered {@link #run()}. */
  volatile boolean entered;

  /** Set (by CAS) by whoever runs this worker's exit path, once. */
  @SuppressWarnings("unused") // accessed through EXITED
  private volatile int exited;

  /** An elastic worker holds a permit; touched only by its own thread (and its exit path). */
  boolean holdsPermit;

  /** The task this worker runs now, for the exit path of a worker that dies inside it. */
  LaneFuture<?> current;

  /** A compensation worker's one task (claimed from the queue before the thread started). */
  volatile LaneFuture<?> assigned;

  /** Parked in the ring's idle stack; cleared by whoever wakes it (under the ring's idle lock). */
  volatile boolean idle;

  /** Next idle worker in the ring's stack; guarded by the ring's idle lock. */
  Worker nextIdle;

  /** Where this worker's ring takes leave an entry's stamp and position. */
  final TaskRing.Taken taken = new TaskRing.Taken();

  /**
   * Reused for every plain entry this worker takes (a task given to {@code execute} that rides in
   * the ring without an object of its own), so that the run path has one shape; never escapes
   * the task's run.
   */
  final LaneFuture<?> scratch;

  /** 1 while this worker runs a task; written by the worker with release stores (no fence). */
  @SuppressWarnings("unused") // accessed through RUNNING_TASK
  private int runningTask;

  /**
   * Padding: a worker's fields are written on every task, so two workers' objects (and the
   * scratch envelope allocated beside each) must not share a cache line.
   */
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

  /** CPU reading at the end of the previous task (every-task timing), or -1. */
  long lastCpu = -1;

  /** On the lane's ticker, when this worker may next read its CPU time (time-bounded sampling). */
  long nextCpuSampleAt;

  /** A core worker that left because the lane's concurrency was lowered (already uncounted). */
  boolean retired;

  Worker(LaneExecutor lane, Kind kind) {
    this.lane = lane;
    this.kind = kind;
    this.scratch = LaneFuture.scratch(lane);
  }

  @Override
  public void run() {
    entered = true;
    lane.runWorker(this);
  }

  /** True for the one caller that gets to run this worker's exit path. */
  boolean claimExit() {
    return EXITED.compareAndSet(this, 0, 1);
  }

  /** The thread died without ever running this worker (see the class comment). */
  boolean diedBeforeRunning() {
    Thread t = thread;
    return !entered && t != null && t.getState() == Thread.State.TERMINATED;
  }

  void beginTask() {
    RUNNING_TASK.setRelease(this, 1);
  }

  void endTask() {
    RUNNING_TASK.setRelease(this, 0);
  }

  boolean isRunningTask() {
    return (int) RUNNING_TASK.getAcquire(this) == 1;
  }

  void interruptNow() {
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }
}
