package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

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
 * <p><b>Failure model.</b> Nothing here blocks, allocates (beyond the adder's cells on
 * contention) or runs user code.
 */
final class Admission {
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
  /** Indexes into {@link #cell}, 128 bytes from either end of the array. */
  private static final int ADMITTED = 15;
  private static final int RELEASED_SEEN = 16;

  private final long[] cell = new long[32];
  private final TimingBook book;
  private final LongAdder releasedElsewhere = new LongAdder();

  Admission(TimingBook book) {
    this.book = book;
  }

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
}
