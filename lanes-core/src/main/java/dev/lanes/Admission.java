package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * A lane's admission count: how many accepted tasks have not ended, kept as admissions ever less
 * releases ever, so that a submitter and a worker never write the same cache line per task.
 *
 * <p><b>Concurrency design.</b> Submitters CAS {@code admitted} (a cell alone on its cache lines
 * that workers never write). Releases are counted where they happen: a worker adds to its own
 * claimed {@link TimingBook.Tally} (single writer, a release store, no fence); anyone else (a
 * canceller, {@code shutdownNow}, a dying worker, a worker without a tally) to a shared adder. A
 * submitter reads the releases only when the last sum it saw ({@code releasedSeen}, shared by
 * submitters) says the lane is full; the sum it reads is a lower bound of the true sum (each
 * counter only grows, and a release is counted after its admission).
 *
 * <p><b>Invariants.</b> (1) Never more than {@code limit} admitted and not released: the estimate
 * {@code admitted − releasedSeen} is never below the true count, and a CAS from the value read
 * admits one. (2) A refusal follows a fresh read of the releases and an unchanged {@code
 * admitted}: a slot given back before that read is seen (a worker's release store is read with
 * acquire). (3) {@link #unfinished()} reads releases before admissions, so it is never below the
 * true count at the moment admissions were read; 0 therefore means none was unfinished then.
 * {@code releasedSeen} may be written racily by two submitters; a lower value only makes the next
 * submitter read afresh.
 *
 * <p><b>Callers waiting for room</b> (the block-caller policy) wait on {@code roomFreed} under
 * {@code roomLock}; a release tells one of them ({@link #signalRoom}) only while one waits, so a
 * release costs one volatile read of {@code blockedCallers} when nobody does. A waiter counts
 * itself in before its first try and re-tries after every wake-up, and at least every {@link
 * #RELOOK_NANOS} (a release's count and its read of the waiters are not fenced against each
 * other, so a wake-up can be missed; the re-look keeps that from costing more than a
 * millisecond). Room seldom comes one slot alone, so a release signals only while no signal is
 * pending ({@code wakePending}: a waiter was signalled and has not looked yet), and a waiter that
 * got its slot signals the next one if more wait: with callers blocked on a full lane of tiny
 * tasks, every release took the lock to signal again before (issue #27: 10 % of the CPU with four
 * producers).
 *
 * <p><b>Shedding</b> is decided here too ({@link #shed}): its state, since when waits have stayed
 * above the target, is racy by design (see the field); workers tell it when a task started within
 * the target ({@link #started}). The limit a task is admitted against comes
 * from the caller, who read it from the lane's one {@link Settings} value.
 *
 * <p><b>Failure model.</b> Nothing here blocks (but {@link #awaitRoom}), allocates (beyond the
 * adder's cells on contention) or runs user code.
 */
final class Admission {
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
  /** Indexes into {@link #cell}, 128 bytes from either end of the array. */
  private static final int ADMITTED = 15;
  private static final int RELEASED_SEEN = 16;

  private final long[] cell = new long[32];
  private final TimingBook book;
  private final LongAdder releasedElsewhere = new LongAdder();

  /** An admission count with waiters re-looking every {@link #RELOOK_NANOS}. */
  Admission(TimingBook book) {
    this(book, RELOOK_NANOS);
  }

  /** As {@link #Admission(TimingBook)}, with waiters re-looking every {@code relookNanos} (tests). */
  Admission(TimingBook book, long relookNanos) {
    this.book = book;
    this.relookNanos = relookNanos;
  }

  /** How long a caller waiting for room sleeps at most ({@link #RELOOK_NANOS} but in tests). */
  private final long relookNanos;

  /** Takes a slot if fewer than {@code limit} are taken; true if it did. */
  boolean tryAdmit(int limit) {
    for (; ; ) {
      long admitted = (long) CELL.getVolatile(cell, ADMITTED);
      long seen = (long) CELL.getOpaque(cell, RELEASED_SEEN);
      if (admitted - seen >= limit) {
        seen = releasedEver();
        if (seen > (long) CELL.getOpaque(cell, RELEASED_SEEN)) {
          CELL.setOpaque(cell, RELEASED_SEEN, seen);
        }
        if (admitted - seen >= limit) {
          if ((long) CELL.getVolatile(cell, ADMITTED) == admitted) {
            return false;
          }
          continue; // another submitter moved on meanwhile: look again
        }
      }
      if (CELL.compareAndSet(cell, ADMITTED, admitted, admitted + 1)) {
        return true;
      }
    }
  }

  /** Gives a slot back, counted in {@code own} (the caller's claimed tally) or, if null, shared. */
  void release(TimingBook.Tally own) {
    if (own != null) {
      own.addReleased();
    } else {
      releasedElsewhere.increment();
    }
  }

  /** Slots taken and not given back; see invariant (3). */
  long unfinished() {
    long released = releasedEver();
    return (long) CELL.getVolatile(cell, ADMITTED) - released;
  }

  private long releasedEver() {
    return book.releasedByClaimants() + releasedElsewhere.sum();
  }

  // ---------------------------------------------------------------- callers waiting for room

  private final ReentrantLock roomLock = new ReentrantLock();
  /** Signalled when a slot is given back while a caller waits. */
  private final Condition roomFreed = roomLock.newCondition();
  /** Callers waiting on {@code roomFreed}; written under roomLock. */
  private volatile int blockedCallers;

  /**
   * A caller waiting for room was signalled and has not looked yet: releases meanwhile signal
   * nobody more (the signalled caller, once it has a slot, signals the next one). Set under
   * roomLock; cleared by the waiter that wakes (or by one that starts to wait).
   */
  private volatile boolean wakePending;

  /**
   * How long a caller waiting for room sleeps at most before it looks again. A release counts its
   * slot with a release store and then reads {@code blockedCallers}: the two may be reordered (a
   * store, then a load of another variable), so a release can miss a caller that just counted
   * itself in and found no room; the caller's own re-look bounds that to this long instead of its
   * whole timeout ({@code CoreTruthTest.aCallerWaitingForRoomGetsItWithoutBeingTold}).
   */
  static final long RELOOK_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * Block-caller: takes a slot, waiting up to {@code nanos} for one; true once it has one. False
   * when the time is up, when {@code accepting} turns false (checked before every try), or on an
   * interrupt (its status is restored).
   */
  boolean awaitRoom(IntSupplier limit, BooleanSupplier accepting, long nanos) {
    long deadline = System.nanoTime() + nanos;
    roomLock.lock();
    try {
      blockedCallers++;
      wakePending = false; // a signal no waiter took must not hold the next ones back
      try {
        for (; ; ) {
          if (!accepting.getAsBoolean()) {
            return false;
          }
          if (tryAdmit(limit.getAsInt())) {
            if (blockedCallers > 1) {
              wakePending = true; // the next caller looks too: room seldom comes one slot alone
              roomFreed.signal();
            }
            return true;
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          try {
            roomFreed.awaitNanos(Math.min(left, relookNanos));
          } finally {
            wakePending = false; // looked (or interrupted): the next release may signal again
          }
        }
      } finally {
        blockedCallers--;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      roomLock.unlock();
    }
  }

  /** Tells one caller waiting for room that a slot was given back (nothing if none waits). */
  void signalRoom() {
    if (blockedCallers != 0 && !wakePending) {
      roomLock.lock();
      try {
        if (!wakePending) {
          wakePending = true;
          roomFreed.signal();
        }
      } finally {
        roomLock.unlock();
      }
    }
  }

  /** Wakes every caller waiting for room, to look at the lane's state again (shutdown). */
  void wakeAllWaiting() {
    roomLock.lock();
    try {
      roomFreed.signalAll();
    } finally {
      roomLock.unlock();
    }
  }

  // ---------------------------------------------------------------- shedding

  private static final long NOT_ABOVE = Long.MIN_VALUE;

  /**
   * Since when queued tasks have waited longer than the shedding target, or {@link #NOT_ABOVE}.
   * Written by submitters that read the head of the queue and by workers that start a task within
   * the target; racy by design (a stale reading shifts one decision by the width of a race, never
   * loses a task).
   */
  private volatile long aboveTargetSince = NOT_ABOVE;

  /**
   * Whether a task submitted at {@code now} is shed, under {@code s}: the oldest live queued task
   * ({@code queued}, stamped {@code headStamp}) has waited longer than the target, and waits have
   * stayed above it for the interval. The first reading above the target dates the stretch from
   * when that head crossed it ({@code stamp + target}); a reading at or below it, or an empty
   * queue, ends the stretch.
   */
  boolean shed(long now, boolean queued, long headStamp, Settings s) {
    if (!queued || now - headStamp <= s.shedTargetNanos) {
      if (aboveTargetSince != NOT_ABOVE) {
        aboveTargetSince = NOT_ABOVE;
      }
      return false;
    }
    long since = aboveTargetSince;
    if (since == NOT_ABOVE) {
      since = headStamp + s.shedTargetNanos;
      aboveTargetSince = since;
    }
    return now - since >= s.shedIntervalNanos;
  }

  /**
   * A worker started a task that waited {@code waitNanos}: within the target, the stretch of waits
   * above it ends. One volatile read while shedding is off or no stretch runs.
   */
  void started(long waitNanos, Settings.Current s) {
    if (aboveTargetSince != NOT_ABOVE && waitNanos <= s.get().shedTargetNanos) {
      aboveTargetSince = NOT_ABOVE;
    }
  }

  /** A live change set a new shedding target: a new stretch starts with the next reading. */
  void newShedTarget() {
    aboveTargetSince = NOT_ABOVE;
  }
}
