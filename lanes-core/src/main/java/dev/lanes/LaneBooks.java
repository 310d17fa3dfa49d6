package dev.lanes;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A lane's books: the counts of how its tasks ended that no worker's {@link TimingBook} tally
 * keeps, the cheap gauges, and the paths every part ends a task by. Of the four ways a task ends
 * (DESIGN.md, "A task's life"), {@link #endQueued} is here — the one way an accepted task that
 * will never run ends — with the slot give-back ({@link #releaseSlot}) and the record
 * ({@link #publish}) that the others use too; {@link Worker#runTask} and {@link
 * Worker#exitWorker} end the tasks that ran, {@code LaneExecutor.reject} the ones refused at
 * submission. {@code LaneExecutor.stats()} reads these counts in the order it documents.
 *
 * <p><b>Concurrency design.</b> Counts are {@link LongAdder}s (or atomics), written by whoever
 * ends the task — at most once per task, because only the party whose CAS took the task out of
 * QUEUED (or took its plain entry from the ring) ends it. {@code deadEntries} may be off by the
 * kills in flight (a killer adds one after its CAS; a worker that drops the entry in between
 * takes one away first). The task listeners are a copy-on-write array, written under the lane's
 * main lock, read once per task. Nothing here takes a lock but the exception handler's and
 * listeners' own code, and the orphans' lock, which only a stopped lane's late appends and
 * {@code shutdownNow} take ({@link #endLateEntries}: a counter of callers between taking entries
 * and keeping them, waited out before anyone looks for an orphan).
 *
 * <p><b>Failure model.</b> A listener that throws is logged and the next one still runs; an
 * exception handler that throws is logged; neither changes a count.
 */
final class LaneBooks implements PoolBooks {
  private static final System.Logger LOG = System.getLogger("dev.lanes");

  private final LaneContext ctx;
  /** Slots go back here as tasks end. */
  private final Admission admission;
  private final Thread.UncaughtExceptionHandler exceptionHandler;

  /**
   * Entries in the ring whose task left it another way (cancelled, claimed, taken by a
   * compensation thread), dropped by whoever takes them.
   */
  private final AtomicInteger deadEntries = new AtomicInteger();
  /** Tasks run by their caller (caller-runs policy). */
  final LongAdder callerRan = new LongAdder();
  /** Tasks a caller runs now (caller-runs policy). */
  final LongAdder callerRunning = new LongAdder();
  /**
   * Tasks refused at submission, by reason: each is counted submitted and ended by this one
   * count, so no snapshot sees one without the other.
   */
  final EnumMap<TaskOutcome, LongAdder> refused = new EnumMap<>(TaskOutcome.class);
  /** Accepted tasks ended without running, by reason (discarded, shed late, deadlock, ...). */
  final EnumMap<TaskOutcome, LongAdder> rejected = new EnumMap<>(TaskOutcome.class);
  /** Entries appended a second time (a compensation thread's give-back). */
  private final LongAdder reappended = new LongAdder();
  final LongAdder cancelledWhileQueued = new LongAdder();
  final LongAdder returned = new LongAdder();
  /** Tasks failed without running to an end on a worker: a worker that died under them. */
  final LongAdder failedElsewhere = new LongAdder();
  /**
   * Tasks that ran and were counted COMPLETED or FAILED by their worker, then found cancelled
   * before the worker completed their future (a cancel between its look and its completion).
   */
  private final LongAdder ranThenCancelledFromCompleted = new LongAdder();
  private final LongAdder ranThenCancelledFromFailed = new LongAdder();
  /** All of those: read before the two above, so a snapshot never counts one twice. */
  private final LongAdder ranThenCancelled = new LongAdder();

  /**
   * A task its worker counted under {@code counted} (COMPLETED or FAILED) ended CANCELLED after
   * all: the books move it. The CANCELLED count grows after the other's correction, and {@link
   * #cancelledAfterRun} is read first, so a snapshot is never ahead.
   */
  void recountAsCancelled(TaskOutcome counted) {
    (counted == TaskOutcome.FAILED ? ranThenCancelledFromFailed : ranThenCancelledFromCompleted)
        .increment();
    ranThenCancelled.increment();
  }

  /** Tasks moved to CANCELLED after their worker counted them (see {@link #recountAsCancelled}). */
  long cancelledAfterRun() {
    return ranThenCancelled.sum();
  }

  /** Of those, the ones counted {@code counted} (COMPLETED or FAILED) by their worker. */
  long movedFrom(TaskOutcome counted) {
    return (counted == TaskOutcome.FAILED ? ranThenCancelledFromFailed
        : ranThenCancelledFromCompleted).sum();
  }
  /** Time workers spent between tasks running other code (dependent stages, listeners, handlers). */
  final LongAdder betweenTasksNanos = new LongAdder();
  final LongAdder cpuBoundSamples = new LongAdder();
  final LongAdder blockingSamples = new LongAdder();

  /** The task listeners; copy-on-write, written under the lane's main lock. */
  @SuppressWarnings("unchecked")
  private volatile Consumer<? super TaskRecord>[] taskListeners = new Consumer[0];

  /** Adds a task listener (under the lane's main lock). */
  void addTaskListener(Consumer<? super TaskRecord> listener) {
    Consumer<? super TaskRecord>[] old = taskListeners;
    Consumer<? super TaskRecord>[] grown = java.util.Arrays.copyOf(old, old.length + 1);
    grown[old.length] = listener;
    taskListeners = grown;
  }

  /** Removes a task listener (under the lane's main lock); true if it was one. */
  @SuppressWarnings("unchecked")
  boolean removeTaskListener(Object listener) {
    List<Consumer<? super TaskRecord>> keep = new ArrayList<>(List.of(taskListeners));
    if (!keep.remove(listener)) {
      return false;
    }
    taskListeners = keep.toArray(new Consumer[0]);
    return true;
  }

  /** The task listeners now, read once per task. */
  Consumer<? super TaskRecord>[] taskListeners() {
    return taskListeners;
  }

  /** Drops of {@code execute} tasks when the lane has no exception handler. */
  final DropLog drops;

  /**
   * Callers of {@link #endLateEntries} between taking entries from the ring and keeping or ending
   * them; whoever looks for an orphan waits for none first.
   */
  private final AtomicInteger sweepers = new AtomicInteger();

  /** A stopped lane's entry another caller took back, with the envelope it was taken as. */
  private record Orphan(Object entry, LaneFuture<?> task) {}

  /**
   * Entries taken back from a stopped lane's ring by a caller other than their submitter, waiting
   * for it or for {@code shutdownNow} ({@link #endLateEntries}); guarded by {@link #orphansLock}
   * (a lock, not a monitor: a virtual thread that blocks on it does not pin its carrier). Empty
   * but in the instants a shutdown-now races submissions.
   */
  private final List<Orphan> orphans = new ArrayList<>(0);

  private final java.util.concurrent.locks.ReentrantLock orphansLock =
      new java.util.concurrent.locks.ReentrantLock();

  LaneBooks(LaneContext ctx, Admission admission,
      Thread.UncaughtExceptionHandler exceptionHandler) {
    this.ctx = ctx;
    this.admission = admission;
    this.drops = new DropLog(ctx.name, ctx.ticker);
    this.exceptionHandler = exceptionHandler;
    for (TaskOutcome o : TaskOutcome.values()) {
      if (o.isRejection()) {
        rejected.put(o, new LongAdder());
        refused.put(o, new LongAdder());
      }
    }
  }

  /** Dead entries still in the ring; may be off by the kills in flight (tests). */
  int deadEntries() {
    return deadEntries.get();
  }

  @Override
  public void entryLeftDead() {
    deadEntries.incrementAndGet();
  }

  @Override
  public void reappended() {
    reappended.increment();
  }

  // ---------------------------------------------------------------- ending paths

  /** An accepted task that will never run ends (see {@link #endQueued}): slot back, future ended. */
  @Override
  public void endUnrun(LaneFuture<?> t, TaskOutcome outcome) {
    endQueued(t, outcome, true, true);
  }

  /** Discard-oldest's victim ends; its slot passes to the task that displaced it. */
  void endDisplaced(LaneFuture<?> t, TaskOutcome outcome) {
    endQueued(t, outcome, false, true);
  }

  /** A caller's own entry taken back from a stopped lane: its submitter hears by an exception. */
  private void endTakenBack(LaneFuture<?> t) {
    endQueued(t, TaskOutcome.SHUTDOWN, true, false);
  }

  /**
   * The one way an accepted task that will never run ends — cancelled while queued, returned by
   * {@code shutdownNow}, dropped by discard-oldest, taken back after a shutdown-now raced its
   * submission, failed to break a deadlock, refused by the gate, or left without a thread: the
   * caller owns it (its CAS took it out of QUEUED, or took its plain entry from the ring). In this
   * order: its slot is given back (unless {@code giveSlotBack} is false: it passes to another
   * task), it is counted once under {@code outcome}, its future is ended (unless {@code endFuture}
   * is false: its submitter hears of it by an exception), and its record is published. Counting
   * before the future ends means whoever sees the future done sees the task counted.
   */
  private void endQueued(LaneFuture<?> t, TaskOutcome outcome, boolean giveSlotBack,
      boolean endFuture) {
    t.stopDeadlineTimer();
    if (giveSlotBack) {
      releaseSlot();
    }
    switch (outcome) {
      case RETURNED -> returned.increment();
      case CANCELLED -> cancelledWhileQueued.increment();
      default -> rejected.get(outcome).increment();
    }
    if (endFuture) {
      switch (outcome) {
        case CANCELLED -> { } // its future was cancelled: that is how it got here
        case RETURNED -> {
          if (t.handedOut) {
            t.cancel(false); // no longer queued, so not counted again as cancelled
          } else {
            ForeignFutures.cancel(t.source);
          }
        }
        default -> {
          if (t.handedOut && outcome == TaskOutcome.DISCARDED_OLDEST) {
            t.cancel(false);
          } else {
            LaneRejectedException why =
                outcome == TaskOutcome.EXPIRED ? expiry(t, ctx.ticker.read()) : refusal(outcome);
            if (t.handedOut) {
              t.fail(why);
            } else {
              endDropped(t, why);
            }
          }
        }
      }
    }
    publish(t, "", -1, ctx.ticker.read(), -1, outcome);
  }

  /** The exception that tells of a task the lane refused or ended unrun, with the lane's figures. */
  LaneRejectedException refusal(TaskOutcome outcome) {
    return new LaneRejectedException(ctx.name, outcome, ctx.settings.get().queueCapacity, queuedCount(), running());
  }

  /**
   * The exception that tells of a task that expired: the lane's figures, how long it waited and
   * how long it had.
   */
  LaneRejectedException expiry(LaneFuture<?> t, long now) {
    return new LaneRejectedException(ctx.name, TaskOutcome.EXPIRED, ctx.settings.get().queueCapacity,
        queuedCount(), running(), String.format(java.util.Locale.ROOT,
            "it waited %s in the queue and had to start within %s",
            millis(Math.max(0, now - t.acceptedNanos)), millis(t.deadline.withinNanos)));
  }

  private static String millis(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  /**
   * The deadline of a task still queued passed (its timer): if nobody took it meanwhile, it ends
   * EXPIRED here and its ring entry is dead.
   */
  void expireQueued(LaneFuture<?> t) {
    if (t.tryKill()) {
      deadEntries.incrementAndGet();
      endUnrun(t, TaskOutcome.EXPIRED);
      if (ctx.runState() >= RunState.SHUTDOWN) {
        ctx.upcalls.tryTerminate();
      }
    }
  }

  /**
   * A worker owns {@code t} (took it out of QUEUED) and is about to start it: true if its deadline
   * passed, and then the worker ends it EXPIRED ({@link #endUnrun}) instead; else its deadline's
   * timer, if any, stops.
   */
  boolean deadlinePassed(LaneFuture<?> t) {
    LaneFuture.Deadline d = t.deadline;
    if (d == null) {
      return false;
    }
    if (d.passed(ctx.ticker.read())) {
      return true;
    }
    t.stopDeadlineTimer();
    return false;
  }

  /** An envelope whose future was cancelled while queued (its entry is dead now). */
  void cancelledWhileQueued(LaneFuture<?> t) {
    deadEntries.incrementAndGet();
    endUnrun(t, TaskOutcome.CANCELLED);
    if (ctx.runState() >= RunState.SHUTDOWN) {
      ctx.upcalls.tryTerminate();
    }
  }

  /**
   * A task given to {@code execute} that the lane accepted and then dropped unrun: a foreign
   * future (a {@code supplyAsync} task) fails; else the lane's own exception handler hears of it,
   * or, with none, {@link DropLog} counts it and summarises (a stack trace per drop would flood
   * the log under overload).
   */
  void endDropped(LaneFuture<?> t, LaneRejectedException why) {
    if (ForeignFutures.completeExceptionally(t.source, why)) {
      return;
    }
    if (exceptionHandler != null) {
      reportFailure(Thread.currentThread(), why);
    } else {
      drops.dropped(t.source, why);
    }
  }

  void endForeign(LaneFuture<?> t, Throwable why) {
    if (!ForeignFutures.completeExceptionally(t.source, why)) {
      reportFailure(Thread.currentThread(), why);
    }
  }

  /** Gives back the slot of a task that ended or left the queue for good. */
  void releaseSlot() {
    releaseSlot(null);
  }

  /**
   * Gives back a slot, counted in {@code own} (the caller's claimed tally, single writer) or, with
   * null, in the shared adder; a shutting-down lane may terminate now, and a caller blocked for
   * room is told.
   */
  void releaseSlot(TimingBook.Tally own) {
    admission.release(own);
    if (ctx.runState() >= RunState.SHUTDOWN) {
      ctx.upcalls.tryTerminate(); // perhaps the last accepted task of a shutting-down lane ended
    }
    admission.signalRoom();
  }

  /**
   * The envelope of an entry just taken from the ring, owned by the caller: the entry's own
   * envelope if its task was still queued (null, and a dead entry dropped, if not), or a new one
   * for a plain entry (slow paths only; workers use their scratch envelope).
   */
  @Override
  public LaneFuture<?> ownedEnvelope(Object x, Taken tk) {
    if (x instanceof LaneFuture<?> e) {
      if (!e.tryTake()) {
        deadEntries.decrementAndGet();
        return null;
      }
      return e;
    }
    Runnable run = (Runnable) x;
    LaneFuture<?> e = LaneFuture.internal(ctx.home, run, run, "", tk.stamp);
    e.number(tk.position + 1);
    return e;
  }

  /** Takes the oldest live entry for a worker: its envelope (owned) or a plain task; or null. */
  Object takeLive(Taken tk) {
    for (; ; ) {
      Object x = ctx.ring.poll(tk);
      if (x == null) {
        return null;
      }
      if (x instanceof LaneFuture<?> e) {
        if (!e.tryTake()) {
          deadEntries.decrementAndGet();
          continue;
        }
      }
      return x;
    }
  }

  /**
   * The oldest live entry, without taking it (its stamp in {@code tk}), or null: dead entries seen
   * at the head (a task cancelled or claimed while queued) are dropped on the way, so a queue that
   * holds only dead entries reads as empty to shedding, health and {@code oldestQueuedNanos}.
   */
  Object peekLive(Taken tk) {
    for (int missed = 0; ; ) {
      Object x = ctx.ring.peek(tk);
      if (!(x instanceof LaneFuture<?> e) || e.taskState() == LaneFuture.QUEUED) {
        return x;
      }
      if (ctx.ring.dropHead(x)) {
        deadEntries.decrementAndGet();
      } else if (++missed == 16) {
        // behind an entry still being published, or raced: its taker drops it; read it as it is
        return x;
      }
    }
  }

  /** How long the oldest live queued task has waited at {@code now}, or 0 with none queued. */
  long headWaitNanos(long now) {
    Taken tk = new Taken();
    return peekLive(tk) == null ? 0 : Math.max(0, now - tk.stamp);
  }

  /**
   * Puts an entry a worker took back at the head of the queue, unrun (the worker's permit or
   * thread was surplus after a lowered concurrency), and wakes an idle worker for it.
   */
  void putBack(Object x, Taken tk) {
    if (x instanceof LaneFuture<?> e) {
      e.untake();
    }
    ctx.ring.putBack(x, tk.stamp, tk.position);
    ctx.ring.wakeIdle();
  }

  /**
   * The gate refused the oldest queued task for good ({@link LaneGate#REFUSE}): takes it and ends
   * it as {@link TaskOutcome#GATE_REFUSED}.
   */
  void refuseOldest(Taken tk) {
    LaneFuture<?> t = null;
    for (Object x; t == null && (x = ctx.ring.pollClaimed(tk)) != null; ) {
      t = ownedEnvelope(x, tk);
    }
    if (t != null) {
      endUnrun(t, TaskOutcome.GATE_REFUSED);
    }
  }

  /**
   * A stopped lane: takes back every entry nobody will run now (a submission or a give-back that
   * raced {@code shutdownNow}); true if {@code entry}, the caller's own, was among them or was
   * taken back by another caller meanwhile (its submitter hears of it by an exception, so its
   * future is left alone, and it is counted SHUTDOWN).
   *
   * <p>An entry of another submitter that has no future of its own to tell by (a plain task, or
   * the envelope of a task given to {@code execute}) is not ended here but kept as an orphan: that
   * submitter is on its way here too (every submission re-checks the state after it appends), and
   * claims it — so its {@code execute} throws, as it would had it taken its entry back itself —
   * or, if it left before the stop (its entry was queued then), {@code shutdownNow} returns it
   * ({@link #claimOrphans}). Either waits until no caller is between taking entries and keeping
   * them ({@link #sweepers}), so neither misses one. A give-back's entry has no submitter waiting;
   * it is ended here, like every envelope whose future tells.
   */
  @Override
  public boolean endLateEntries(Object entry) {
    Taken tk = new Taken();
    boolean mine = false;
    // Entries put back at the head (a surplus worker's, discard-oldest's spared ones) were taken
    // once already: their submitters have left, so nobody else will end them.
    for (Object x; (x = ctx.ring.pollPutBack(tk)) != null; ) {
      LaneFuture<?> e = ownedEnvelope(x, tk);
      if (e != null) {
        endUnrun(e, TaskOutcome.SHUTDOWN);
      }
    }
    sweepers.incrementAndGet();
    try {
      Object x;
      while ((x = ctx.ring.pollClaimed(tk)) != null) {
        LaneFuture<?> e = ownedEnvelope(x, tk);
        if (e == null) {
          continue; // a dead entry
        }
        if (x == entry) {
          mine = true;
          endTakenBack(e);
        } else if (hasSubmitterComing(x)) {
          orphansLock.lock();
          try {
            orphans.add(new Orphan(x, e));
          } finally {
            orphansLock.unlock();
          }
        } else {
          endUnrun(e, TaskOutcome.SHUTDOWN);
        }
      }
    } finally {
      sweepers.decrementAndGet();
    }
    if (mine || entry == null || !hasSubmitterComing(entry)) {
      return mine;
    }
    LaneFuture<?> taken = claimOrphan(entry);
    if (taken == null) {
      return false; // a worker runs it, or shutdownNow returned it
    }
    endTakenBack(taken);
    return true;
  }

  /**
   * Whether the ring entry {@code x} has a submitter who will call {@link WorkerPool#afterAppend}
   * with it and can be told by an exception: a plain task, or the envelope of a task given to
   * {@code execute} that no give-back appended again.
   */
  private static boolean hasSubmitterComing(Object x) {
    if (!(x instanceof LaneFuture<?> f)) {
      return true;
    }
    return !f.handedOut && !f.givenBack;
  }

  /**
   * Waits until no caller is between taking entries from a stopped lane's ring and keeping them:
   * a drain of a bounded ring, so spins, then yields.
   */
  private void awaitNoSweeper() {
    for (int attempt = 0; sweepers.get() != 0; attempt++) {
      if (attempt < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  /** The caller's own entry, if another caller took it back (see {@link #endLateEntries}). */
  private LaneFuture<?> claimOrphan(Object entry) {
    awaitNoSweeper();
    orphansLock.lock();
    try {
      for (int i = 0; i < orphans.size(); i++) {
        if (orphans.get(i).entry() == entry) {
          return orphans.remove(i).task();
        }
      }
      return null;
    } finally {
      orphansLock.unlock();
    }
  }

  /**
   * For {@code shutdownNow}, after it drained the ring: the entries other callers took back whose
   * submitters have not claimed them ({@link #endLateEntries}); they never started, so they are
   * returned. A submitter still on its way then finds none and returns normally, as one whose
   * queued task {@code shutdownNow} returned.
   */
  List<LaneFuture<?>> claimOrphans() {
    awaitNoSweeper();
    orphansLock.lock();
    try {
      List<LaneFuture<?>> out = new ArrayList<>(orphans.size());
      for (Orphan o : orphans) {
        out.add(o.task());
      }
      orphans.clear();
      return out;
    } finally {
      orphansLock.unlock();
    }
  }

  /**
   * Deadlock FAIL, first half: takes the tasks of a proven cycle that are still queued here out of
   * the queue (they keep their slots), so that no worker freed by a failure — in this lane or
   * another lane of the cycle — can run one of them in between. Runs no user code.
   */
  List<LaneFuture<?>> claimQueued(List<LaneFuture<?>> awaited) {
    List<LaneFuture<?>> claimed = new ArrayList<>(awaited.size());
    for (LaneFuture<?> e : awaited) {
      if (e.tryKill()) { // else started or handled meanwhile
        deadEntries.incrementAndGet(); // its ring entry
        claimed.add(e);
      }
    }
    return claimed;
  }

  /**
   * Deadlock FAIL, second half: fails the claimed tasks (outcome DEADLOCK); completing their
   * futures runs user code, and releases the workers that waited on them.
   */
  void failClaimed(List<LaneFuture<?>> claimed) {
    for (LaneFuture<?> e : claimed) {
      endUnrun(e, TaskOutcome.DEADLOCK);
    }
    if (ctx.runState() >= RunState.SHUTDOWN) {
      ctx.upcalls.tryTerminate();
    }
  }

  // ---------------------------------------------------------------- records and failures

  void publish(LaneFuture<?> t, String thread, long start, long end, long cpu, TaskOutcome outcome) {
    Consumer<? super TaskRecord>[] ls = taskListeners;
    if (ls.length > 0) {
      publish(ls, t, thread, start, end, cpu, outcome);
    }
  }

  void publish(Consumer<? super TaskRecord>[] ls, LaneFuture<?> t, String thread, long start,
      long end, long cpu, TaskOutcome outcome) {
    boolean ran = start >= 0;
    TaskRecord r =
        new TaskRecord(
            t.id,
            ctx.name,
            t.label,
            thread,
            t.acceptedNanos,
            ran ? start : -1,
            end,
            (ran ? start : end) - t.acceptedNanos,
            ran ? end - start : 0,
            cpu,
            outcome);
    for (Consumer<? super TaskRecord> l : ls) {
      try {
        l.accept(r);
      } catch (Throwable e) {
        LOG.log(System.Logger.Level.WARNING, "lane \"" + ctx.name + "\": task listener failed", e);
      }
    }
  }

  void reportFailure(Thread thread, Throwable failure) {
    Thread.UncaughtExceptionHandler h = exceptionHandler;
    if (h == null) {
      h = thread.getUncaughtExceptionHandler();
    }
    try {
      h.uncaughtException(thread, failure);
    } catch (Throwable handlerFailure) {
      handlerFailure.addSuppressed(failure);
      LOG.log(System.Logger.Level.ERROR, "lane \"" + ctx.name + "\": exception handler failed",
          handlerFailure);
    }
  }

  // ---------------------------------------------------------------- gauges and sums

  /**
   * Tasks queued now: the ring's entries at one instant during the call ({@link TaskRing#size}
   * never overstates), less the dead ones counted just after; off by the tasks cancelled or
   * dropped between the two reads.
   */
  /** The envelopes queued now (a racy scan, for the deadlock analysis). */
  List<LaneFuture<?>> queuedEnvelopes() {
    List<LaneFuture<?>> out = new ArrayList<>();
    ctx.ring.forEachEntry(x -> {
      if (x instanceof LaneFuture<?> e && e.taskState() == LaneFuture.QUEUED) {
        out.add(e);
      }
    });
    return out;
  }

  int queuedCount() {
    return Math.max(0, ctx.ring.size() - Math.max(0, deadEntries.get()));
  }

  /** Tasks running now: workers inside a task, plus callers running one (caller-runs). */
  int running() {
    return ctx.upcalls.workersRunning() + (int) Math.max(0, callerRunning.sum());
  }

  /** A caller starts to run a task (caller-runs), before it re-reads the lane's state. */
  void callerStarts() {
    callerRunning.increment();
  }

  /** A caller's task ended (or was refused): a shutting-down lane may terminate now. */
  void callerEnds() {
    callerRunning.decrement();
    if (ctx.runState() >= RunState.SHUTDOWN) {
      ctx.upcalls.tryTerminate();
    }
  }

  /** Callers running a task now (caller-runs). */
  long callersRunning() {
    return callerRunning.sum();
  }

  /** Tasks that entered the ring (less second appends) or ran on their caller. */
  long enteredCount() {
    // A give-back counts its second append after making it, and this reads that count before
    // the ring's: a give-back in between can add one for a moment, never take one away (the
    // books' order in stats() needs a count that is never behind).
    long again = reappended.sum();
    return ctx.ring.appended() - again + callerRan.sum();
  }

  /**
   * Every submission: entries the ring took (less second appends of the same task), tasks run by
   * their caller, and tasks refused at submission. No counter of its own on the hot path.
   */
  long submittedCount() {
    return enteredCount() + sum(refused);
  }

  long rejectedCount() {
    return sum(refused) + sum(rejected);
  }

  static long sum(EnumMap<TaskOutcome, LongAdder> counts) {
    long n = 0;
    for (LongAdder a : counts.values()) {
      n += a.sum();
    }
    return n;
  }
}
