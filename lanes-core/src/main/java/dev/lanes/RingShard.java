package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One shard of a lane's hand-off ({@link TaskRing}): a bounded multi-producer, multi-consumer
 * ring of tasks, each with its acceptance stamp riding in its slot, so that a plain {@code
 * execute(Runnable)} needs no object of lanes' own. A lane's {@link TaskRing} holds one shard, or
 * (issue #27: many producers) several, and keeps the idle protocol above them.
 *
 *
 * <p><b>Concurrency design.</b> The ring is Dmitry Vyukov's bounded MPMC queue: every slot has a
 * sequence number; a producer claims position {@code p} by CAS on {@code tail} when slot {@code p
 * & mask} has sequence {@code p}, writes the item and stamp with plain stores and publishes them
 * with a release store of sequence {@code p + 1}; a consumer claims position {@code p} by CAS on
 * {@code head} when the slot has sequence {@code p + 1}, reads the item and frees the slot for the
 * next lap with a release store of {@code p + capacity}. Producers contend only on {@code tail},
 * consumers only on {@code head}; there is no lock, and a producer touches no line a consumer
 * writes except the slot it fills. The release/acquire pairs on the sequence give the
 * happens-before edges submit → dequeue and dequeue → next producer of the slot.
 *
 * <p><b>Invariants.</b> {@code head ≤ tail ≤ head + capacity} at every instant each is read alone;
 * {@code tail − head} counts claimed positions, including one whose item is still being written
 * (its producer is between its CAS and its release store) — so "{@code tail > head}" means "an
 * item is here or about to be", which is what the idle protocol needs. The ring holds entries, not
 * promises: an entry may be dead (its task was cancelled or claimed while queued; see {@link
 * LaneFuture}), and whoever dequeues a dead entry drops it. Admission (how many tasks a lane holds)
 * is counted by the lane, not here.
 *
 * <p><b>Growth (issue #27: an idle lane must hold little).</b> The array starts at {@value
 * #INITIAL_CAPACITY} slots and doubles up to its bound, {@code concurrency + queueCapacity} as
 * built, rounded up to a power of two. Positions ({@code head}, {@code tail}) are the ring's; an
 * array is a {@link Segment} that serves the positions from its {@code start} on, and keeps the one
 * before it ({@code prev}, serving the positions below) until every one of those was taken. A
 * producer that finds its slot of the lap taken grows the ring itself, under {@code growLock}
 * (another producer that finds the lock taken spills): it allocates a segment twice the size whose
 * slots' sequences are set for the lap that starts at {@code tail}, sets the {@link #RESIZING}
 * bit in {@code tail} by CAS (no position can be claimed meanwhile: a producer that reads the bit
 * waits a few spins and then spills, a CAS expecting the plain value fails), installs the segment
 * in the volatile {@code segment}, and clears the bit (in a finally). Nothing moves: entries below
 * the new start are taken from the old segment, through {@code prev}; a consumer that takes from
 * the newest segment unlinks {@code prev} (every position below its start was taken). So a burst
 * grows the array as it comes, with no entry copied and none sent to the overflow on the way.
 *
 * <p>Which segment a position is in. A producer reads {@code tail} (acquire) and then {@code
 * segment}, checks the slot there and CASes {@code tail}; after a successful CAS it re-reads
 * {@code segment} and walks {@code prev} to the newest segment whose start is at most its
 * position, and writes there. If a switch's bit was set after its CAS, the new segment starts past
 * its position and the walk leads to the segment it checked (whose {@code prev} stays linked:
 * its entry is not taken yet). If the bit was set before, {@code tail} read the same plain value at
 * the CAS as before the switch, so the switch started exactly at this position, whose slot in the
 * new segment is fresh (its sequence equals the position). A consumer reads {@code head}
 * (acquire) and {@code segment} and walks the same way; if the segment it finds is not the one the
 * position was published in (a switch at exactly that position, after its read), that segment's
 * slot shows a sequence below {@code position + 1} — nothing is ever published there for it — so it
 * reports "nothing published" and its caller re-checks; if {@code prev} is already unlinked,
 * {@code head} has passed the position and it re-reads {@code head}. The {@link #RESIZING} bit is
 * masked off wherever {@code tail} is read as a count ({@link #hasClaimed}, {@link #size}, {@link
 * #appended}). An {@code OutOfMemoryError} allocating a segment ends growth for good (the
 * overflow takes what the array cannot); it is never thrown to a submitter.
 *
 * <p><b>Overflow.</b> The array is bounded by {@code concurrency + queueCapacity} as built
 * (rounded up to a power of two), but a lane may hold more entries than that (and an entry may find
 * the array full while another thread grows it):
 * its concurrency may have been raised since, dead entries may take slots, and a consumer
 * descheduled between its CAS on {@code head} and its release of the slot keeps that slot from
 * the next lap however much room the lane has. The lane's admission bounds the entries, not the
 * array, so {@link #append} never refuses: an entry that finds its slot of the lap taken, with
 * the array at its bound (or being grown by another thread), goes to an unbounded linked overflow ({@code spill}), and so does every entry appended while the
 * overflow is not empty, which keeps the order (the array's entries are older than the
 * overflow's, and consumers take from the array first). {@code spilled} counts entries claimed in
 * the overflow: a producer adds one (a full fence) before it links the entry, a consumer takes
 * one away after it unlinked one, so {@code spilled > 0} plays for the overflow the part {@code
 * tail > head} plays for the array in the idle and permit protocols. Each overflow entry
 * remembers {@code tail} as it was spilled; a consumer takes it (peek, then remove that very
 * entry) only once {@code head} has reached that figure, so array entries claimed before it was
 * spilled go first even when the overflow emptied and the array filled again while the consumer
 * was between its look at the array and its take (Lincheck found that with three threads). Overflow entries are numbered
 * from {@link #SPILL_BASE} (their own order), so positions stay unique.
 *
 * <p><b>Failure model.</b> Nothing here calls user code; it allocates after construction only for
 * the overflow's entries and a growing array (see "Growth"), and never blocks (a producer that
 * finds the array being grown spins a few times, then spills).
 *
 * <p><b>Numbers.</b> Positions are the shard's own; the numbers it hands out (an envelope's {@code
 * id}, {@link Taken#position}) are positions plus the shard's {@code idBase} (its index
 * shifted to bit {@value #ID_SHIFT}), so that they stay unique across the shards of a ring.
 */
final class RingShard {
  private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle ITEM = MethodHandles.arrayElementVarHandle(Object[].class);
  private static final VarHandle HEAD;
  private static final VarHandle TAIL;
  /** How often {@link #size} re-reads before it settles for an understatement. */
  private static final int SIZE_ATTEMPTS = 8;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HEAD = l.findVarHandle(HeadField.class, "head", long.class);
      TAIL = l.findVarHandle(TailField.class, "tail", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Padding keeps {@code head} and {@code tail} off each other's cache line. */
  @SuppressWarnings("unused")
  static class Pad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
  }

  static class HeadField extends Pad0 {
    volatile long head;
  }

  @SuppressWarnings("unused")
  static class Pad1 extends HeadField {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
  }

  static class TailField extends Pad1 {
    volatile long tail;
  }

  @SuppressWarnings("unused")
  static final class Positions extends TailField {
    long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
  }

  private final Positions pos = new Positions();

  /** Where the overflow's positions start (far above any the array reaches). */
  static final long SPILL_BASE = 1L << 62;

  /**
   * An entry in the overflow, with what a slot of the array holds beside it, and the array's
   * {@code tail} when it was spilled: array entries at positions below it are older and are taken
   * first (compared by identity: the overflow removes exactly this one).
   */
  private static final class Spilled {
    final Object item;
    final long stamp;
    final long position;
    final long tailAtSpill;

    Spilled(Object item, long stamp, long position, long tailAtSpill) {
      this.item = item;
      this.stamp = stamp;
      this.position = position;
      this.tailAtSpill = tailAtSpill;
    }

    Object item() {
      return item;
    }

    long stamp() {
      return stamp;
    }

    long position() {
      return position;
    }
  }

  private final java.util.concurrent.ConcurrentLinkedQueue<Spilled> spill =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  /** Entries claimed in the overflow and not yet taken (see "Overflow" above). */
  private final java.util.concurrent.atomic.AtomicLong spilled =
      new java.util.concurrent.atomic.AtomicLong();
  /** Entries ever appended to the overflow. */
  private final java.util.concurrent.atomic.AtomicLong spillAppends =
      new java.util.concurrent.atomic.AtomicLong();
  /** Slots a growing ring's array starts with (see "Growth"). */
  static final int INITIAL_CAPACITY = 64;

  /** How often a producer that finds a switch under way re-reads {@code tail} before it spills. */
  private static final int RESIZE_SPINS = 64;

  /** Set in {@code tail} while a switch of segments is under way (see "Growth"). */
  static final long RESIZING = 1L << 61;

  private static final VarHandle SEGMENT;

  static {
    try {
      SEGMENT = MethodHandles.lookup().findVarHandle(RingShard.class, "segment", Segment.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One array of slots, serving the positions from {@code start} on (see "Growth"). */
  static final class Segment {
    final int mask;
    /** Per slot, the position it waits for, truncated to an int (differences stay exact). */
    final int[] seq;
    final Object[] items;
    final long[] stamps;
    /** The first position this segment serves. */
    final long start;
    /** The segment serving the positions below {@code start}; null once all of them were taken. */
    volatile Segment prev;

    /** A segment of {@code capacity} slots (a power of two) from position {@code start} on. */
    Segment(int capacity, long start, Segment prev) {
      this.mask = capacity - 1;
      this.seq = new int[capacity];
      this.items = new Object[capacity];
      this.stamps = new long[capacity];
      this.start = start;
      this.prev = prev;
      for (int i = 0; i < capacity; i++) {
        seq[i] = (int) (start + ((i - start) & mask)); // the position of this lap that uses slot i
      }
    }

    /**
     * The segment serving {@code position}, from this one back through {@code prev}; null if
     * {@code prev} was unlinked (then every position below this start was taken).
     */
    Segment serving(long position) {
      Segment s = this;
      while (s != null && position < s.start) {
        s = s.prev;
      }
      return s;
    }
  }

  /** The newest array; replaced only under growLock with the RESIZING bit set in tail. */
  private volatile Segment segment;
  /** The array's bound (a power of two); growth stops there. */
  private volatile int maxCapacity;
  private final ReentrantLock growLock = new ReentrantLock();

  /** Where a shard's index goes in the numbers it hands out (see "Numbers"). */
  static final int ID_SHIFT = 58;

  /** Added to every position this shard hands out as a number (see "Numbers"). */
  private final long idBase;

  /**
   * Shard {@code index} of a ring, whose array starts with {@code initialCapacity} slots and grows
   * up to {@code maxCapacity} (each rounded up to a power of two; the initial at most the bound).
   */
  RingShard(int initialCapacity, int maxCapacity, int index) {
    int max = roundUp(maxCapacity);
    int initial = Math.min(max, roundUp(initialCapacity));
    this.maxCapacity = max;
    this.segment = new Segment(initial, 0, null);
    this.idBase = (long) index << ID_SHIFT;
  }

  private static int roundUp(int capacity) {
    int cap = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    if (cap <= 0) {
      throw new IllegalArgumentException("ring capacity too large: " + capacity);
    }
    return cap;
  }

  /** Bytes the ring's array holds at its bound, {@code capacity} (for the lane's heap check). */
  static long bytesFor(int capacity) {
    long cap = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    return cap * (4 + 4 + 8); // sequence, reference (compressed), stamp
  }

  /** Slots in the array now (it may grow up to {@link #maxCapacity()}). */
  int capacity() {
    return segment.mask + 1;
  }

  /** Slots the array may grow to. */
  int maxCapacity() {
    return maxCapacity;
  }

  /** The plain position in {@code tail} (without the RESIZING bit). */
  private long tailPosition() {
    return (long) TAIL.getVolatile(pos) & ~RESIZING;
  }

  /**
   * Appends {@code item} with {@code stamp} to the array if its slot of the lap is free and the
   * overflow is empty, and otherwise to the overflow; never refuses (the lane's admission bounds
   * what it holds). Returns the entry's position.
   */
  long append(Object item, long stamp) {
    if (spilled.get() == 0) {
      long t = offer(item, stamp);
      if (t >= 0) {
        return t;
      }
    }
    return spill(item, stamp);
  }

  /**
   * Grows the ring past {@code seen}, the newest segment a producer found full (see "Growth").
   * True if the producer should look again (grown now or meanwhile), false if it should spill
   * (the bound is reached, growth failed, or another thread holds the lock).
   */
  private boolean grow(Segment seen) {
    if (!growLock.tryLock()) {
      return false;
    }
    try {
      Segment current = segment;
      if (current != seen) {
        return true; // grown meanwhile
      }
      int cap = current.mask + 1;
      if (cap >= maxCapacity) {
        return false;
      }
      long t = (long) TAIL.getVolatile(pos);
      Segment grown;
      try {
        grown = new Segment((int) Math.min(maxCapacity, 2L * cap), t, current);
      } catch (OutOfMemoryError e) {
        maxCapacity = cap; // growth ends here; the overflow takes what the array cannot
        return false;
      }
      if (!TAIL.compareAndSet(pos, t, t | RESIZING)) {
        return true; // tail moved since it was read: look again
      }
      try {
        SEGMENT.setVolatile(this, grown);
      } finally {
        TAIL.setVolatile(pos, t);
      }
      return true;
    } finally {
      growLock.unlock();
    }
  }

  /** Appends to the overflow (see "Overflow" in the class comment); returns the position. */
  long spill(Object item, long stamp) {
    spilled.incrementAndGet(); // claimed: visible to hasClaimed before the entry is linked
    long position = SPILL_BASE + spillAppends.getAndIncrement();
    if (item instanceof NumberedEntry f) {
      f.numberIfNew(position + 1 + idBase);
    }
    spill.offer(new Spilled(item, stamp, position, tailPosition()));
    return position;
  }

  /** Entries in the overflow now (claimed, not yet taken); for tests. */
  long spilled() {
    return spilled.get();
  }

  /**
   * Appends {@code item} with {@code stamp} to the array alone; returns its position (from 0), or
   * -1 if its slot of the lap is still taken.
   */
  long offer(Object item, long stamp) {
    Positions p = pos;
    long t = (long) TAIL.getAcquire(p);
    int spins = 0;
    for (; ; ) {
      if ((t & RESIZING) != 0) { // a switch of arrays is under way (see "Growth")
        if (++spins > RESIZE_SPINS) {
          return -1; // the overflow takes it
        }
        Thread.onSpinWait();
        t = (long) TAIL.getAcquire(p);
        continue;
      }
      Segment seg = segment; // read after tail (see "Which segment a position is in")
      int i = (int) t & seg.mask;
      int s = (int) SEQ.getAcquire(seg.seq, i);
      int dif = s - (int) t;
      if (dif == 0) {
        long witness = (long) TAIL.compareAndExchange(p, t, t + 1);
        if (witness == t) {
          seg = segment.serving(t); // never null: this position is not taken yet
          i = (int) t & seg.mask;
          if (item instanceof NumberedEntry f) {
            f.numberIfNew(t + 1 + idBase); // its number: the position it first took (kept if moved)
          }
          seg.items[i] = item;
          seg.stamps[i] = stamp;
          SEQ.setRelease(seg.seq, i, (int) (t + 1));
          return t;
        }
        t = witness;
      } else if (dif < 0) {
        // The slot of this lap is still occupied: grow, or report the array full.
        if (seg.mask + 1 >= maxCapacity || !grow(seg)) {
          return -1;
        }
        t = (long) TAIL.getAcquire(p);
      } else {
        t = (long) TAIL.getAcquire(p);
      }
    }
  }

  /**
   * For tests: claims the next array position without publishing it, as a producer descheduled
   * between its claim and its release store leaves it; {@link #publishForTest} ends the claim.
   */
  long claimForTest() {
    for (; ; ) {
      long t = tailPosition();
      Segment seg = segment;
      if ((int) SEQ.getAcquire(seg.seq, (int) t & seg.mask) != (int) t) {
        throw new IllegalStateException("the slot of position " + t + " is taken");
      }
      if (TAIL.compareAndSet(pos, t, t + 1)) {
        return t;
      }
    }
  }

  /** For tests: publishes {@code item} at a position {@link #claimForTest} claimed. */
  void publishForTest(long position, Object item, long stamp) {
    Segment seg = segment.serving(position);
    int i = (int) position & seg.mask;
    seg.items[i] = item;
    seg.stamps[i] = stamp;
    SEQ.setRelease(seg.seq, i, (int) (position + 1));
  }

  /**
   * Takes the oldest entry, or returns null if none is published: the array's first, then — only
   * once nothing is claimed in the array, and {@code head} has passed every array position claimed
   * before the overflow's head entry was spilled — the overflow's, so no entry passes an older one
   * whose producer is still publishing it in the array, or one appended to the array while this
   * consumer was between its look at the array and its take. The stamp of the entry taken is left
   * in {@code into.stamp} and its position in {@code into.position}.
   */
  Object poll(Taken into) {
    Object item = pollArray(into);
    if (item != null || spilled.get() == 0) {
      return item;
    }
    if (arrayHasClaimed()) {
      return null; // an older entry is being published in the array: it comes first
    }
    Spilled x = spill.peek();
    if (x == null) {
      return null; // claimed, not linked yet
    }
    if ((long) HEAD.getVolatile(pos) < x.tailAtSpill) {
      // The array was empty when this consumer looked, but entries older than x have been
      // appended to it since (the overflow emptied, took them, and then x): they come first.
      return null;
    }
    if (!spill.remove(x)) {
      return null; // another consumer took it; the caller re-checks
    }
    spilled.decrementAndGet();
    into.entry(x.stamp(), x.position() + idBase);
    return x.item();
  }

  /**
   * Takes the head entry only if it is {@code expected} (the same object), as {@link #poll} would
   * take it; true if it did. For dropping a dead entry seen at the head without taking a live one
   * that replaced it.
   */
  boolean pollIfHead(Object expected) {
    Positions p = pos;
    long h = (long) HEAD.getAcquire(p);
    Segment newest = segment;
    Segment seg = newest.serving(h);
    if (seg != null) {
      int i = (int) h & seg.mask;
      if ((int) SEQ.getAcquire(seg.seq, i) == (int) (h + 1)) {
        if (seg.items[i] != expected || !HEAD.compareAndSet(p, h, h + 1)) {
          return false;
        }
        seg.items[i] = null;
        SEQ.setRelease(seg.seq, i, (int) (h + seg.mask + 1));
        if (seg == newest && seg.prev != null) {
          seg.prev = null;
        }
        return true;
      }
    }
    if (spilled.get() == 0 || arrayHasClaimed()) {
      return false;
    }
    Spilled x = spill.peek();
    if (x == null || x.item() != expected || (long) HEAD.getVolatile(pos) < x.tailAtSpill
        || !spill.remove(x)) {
      return false;
    }
    spilled.decrementAndGet();
    return true;
  }

  private Object pollArray(Taken into) {
    Positions p = pos;
    long h = (long) HEAD.getAcquire(p);
    for (; ; ) {
      Segment newest = segment; // read after head (see "Which segment a position is in")
      Segment seg = newest.serving(h);
      if (seg == null) { // every position below the newest start was taken: h is stale
        h = (long) HEAD.getAcquire(p);
        continue;
      }
      int i = (int) h & seg.mask;
      int s = (int) SEQ.getAcquire(seg.seq, i);
      int dif = s - (int) (h + 1);
      if (dif == 0) {
        long witness = (long) HEAD.compareAndExchange(p, h, h + 1);
        if (witness == h) {
          Object item = seg.items[i];
          into.entry(seg.stamps[i], h + idBase);
          seg.items[i] = null;
          SEQ.setRelease(seg.seq, i, (int) (h + seg.mask + 1));
          if (seg == newest && seg.prev != null) {
            seg.prev = null; // every position below its start was taken before this one
          }
          return item;
        }
        h = witness;
      } else if (dif < 0) {
        return null; // not published yet (or empty)
      } else {
        h = (long) HEAD.getAcquire(p);
      }
    }
  }

  /**
   * True if some position is claimed and not yet taken (see the class comment). Reads {@code
   * head} before {@code tail}: an entry that stays in the ring between the two reads is always
   * seen (read the other way round, consumers and producers moving in between could hide it); at
   * worst it answers true for an entry taken meanwhile, and every caller re-checks.
   */
  boolean hasClaimed() {
    return arrayHasClaimed() || spilled.get() > 0;
  }

  /**
   * True if the entry at the head is published (in the array, or, with nothing claimed in the
   * array, in the overflow): a poll now would find it, unless another consumer takes it first.
   */
  boolean headPublished() {
    long h = (long) HEAD.getAcquire(pos);
    Segment seg = segment.serving(h);
    if (seg != null && (int) SEQ.getAcquire(seg.seq, (int) h & seg.mask) == (int) (h + 1)) {
      return true;
    }
    return spilled.get() > 0 && !arrayHasClaimed() && spill.peek() != null;
  }

  private boolean arrayHasClaimed() {
    long h = (long) HEAD.getVolatile(pos);
    return tailPosition() > h;
  }

  /**
   * Claimed positions not yet taken, dead entries included: the ring's size at one instant during
   * the call, never more than it held then. Reading {@code head} and then {@code tail} alone would
   * overstate it by every entry taken between the two reads (a reader descheduled there could
   * report a full ring that never held more than one entry), so this re-reads {@code head} after
   * {@code tail}: if it did not move, {@code tail − head} held at the moment {@code tail} was read.
   * After a few tries under a fast-moving head it returns {@code tail − head} with {@code head}
   * read after {@code tail}, which can only understate.
   */
  int size() {
    long h = (long) HEAD.getVolatile(pos);
    long t = 0;
    for (int attempt = 0; attempt < SIZE_ATTEMPTS; attempt++) {
      t = tailPosition();
      long again = (long) HEAD.getVolatile(pos);
      if (again == h) {
        break;
      }
      h = again;
    }
    long inArray = Math.max(0, t - h); // at most what the array's segments hold
    return (int) Math.min(Integer.MAX_VALUE, inArray + Math.max(0, spilled.get()));
  }

  /**
   * Claimed positions not yet taken, overflow included, read racily ({@code head} after {@code
   * tail}): for a guess only (which idle worker to wake).
   */
  long roughCount() {
    return spilled.get() + Math.max(0, tailPosition() - (long) HEAD.getVolatile(pos));
  }

  /** Entries ever appended (positions claimed), overflow included. */
  long appended() {
    return tailPosition() + spillAppends.get();
  }

  /**
   * How long the entry at the head has waited at {@code now} (by its stamp), or 0 with an empty
   * ring. Approximate under concurrent submission: the head may be taken while it is read.
   */
  long headWaitNanos(long now) {
    Taken tk = new Taken();
    return peek(tk) == null ? 0 : Math.max(0, now - tk.stamp);
  }

  /**
   * The entry at the head and its stamp, without taking it; racy (it may be taken meanwhile, and
   * then this returns what the slot holds at that moment, possibly null).
   */
  Object peek(Taken into) {
    long h = (long) HEAD.getVolatile(pos);
    Segment seg = segment.serving(h);
    int i = seg == null ? 0 : (int) h & seg.mask;
    if (seg == null || (int) SEQ.getAcquire(seg.seq, i) != (int) (h + 1)) {
      Spilled x = spilled.get() == 0 ? null : spill.peek();
      if (x == null) {
        return null;
      }
      into.entry(x.stamp(), x.position() + idBase);
      return x.item();
    }
    into.entry(seg.stamps[i], h + idBase);
    return seg.items[i];
  }


  /**
   * Calls {@code action} with each entry between head and tail at the moment of the call, read
   * racily (an entry may be taken or replaced meanwhile; a slot being written is skipped). For
   * diagnostics only.
   */
  void forEachEntry(java.util.function.Consumer<Object> action) {
    long h = (long) HEAD.getVolatile(pos);
    long t = tailPosition();
    Segment newest = segment;
    for (long p = h; p < t && p < h + 2L * maxCapacity; p++) {
      Segment seg = newest.serving(p);
      if (seg == null) {
        continue; // taken meanwhile
      }
      int i = (int) p & seg.mask;
      if ((int) SEQ.getAcquire(seg.seq, i) == (int) (p + 1)) {
        Object x = ITEM.getAcquire(seg.items, i);
        if (x != null) {
          action.accept(x);
        }
      }
    }
    if (spilled.get() > 0) {
      for (Spilled x : spill) {
        action.accept(x.item());
      }
    }
  }

}
