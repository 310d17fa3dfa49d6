package dev.lanes;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A virtual lane's permits: how many its threads hold, and the limit they are taken against, in
 * one atomic word. A permit is held by the virtual thread that runs tasks with it, from before
 * the thread starts (acquire before spawn) until the thread gives it back as its last act.
 *
 * <p><b>Concurrency design.</b> The word packs the limit (high 32 bits) and the permits held (low
 * 32 bits), so taking a permit is a CAS that fails if the limit moved since it was read: no permit
 * is ever taken against a limit no longer in force, and a permit given back is compared with the
 * limit of that instant. Held may exceed the limit after it was lowered, until the holders notice
 * ({@link #releaseIfSurplus}, a CAS, so exactly the surplus leave).
 *
 * <p>The protocol that keeps a queued task from being left beside a free permit with no thread
 * coming pairs each change that frees a permit with a look at the ring, and each append with a
 * look at the permits: a worker leaving gives its permit back (a CAS) and then looks for a queued
 * entry ({@link #releaseAndRecheck}); a submitter appends (the ring's tail CAS) and then takes a
 * free permit if one is free and an entry is queued ({@link #acquireForQueued}); a raised limit
 * (a CAS) is followed by the same look ({@code WorkerPool.dispatch}). All are volatile accesses
 * of two locations, so of two parties one always sees the other (jcstress: {@code PermitStress},
 * {@code RaisedLimitStress}; Lincheck with the limit moving: {@code PermitsLincheckTest}).
 */
final class Permits {
  private static final long HELD = 0xFFFF_FFFFL;

  private final AtomicLong word;

  Permits(int limit) {
    this.word = new AtomicLong(pack(limit, 0));
  }

  private static long pack(int limit, int held) {
    return ((long) limit << 32) | (held & HELD);
  }

  private static int limitOf(long w) {
    return (int) (w >>> 32);
  }

  private static int heldOf(long w) {
    return (int) (w & HELD);
  }

  /** Permits held now. */
  int held() {
    return heldOf(word.get());
  }

  /** The limit in force now. */
  int limit() {
    return limitOf(word.get());
  }

  /** More permits are held than the limit allows (it was lowered). */
  boolean surplus() {
    long w = word.get();
    return heldOf(w) > limitOf(w);
  }

  /** Every permit is held (or more). */
  boolean full() {
    long w = word.get();
    return heldOf(w) >= limitOf(w);
  }

  /** Takes a permit if fewer than the limit are held; true if it did. */
  boolean tryAcquire() {
    for (; ; ) {
      long w = word.get();
      if (heldOf(w) >= limitOf(w)) {
        return false;
      }
      if (word.compareAndSet(w, w + 1)) {
        return true;
      }
    }
  }

  /** Gives a permit back. */
  void release() {
    word.decrementAndGet();
  }

  /** Gives a permit back if more are held than the limit allows; true if it did. */
  boolean releaseIfSurplus() {
    for (; ; ) {
      long w = word.get();
      if (heldOf(w) <= limitOf(w)) {
        return false;
      }
      if (word.compareAndSet(w, w - 1)) {
        return true;
      }
    }
  }

  /** Sets the limit; the permits held stay held. */
  void setLimit(int limit) {
    for (; ; ) {
      long w = word.get();
      if (word.compareAndSet(w, pack(limit, heldOf(w)))) {
        return;
      }
    }
  }

  /** Submitter's half: takes a permit if one is free and an entry is queued; true if it did. */
  boolean acquireForQueued(TaskRing ring) {
    return !full() && ring.hasClaimed() && tryAcquire();
  }

  /** Worker's half: gives a permit back, then takes one again if an entry is queued. */
  boolean releaseAndRecheck(TaskRing ring) {
    release();
    return ring.hasClaimed() && tryAcquire();
  }

  @Override
  public String toString() {
    long w = word.get();
    return heldOf(w) + " of " + limitOf(w) + " permits held";
  }
}
