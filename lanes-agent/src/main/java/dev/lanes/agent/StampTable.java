package dev.lanes.agent;

import java.util.function.Predicate;

/**
 * When each queued task was handed to its pool: a map from the application's task object, by
 * identity, to the {@code nanoTime} of its {@code execute}, without touching or wrapping the task
 * (so {@code getQueue()}, {@code remove(task)} and {@code shutdownNow()} still see the
 * application's own objects).
 *
 * <p>An open-addressing identity table split into {@value #STRIPES} stripes, each guarded by its
 * own monitor; a producer and a worker usually touch different stripes. The same object queued
 * twice before it starts (a shared {@code Runnable}) keeps both stamps, taken oldest first. Keys are
 * strong references: every entry is removed when its task starts, is removed from the queue,
 * returned by {@code shutdownNow}, or refused; an entry whose task left the queue another way (a
 * handler's {@code poll}, {@code getQueue().clear()}) is dropped by {@link #sweep} once it is
 * older than the sweep age. At most {@code maxEntries} are held: past that, a task is not stamped
 * (its wait is then unknown and counted as such), so the table's memory is bounded. Each stripe
 * holds half the bound's even share on its own; beyond it, it borrows from the other half (an
 * atomic counter touched only then), so one object stamped many times can use the whole bound.
 *
 * <p><b>Sampled timing</b> (agent option {@code sample=N}): only some handovers are stamped, and
 * a worker must not lock a stripe for a task that has none. {@link #held} counts the entries per
 * bucket of the identity hash: {@link #takeIfHeld} looks at the table only when the task's bucket
 * holds something. A handover that is not sampled adds a {@link #BLANK} entry when its task
 * already has entries ({@link #blankIfHeld}), so that one object queued many times (a shared
 * {@code Runnable}) keeps one entry per handover, in order: each run takes its own handover's
 * entry, a stamp or a blank, never a later handover's stamp.
 *
 * <p><b>Concurrency design.</b> All of a stripe's arrays are read and written under the stripe's
 * monitor only; {@link #size} is the sum of the stripes' sizes read without locks (approximate).
 * A {@link #held} counter belongs to one stripe (its index extends the stripe's bits) and is
 * written under that stripe's monitor; it is read without a lock. A task's worker reads it after
 * taking the task from its pool's queue, which happens after the handover that stamped it (the
 * queue's own hand-off orders them): it sees at least that task's own entries, since only their
 * removal lowers the count again. A producer reading it racily may miss another producer's entry
 * for the same object made at the same instant; that handover then has no blank, and a later run
 * of the object may take the next handover's stamp (a shorter wait, for that one sample).
 */
final class StampTable {
  static final long NONE = Long.MIN_VALUE;
  /** The entry of a handover that was not sampled: no time, a place in its task's order. */
  static final long BLANK = Long.MIN_VALUE + 1;
  /** Bits of the hash that index {@link #held}: the stripe's and 5 more (4,096 counters). */
  private static final int HELD_BITS = 12;
  private static final int STRIPE_BITS = 7;
  private static final int STRIPES = 1 << STRIPE_BITS;
  private static final int INITIAL = 16;

  private final Stripe[] stripes = new Stripe[STRIPES];
  /** Stamps each stripe may hold without asking: half the bound, shared out evenly. */
  private final int ownShare;
  /**
   * The rest of the bound, lent to stripes past their own share (one object's stamps all go to one
   * stripe); a stripe gives back what it borrowed as its stamps are taken.
   */
  private final java.util.concurrent.atomic.AtomicInteger lendable;
  /** Entries per bucket of the hash; see the concurrency design. */
  private final int[] held = new int[1 << HELD_BITS];

  StampTable(int maxEntries) {
    this.ownShare = Math.max(1, maxEntries / (2 * STRIPES));
    this.lendable = new java.util.concurrent.atomic.AtomicInteger(maxEntries - ownShare * STRIPES);
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Stripe();
    }
  }

  private static int hash(Object task) {
    int h = System.identityHashCode(task) * 0x9E3779B9; // spread: the stripe takes the top bits
    return h ^ (h >>> 16);
  }

  private Stripe stripe(int h) {
    return stripes[h >>> (Integer.SIZE - STRIPE_BITS)];
  }

  private static int heldIndex(int h) {
    return h >>> (Integer.SIZE - HELD_BITS);
  }

  /** Stamps {@code task} with {@code nanos}; false if the table is full. */
  boolean put(Object task, long nanos) {
    int h = hash(task);
    Stripe s = stripe(h);
    synchronized (s) {
      return putLocked(s, task, h, nanos);
    }
  }

  /** Under {@code s}'s monitor. */
  private boolean putLocked(Stripe s, Object task, int h, long nanos) {
    if (s.size >= ownShare) {
      if (lendable.decrementAndGet() < 0) {
        lendable.incrementAndGet();
        return false;
      }
      s.borrowed++;
    }
    s.put(task, h, nanos);
    held[heldIndex(h)]++;
    return true;
  }

  /**
   * A handover of {@code task} that is not sampled: adds a {@link #BLANK} behind the task's
   * entries if it has any (nothing, and no lock, when its bucket holds none).
   */
  void blankIfHeld(Object task) {
    int h = hash(task);
    if (held[heldIndex(h)] == 0) {
      return;
    }
    Stripe s = stripe(h);
    synchronized (s) {
      if (s.find(task, h) >= 0) {
        putLocked(s, task, h, BLANK);
      }
    }
  }

  /** Removes and returns the oldest entry of {@code task} (a stamp or {@link #BLANK}), or {@link #NONE}. */
  long take(Object task) {
    int h = hash(task);
    Stripe s = stripe(h);
    synchronized (s) {
      return takeLocked(s, task, h);
    }
  }

  /** As {@link #take}, without a lock when the task's bucket holds nothing (see the class comment). */
  long takeIfHeld(Object task) {
    int h = hash(task);
    if (held[heldIndex(h)] == 0) {
      return NONE;
    }
    Stripe s = stripe(h);
    synchronized (s) {
      return takeLocked(s, task, h);
    }
  }

  private long takeLocked(Stripe s, Object task, int h) {
    long stamp = s.take(task, h);
    if (stamp != NONE) {
      held[heldIndex(h)]--;
    }
    giveBack(s);
    return stamp;
  }

  /** The oldest entry of {@code task} (a stamp or {@link #BLANK}), left in place, or {@link #NONE}. */
  long peek(Object task) {
    int h = hash(task);
    Stripe s = stripe(h);
    synchronized (s) {
      int i = s.find(task, h);
      return i < 0 ? NONE : s.stamps[i];
    }
  }

  /** Entries held (approximate under concurrent use). */
  int size() {
    int n = 0;
    for (Stripe s : stripes) {
      n += s.size; // racy: an approximation while the table is in use
    }
    return n;
  }

  /** The entries {@link #held} counts, summed (approximate under concurrent use; = {@link #size} at rest). */
  int heldEntries() {
    int n = 0;
    for (int c : held) {
      n += c;
    }
    return n;
  }

  /** Under {@code s}'s monitor: returns what {@code s} borrowed beyond what it now holds. */
  private void giveBack(Stripe s) {
    int excess = s.borrowed - Math.max(0, s.size - ownShare);
    if (excess > 0) {
      s.borrowed -= excess;
      lendable.addAndGet(excess);
    }
  }

  /**
   * Drops every entry stamped before {@code olderThan} for which {@code stillQueued(task)} is
   * false; returns how many were dropped. {@code stillQueued} is called under a stripe's lock: it
   * must not call back into this table.
   */
  int sweep(long olderThan, Predicate<Object> stillQueued) {
    int dropped = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        for (int i = 0; i < s.keys.length; ) {
          Object k = s.keys[i];
          long stamp = s.stamps[i];
          // A blank has no time: it goes when its task is in no queue (a run about to take it
          // then finds none, and runs untimed as the blank said).
          if (k != null && (stamp == BLANK || stamp - olderThan < 0) && !stillQueued.test(k)) {
            int before = s.size;
            s.removeAt(i); // shifts a later entry into i: look at i again
            held[heldIndex(hash(k))] -= before - s.size;
            giveBack(s);
            dropped++;
          } else {
            i++;
          }
        }
      }
    }
    return dropped;
  }

  /**
   * One stripe: linear probing with backward-shift deletion (no tombstones), one slot per task
   * object. A task queued again before it started (one {@code Runnable} handed over many times)
   * keeps its further stamps, oldest first, in a {@link Later} queue beside its slot, so that each
   * stamp and take stays O(1) however often one object is queued. Arrays are few and parallel (a
   * key's hash is recomputed: an identity hash, once made, is a read of the object's header), and
   * the counts are plain fields (read racily by {@link #size()}), not volatile ones, whose every
   * write would be a fence.
   */
  private static final class Stripe {
    Object[] keys = new Object[INITIAL];
    long[] stamps = new long[INITIAL];
    /** Per slot, the task's further stamps, or null; the array itself made at the first one. */
    Later[] later;
    /** Stamps held (slots and later ones). */
    int size;
    /** Slots in use. */
    int slots;
    /** Stamps held beyond the table's own share per stripe, lent by the table. */
    int borrowed;

    void put(Object task, int h, long nanos) {
      if ((slots + 1) * 2 > keys.length) {
        grow();
      }
      int mask = keys.length - 1;
      int i = h & mask;
      for (Object k; (k = keys[i]) != null; i = (i + 1) & mask) {
        if (k == task) {
          if (later == null) {
            later = new Later[keys.length];
          }
          if (later[i] == null) {
            later[i] = new Later();
          }
          later[i].add(nanos);
          size++;
          return;
        }
      }
      keys[i] = task;
      stamps[i] = nanos;
      size++;
      slots++;
    }

    int find(Object task, int h) {
      int mask = keys.length - 1;
      for (int i = h & mask; keys[i] != null; i = (i + 1) & mask) {
        if (keys[i] == task) {
          return i;
        }
      }
      return -1;
    }

    long take(Object task, int h) {
      int i = find(task, h);
      if (i < 0) {
        return NONE;
      }
      long stamp = stamps[i];
      Later more = later == null ? null : later[i];
      if (more != null) {
        stamps[i] = more.poll();
        size--;
        if (more.isEmpty()) {
          later[i] = null;
        }
      } else {
        removeAt(i);
      }
      return stamp;
    }

    /** Removes slot {@code i} with all its stamps. */
    void removeAt(int i) {
      Later dropped = later == null ? null : later[i];
      size -= 1 + (dropped == null ? 0 : dropped.size());
      slots--;
      int mask = keys.length - 1;
      int hole = i;
      for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
        int home = hash(keys[j]) & mask;
        // Move j into the hole unless its home lies cyclically in (hole, j].
        boolean homeBetween = hole <= j ? hole < home && home <= j : hole < home || home <= j;
        if (!homeBetween) {
          keys[hole] = keys[j];
          stamps[hole] = stamps[j];
          if (later != null) {
            later[hole] = later[j];
          }
          hole = j;
        }
      }
      keys[hole] = null;
      if (later != null) {
        later[hole] = null;
      }
    }

    private void grow() {
      Object[] oldKeys = keys;
      long[] oldStamps = stamps;
      Later[] oldLater = later;
      int n = oldKeys.length * 2;
      keys = new Object[n];
      stamps = new long[n];
      later = oldLater == null ? null : new Later[n];
      int mask = n - 1;
      for (int k = 0; k < oldKeys.length; k++) {
        if (oldKeys[k] != null) {
          int i = hash(oldKeys[k]) & mask;
          while (keys[i] != null) {
            i = (i + 1) & mask;
          }
          keys[i] = oldKeys[k];
          stamps[i] = oldStamps[k];
          if (oldLater != null) {
            later[i] = oldLater[k];
          }
        }
      }
    }
  }

  /** A growable FIFO of stamps (one task's further stamps); guarded by its stripe's monitor. */
  private static final class Later {
    private long[] ring = new long[4];
    private int head;
    private int count;

    void add(long stamp) {
      if (count == ring.length) {
        long[] bigger = new long[ring.length * 2];
        for (int k = 0; k < count; k++) {
          bigger[k] = ring[(head + k) % ring.length];
        }
        ring = bigger;
        head = 0;
      }
      ring[(head + count) % ring.length] = stamp;
      count++;
    }

    long poll() {
      long stamp = ring[head];
      head = (head + 1) % ring.length;
      count--;
      return stamp;
    }

    boolean isEmpty() {
      return count == 0;
    }

    int size() {
      return count;
    }
  }
}
