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
 * twice before it starts (a shared {@code Runnable}) has two entries, taken oldest first. Keys are
 * strong references: every entry is removed when its task starts, is removed from the queue,
 * returned by {@code shutdownNow}, or refused; an entry whose task left the queue another way (a
 * handler's {@code poll}, {@code getQueue().clear()}) is dropped by {@link #sweep} once it is
 * older than the sweep age. At most {@code maxEntries} are held: past that, a task is not stamped
 * (its wait is then unknown and counted as such), so the table's memory is bounded.
 *
 * <p><b>Concurrency design.</b> All of a stripe's arrays are read and written under the stripe's
 * monitor only; {@link #size} is the sum of the stripes' sizes read without locks (approximate).
 */
final class StampTable {
  static final long NONE = Long.MIN_VALUE;
  private static final int STRIPE_BITS = 7;
  private static final int STRIPES = 1 << STRIPE_BITS;
  private static final int INITIAL = 16;

  private final Stripe[] stripes = new Stripe[STRIPES];
  private final int maxPerStripe;

  StampTable(int maxEntries) {
    int per = Math.max(INITIAL / 2, maxEntries / STRIPES);
    this.maxPerStripe = per;
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

  /** Stamps {@code task} with {@code nanos}; false if the table is full. */
  boolean put(Object task, long nanos) {
    int h = hash(task);
    Stripe s = stripe(h);
    synchronized (s) {
      return s.put(task, h, nanos, maxPerStripe);
    }
  }

  /** Removes and returns the oldest stamp of {@code task}, or {@link #NONE}. */
  long take(Object task) {
    int h = hash(task);
    Stripe s = stripe(h);
    synchronized (s) {
      return s.take(task, h);
    }
  }

  /** The oldest stamp of {@code task}, left in place, or {@link #NONE}. */
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
          if (k != null && s.stamps[i] - olderThan < 0 && !stillQueued.test(k)) {
            s.removeAt(i); // shifts a later entry into i: look at i again
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
   * One stripe: linear probing with backward-shift deletion (no tombstones). Two arrays only (a
   * key's hash is recomputed: an identity hash, once made, is a read of the object's header), so
   * that a stamp and a take touch few cache lines; {@code size} is a plain field (read racily by
   * {@link #size()}), not a volatile one, whose every write would be a fence.
   */
  private static final class Stripe {
    Object[] keys = new Object[INITIAL];
    long[] stamps = new long[INITIAL];
    int size;

    boolean put(Object task, int h, long nanos, int max) {
      if (size >= max) {
        return false;
      }
      if ((size + 1) * 2 > keys.length) {
        grow();
      }
      int mask = keys.length - 1;
      int i = h & mask;
      while (keys[i] != null) {
        i = (i + 1) & mask;
      }
      keys[i] = task;
      stamps[i] = nanos;
      size++;
      return true;
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
      removeAt(i);
      return stamp;
    }

    void removeAt(int i) {
      int mask = keys.length - 1;
      int hole = i;
      for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
        int home = hash(keys[j]) & mask;
        // Move j into the hole unless its home lies cyclically in (hole, j].
        boolean homeBetween = hole <= j ? hole < home && home <= j : hole < home || home <= j;
        if (!homeBetween) {
          keys[hole] = keys[j];
          stamps[hole] = stamps[j];
          hole = j;
        }
      }
      keys[hole] = null;
      size--;
    }

    private void grow() {
      Object[] oldKeys = keys;
      long[] oldStamps = stamps;
      int n = oldKeys.length * 2;
      keys = new Object[n];
      stamps = new long[n];
      int mask = n - 1;
      // Start after an empty slot, so that each cluster is re-inserted in probe order and the
      // entries of one task stay oldest first (a cluster may wrap past the array's end).
      int oldMask = oldKeys.length - 1;
      int empty = 0;
      while (oldKeys[empty] != null) {
        empty++;
      }
      for (int step = 1; step <= oldKeys.length; step++) {
        int k = (empty + step) & oldMask;
        if (oldKeys[k] != null) {
          int i = hash(oldKeys[k]) & mask;
          while (keys[i] != null) {
            i = (i + 1) & mask;
          }
          keys[i] = oldKeys[k];
          stamps[i] = oldStamps[k];
        }
      }
    }
  }
}
