package dev.lanes;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-off between a lane's submitters and its workers: one or more {@link RingShard}s (each
 * a bounded multi-producer, multi-consumer ring of tasks with their acceptance stamps, growing
 * with what it holds, with an overflow), and the idle protocol by which workers park and
 * producers wake them.
 *
 * <p><b>Shards (issue #27: many producers).</b> With one shard every producer claims positions on
 * one {@code tail} and every worker on one {@code head}; two lanes of one worker each, fed by two
 * producers apiece, ran half as fast again as one lane of two workers fed by all four
 * (BENCHMARKS.md, "Issue #27: a sharded hand-off"). So a ring may have several shards (a power of
 * two, chosen by the lane: see {@code LaneExecutor}). A producer appends to the shard its thread's
 * id picks ({@code threadId & (shards − 1)}), so one thread's entries stay in its order. A worker
 * has a home shard (workers are numbered as they start, {@link #nextHome}) and takes from it first,
 * then from the others in turn. Two rules bound how long an entry waits in a shard whose home
 * worker is busy or gone (there may be fewer workers than shards, for a while or for good): a
 * worker looks at the other shards first after {@value #STREAK} takes in a row from its home (and
 * after a take from another shard, at its home first again), and after any task whose run took
 * {@value #ROTATE_AFTER_NANOS} ns or more it looks first at the shard after the one that task came
 * from ({@link Taken#rotate()}), so under long tasks each worker takes from every shard in turn. With one
 * shard (every lane of concurrency 1, every virtual or gated lane) all of this reduces to the one
 * ring, in order. With several, "oldest" is per shard: entries of different threads have no order
 * between them, as in any pool of several workers; {@link #pollOldest} and {@link #peek} compare
 * the shards' heads by their stamps.
 *
 * <p><b>Idle protocol.</b> A worker that finds the ring empty announces itself in {@code idle}
 * (an atomic increment, a full fence) and then re-reads every shard's {@code tail}; a producer,
 * after its CAS on its shard's {@code tail} (also a full fence), reads {@code idle}. By the total
 * order of these volatile operations at least one of the two sees the other: the worker sees the
 * new tail and does not park, or the producer sees the idle worker and wakes one. See {@link
 * #await}. A worker that finds a head claimed but not yet published does not park (the producer
 * read {@code idle} before the worker announced itself, perhaps) and does not spin on it either:
 * after {@link #PUBLISH_SPINS} spins it yields its core at each look, since a producer that takes
 * longer than a few instructions to publish was descheduled between its claim and its release
 * store, and on a machine with fewer cores than threads a spinning worker keeps it from running
 * (issue #27).
 *
 * <p><b>Which idle worker.</b> The idle workers form a list in the order they announced themselves
 * (under the idle lock, linked both ways, so a worker whose wait timed out leaves from anywhere in
 * it). A producer wakes the latest, so that work stays with the fewest threads and a virtual
 * lane's surplus workers reach their keep-alive and give their permits back; except that on a
 * platform lane, for an entry alone in the ring (a task into an idle lane), it wakes the worker
 * idle longest. Both choices are measured ones (BENCHMARKS.md, "Issue #27: which idle worker to
 * wake"): on this project's 2-core virtual machine, handing one task at a time to a lane of two
 * workers took several times longer when the producer woke the worker that had just parked, and
 * bursts of tiny tasks fell more often into the slow state when every wake went to the oldest.
 *
 * <p><b>Failure model.</b> Nothing here calls user code. The only wait is an {@code
 * InterruptedException}-free park, so a worker's wait ends by an unpark, a timeout, or a spurious
 * wake-up (re-checked).
 */
final class TaskRing extends TaskRingIdleListEnd {
  /** Takes in a row from its home shard after which a worker looks at the others first. */
  static final int STREAK = 64;

  /** A task that ran this long or longer sends its worker to the other shards first next. */
  static final long ROTATE_AFTER_NANOS = 10_000;

  /**
   * The most shards a ring has. A shard beyond the first holds about 1 KB while idle (measured on
   * this project's 2-core machine by {@code IdleLaneProbe}: an idle lane of two workers holds
   * 13.0 KB of heap with two shards, 12.1 KB with one; {@code IdleLaneTest} holds it to 16 KB); by
   * that figure a lane of four shards comes to about 15 KB, within issue #27's 16 KB. More than
   * two shards were never measured here (two cores).
   */
  static final int MAX_SHARDS = 4;

  /** Slots the array of every shard but the first starts with (it grows as the first does). */
  static final int EXTRA_SHARD_INITIAL_CAPACITY = 16;

  /** Slots a growing ring's array starts with (see {@link RingShard}). */
  static final int INITIAL_CAPACITY = RingShard.INITIAL_CAPACITY;

  /** Where the overflow's positions start (far above any the array reaches). */
  static final long SPILL_BASE = RingShard.SPILL_BASE;

  private final RingShard[] shards;
  /** {@code shards.length − 1} (a power of two less one). */
  private final int shardMask;
  /** Numbers the workers' homes (see "Shards"). */
  private final AtomicInteger homes = new AtomicInteger();

  /** An entry a worker took and put back ({@link #putBack}), with its stamp and number. */
  private record Returned(Object item, long stamp, long position) {}

  /**
   * Entries put back by workers that took them and found their permit (or thread) surplus after a
   * lowered concurrency, or moved to the head by discard-oldest: served before every shard, oldest
   * stamp first. {@code list} is guarded by {@code lock}; {@code count} is its size, read without
   * the lock (one volatile read per take while it is 0).
   */
  private static final class Returns {
    final java.util.ArrayList<Returned> list = new java.util.ArrayList<>(0);
    final ReentrantLock lock = new ReentrantLock();
    volatile int count;
  }

  /**
   * A lane's ring takes entries back ({@link #putBack}); null for a bare ring (the ring's own
   * tests), which then pays no read for it.
   */
  private final Returns returns;

  /** Entries are waiting at the head, put back. */
  private boolean hasReturns() {
    Returns r = returns;
    return r != null && r.count != 0;
  }

  /** A ring whose array has {@code capacity} slots (rounded up to a power of two) from the start. */
  TaskRing(int capacity) {
    this(capacity, capacity, false);
  }

  /**
   * A ring whose array starts with {@code initialCapacity} slots and grows up to {@code
   * maxCapacity} (each rounded up to a power of two; the initial at most the bound).
   */
  TaskRing(int initialCapacity, int maxCapacity) {
    this(initialCapacity, maxCapacity, false);
  }

  /**
   * As {@link #TaskRing(int, int)}; {@code wakeOldestFirst} says which idle worker a producer
   * wakes (see "Which idle worker" in the class comment).
   */
  TaskRing(int initialCapacity, int maxCapacity, boolean wakeOldestFirst) {
    this(initialCapacity, maxCapacity, wakeOldestFirst, 1);
  }

  /**
   * As {@link #TaskRing(int, int, boolean)}, with {@code shardCount} shards (a power of two from 1
   * to {@value #MAX_SHARDS}), each of which may grow to {@code maxCapacity} slots.
   */
  TaskRing(int initialCapacity, int maxCapacity, boolean wakeOldestFirst, int shardCount) {
    this(initialCapacity, maxCapacity, wakeOldestFirst, shardCount, false);
  }

  /**
   * As {@link #TaskRing(int, int, boolean, int)}; with {@code putBack}, entries taken may be put
   * back at the head ({@link #putBack}, {@link #pollBehind}), as a lane's ring needs.
   */
  TaskRing(int initialCapacity, int maxCapacity, boolean wakeOldestFirst, int shardCount,
      boolean putBack) {
    this.returns = putBack ? new Returns() : null;
    if (shardCount < 1 || shardCount > MAX_SHARDS || Integer.bitCount(shardCount) != 1) {
      throw new IllegalArgumentException(
          "shards must be a power of two from 1 to " + MAX_SHARDS + ", was " + shardCount);
    }
    this.wakeOldestFirst = wakeOldestFirst;
    this.shards = new RingShard[shardCount];
    for (int i = 0; i < shardCount; i++) {
      int initial = i == 0 ? initialCapacity
          : Math.min(initialCapacity, EXTRA_SHARD_INITIAL_CAPACITY); // an idle lane holds little
      shards[i] = new RingShard(initial, maxCapacity, i);
    }
    this.shardMask = shardCount - 1;
  }

  /** The shards this ring has. */
  int shardCount() {
    return shards.length;
  }

  /** The home shard of the next worker to start (see "Shards"). */
  int nextHome() {
    return homes.getAndIncrement() & shardMask;
  }

  /** Bytes one shard's array holds at its bound, {@code capacity} (for the lane's heap check). */
  static long bytesFor(int capacity) {
    return RingShard.bytesFor(capacity);
  }

  /** Slots in the first shard's array now (it may grow up to {@link #maxCapacity()}). */
  int capacity() {
    return shards[0].capacity();
  }

  /** Slots each shard's array may grow to. */
  int maxCapacity() {
    return shards[0].maxCapacity();
  }

  /**
   * Appends {@code item} with {@code stamp} to the shard of the calling thread (see "Shards");
   * never refuses (the lane's admission bounds what it holds). Returns the entry's number.
   */
  long append(Object item, long stamp) {
    RingShard[] s = shards;
    return s[s.length == 1 ? 0 : (int) Thread.currentThread().threadId() & shardMask]
        .append(item, stamp);
  }

  /** As {@link #append}, to shard {@code shard} (for tests). */
  long appendTo(int shard, Object item, long stamp) {
    return shards[shard].append(item, stamp);
  }

  /**
   * For tests: appends to the first shard's array alone; its position, or -1 if its slot of the
   * lap is still taken ({@link RingShard#offer}).
   */
  long offer(Object item, long stamp) {
    return shards[0].offer(item, stamp);
  }

  /** For tests: appends to the first shard's overflow ({@link RingShard#spill}). */
  long spill(Object item, long stamp) {
    return shards[0].spill(item, stamp);
  }

  /** Entries in the first shard's overflow now (claimed, not yet taken); for tests. */
  long spilled() {
    return shards[0].spilled();
  }

  /** For tests: claims the next array position of the first shard without publishing it. */
  long claimForTest() {
    return shards[0].claimForTest();
  }

  /** For tests: publishes {@code item} at a position {@link #claimForTest} claimed. */
  void publishForTest(long position, Object item, long stamp) {
    shards[0].publishForTest(position, item, stamp);
  }

  /**
   * Puts back an entry a worker took but may not run (its permit or thread turned out surplus
   * after a lowered concurrency): it goes before every other entry, in stamp order among those put
   * back, keeping its stamp and number. Not counted as appended again. The caller wakes a worker.
   */
  void putBack(Object item, long stamp, long position) {
    returns.lock.lock();
    try {
      insertReturned(item, stamp, position);
      returns.count = returns.list.size(); // a volatile write: seen by hasClaimed (idle, permits)
    } finally {
      returns.lock.unlock();
    }
  }

  /** Inserts an entry among those put back, in stamp order; the caller holds returns.lock. */
  private void insertReturned(Object item, long stamp, long position) {
    int i = returns.list.size();
    while (i > 0 && returns.list.get(i - 1).stamp() - stamp > 0) {
      i--;
    }
    returns.list.add(i, new Returned(item, stamp, position));
  }

  /**
   * Drops the head entry {@code expected} (seen by {@link #peek}) if it is still a head: the head
   * of the entries put back or of a shard; true if it did.
   */
  boolean dropHead(Object expected) {
    if (hasReturns()) {
      returns.lock.lock();
      try {
        if (!returns.list.isEmpty() && returns.list.get(0).item() == expected) {
          returns.list.remove(0);
          returns.count = returns.list.size();
          return true;
        }
      } finally {
        returns.lock.unlock();
      }
    }
    for (RingShard s : shards) {
      if (s.pollIfHead(expected)) {
        return true;
      }
    }
    return false;
  }

  /** Takes the oldest entry put back (none of them has a submitter waiting), or null. */
  Object pollPutBack(Taken into) {
    return pollReturned(into);
  }

  /** Takes the oldest entry put back, or null if none is. */
  private Object pollReturned(Taken into) {
    return oldestOf(null, into);
  }

  /** The oldest entry put back, without taking it, or null. */
  private Returned peekReturned() {
    if (!hasReturns()) {
      return null;
    }
    returns.lock.lock();
    try {
      return returns.list.isEmpty() ? null : returns.list.get(0);
    } finally {
      returns.lock.unlock();
    }
  }

  /**
   * Takes an entry, or returns null if none is published: for a worker, from the shard its
   * {@code into} points at (its home, unless one of the rules of "Shards" sends it on), else the
   * first found among the others in turn. Each shard gives its oldest. The stamp and number of
   * the entry taken are left in {@code into}, and where the worker looks next.
   */
  Object poll(Taken into) {
    if (hasReturns()) {
      Object r = pollReturned(into);
      if (r != null) {
        return r;
      }
    }
    return oldestOf(pollShards(into), into);
  }

  /**
   * What a take from the shards ({@code x}, null if none) gives, if entries were put back while it
   * looked: the oldest of them and {@code x}, {@code x} put back in its turn (with {@code x} null:
   * the oldest entry put back, or null). A taker that checked
   * the head while it was empty and then polled a shard may have passed entries moved to the head
   * meanwhile ({@link #pollBehind} moves the oldest, spared for free workers, before it polls its
   * victim); without this second look it would take a newer entry, or none, while the spared one
   * waits for the next discard. The second look is one volatile read while nothing is put back.
   */
  private Object oldestOf(Object x, Taken into) {
    if (!hasReturns()) {
      return x;
    }
    returns.lock.lock();
    try {
      if (returns.list.isEmpty()
          || (x != null && returns.list.get(0).stamp() - into.stamp >= 0)) {
        return x;
      }
      if (x != null) {
        insertReturned(x, into.stamp, into.position);
      }
      Returned r = returns.list.remove(0);
      returns.count = returns.list.size();
      into.entry(r.stamp(), r.position());
      return r.item();
    } finally {
      returns.lock.unlock();
    }
  }

  /** As {@link #poll}, from the shards only. */
  private Object pollShards(Taken into) {
    RingShard[] s = shards;
    if (s.length == 1) {
      return s[0].poll(into);
    }
    int mask = shardMask;
    int home = into.home & mask;
    int start = into.cursor & mask;
    for (int i = 0; i <= mask; i++) {
      int shard = (start + i) & mask;
      Object x = s[shard].poll(into);
      if (x != null) {
        into.tookFrom(shard, home, STREAK);
        return x;
      }
    }
    return null;
  }

  /**
   * Takes the oldest entry by its stamp among the shards' heads (the shards are compared at
   * slightly different instants), or null if none is published.
   */
  Object pollOldest(Taken into) {
    if (hasReturns()) {
      Object r = pollReturned(into);
      if (r != null) {
        return r;
      }
    }
    return oldestOf(pollOldestBehindReturned(into), into);
  }

  /**
   * Takes the oldest entry behind the {@code spared} oldest ones, or returns null if there is none
   * behind them: the spared entries are moved to the head (as {@link #putBack} does) under the
   * lock takers of put-back entries take, so no taker can pass one of them while it moves: a
   * taker that finds the head moving waits for that lock, and one that polled a shard meanwhile
   * looks at the head again ({@link #oldestOf}). For discard-oldest, whose victim is never a task
   * a free worker is about to take.
   */
  Object pollBehind(int spared, Taken into) {
    returns.lock.lock();
    try {
      returns.count = returns.list.size() + 1; // takers come to the lock, and wait for it
      Taken at = new Taken();
      while (returns.list.size() < spared) {
        Object x = pollOldestBehindReturned(at);
        if (x == null) {
          return null;
        }
        insertReturned(x, at.stamp, at.position);
      }
      return pollOldestBehindReturned(into);
    } finally {
      returns.count = returns.list.size();
      returns.lock.unlock();
    }
  }

  /** As {@link #pollOldest}, leaving the entries put back where they are. */
  Object pollOldestBehindReturned(Taken into) {
    RingShard[] s = shards;
    if (s.length == 1) {
      return s[0].poll(into);
    }
    int oldest = -1;
    long oldestStamp = 0;
    for (int i = 0; i < s.length; i++) {
      if (s[i].peek(into) != null && (oldest < 0 || into.stamp - oldestStamp < 0)) {
        oldest = i;
        oldestStamp = into.stamp;
      }
    }
    if (oldest < 0) {
      return null;
    }
    Object x = s[oldest].poll(into);
    // Taken meanwhile (or behind an entry still being published): any other, never a spin here
    // (the callers back off, or re-check as pollClaimed does).
    return x != null ? x : pollShards(into);
  }

  /**
   * Takes an entry as {@link #pollOldest} does; if one is claimed but not yet published, waits the
   * few instructions until it is. Returns null only when nothing is claimed at all.
   */
  Object pollClaimed(Taken into) {
    for (; ; ) {
      Object item = pollOldest(into);
      if (item != null || !hasClaimed()) {
        return item;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * True if some position is claimed and not yet taken in some shard (see {@link RingShard}); at
   * worst it answers true for an entry taken meanwhile, and every caller re-checks. With several
   * shards it answers false only if no shard had an append while it looked (the sum of their
   * {@link RingShard#appended} counts, read before and after, did not move): then every shard was
   * empty at the end of the call. Without that second reading, an entry appended to a shard
   * already looked at, while the entry in a shard not yet looked at is taken, would let it answer
   * false although the ring never was empty.
   */
  boolean hasClaimed() {
    if (hasReturns()) {
      return true;
    }
    RingShard[] s = shards;
    if (s.length == 1) {
      return s[0].hasClaimed();
    }
    long before = appended();
    for (RingShard shard : s) {
      if (shard.hasClaimed()) {
        return true;
      }
    }
    return appended() != before;
  }

  /** True if some shard's head entry is published: a poll now would find one, unless raced. */
  boolean headPublished() {
    if (hasReturns()) {
      return true;
    }
    for (RingShard s : shards) {
      if (s.headPublished()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Claimed positions not yet taken, dead entries included: never more than the ring held at one
   * instant during the call. With one shard that is {@link RingShard#size}. With several, each
   * shard is read at its own instant, and an entry taken from a shard already read and another
   * appended to one not yet read would be counted twice in the plain sum; so the sum is lowered
   * by the appends made meanwhile (the {@link #appended} count read before and after). Each shard
   * read held at most what it held at the first read plus what was appended to it since, so the
   * result is at most the ring's size at that first read; it is exact when nothing was appended
   * meanwhile, and may understate while producers append.
   */
  int size() {
    int back = returns == null ? 0 : returns.count; // read first: an entry put back was taken before, never counted twice
    RingShard[] s = shards;
    if (s.length == 1) {
      return s[0].size() + back;
    }
    long before = appended();
    long sum = 0;
    for (RingShard shard : s) {
      sum += shard.size();
    }
    long appendedMeanwhile = appended() - before;
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, sum - appendedMeanwhile) + back);
  }

  /** Entries ever appended (positions claimed), overflows included. */
  long appended() {
    long sum = 0;
    for (RingShard s : shards) {
      sum += s.appended();
    }
    return sum;
  }

  /**
   * How long the oldest head entry has waited at {@code now} (by its stamp), or 0 with an empty
   * ring. Approximate under concurrent submission: a head may be taken while it is read.
   */
  long headWaitNanos(long now) {
    Returned r = peekReturned();
    long wait = r == null ? 0 : Math.max(0, now - r.stamp());
    for (RingShard s : shards) {
      wait = Math.max(wait, s.headWaitNanos(now));
    }
    return wait;
  }

  /**
   * The oldest head entry by its stamp, and its stamp, without taking it; racy (it may be taken
   * meanwhile, and then this returns what the slot holds at that moment, possibly null).
   */
  Object peek(Taken into) {
    Returned r = peekReturned();
    if (r != null) {
      into.entry(r.stamp(), r.position());
      return r.item();
    }
    RingShard[] s = shards;
    if (s.length == 1) {
      return s[0].peek(into);
    }
    Object oldest = null;
    long stamp = 0;
    long position = 0;
    for (RingShard shard : s) {
      Object x = shard.peek(into);
      if (x != null && (oldest == null || into.stamp - stamp < 0)) {
        oldest = x;
        stamp = into.stamp;
        position = into.position;
      }
    }
    into.entry(stamp, position);
    return oldest;
  }

  /**
   * Calls {@code action} with each entry between head and tail of each shard at the moment of
   * the call, read racily (an entry may be taken or replaced meanwhile; a slot being written is
   * skipped). For diagnostics only.
   */
  void forEachEntry(java.util.function.Consumer<Object> action) {
    if (hasReturns()) {
      returns.lock.lock();
      try {
        for (Returned r : returns.list) {
          action.accept(r.item());
        }
      } finally {
        returns.lock.unlock();
      }
    }
    for (RingShard s : shards) {
      s.forEachEntry(action);
    }
  }

  // ---------------------------------------------------------------- idle workers

  /**
   * How long a worker that found the ring empty keeps looking before it parks: a short spin costs
   * a little CPU and saves the producer an unpark (a system call) when work arrives at once.
   */
  static final int SPINS = Integer.getInteger("lanes.idleSpins", 64);

  /**
   * How often a worker that finds the head claimed but not yet published spins before it yields
   * its core at each further look (see {@link #await}).
   */
  static final int PUBLISH_SPINS = Integer.getInteger("lanes.publishSpins", 16);

  /** Workers announced idle (parked or about to park); read by producers after every append. */
  private final AtomicInteger idleCount = new AtomicInteger();

  private final ReentrantLock idleLock = new ReentrantLock();

  // The idle list's two ends (idleOldest, idleNewest) are in TaskRingIdleList: written at every
  // park and wake, they sit apart from the fields every append and poll reads (see LayoutTest).

  /**
   * Whether a producer wakes the worker idle longest for an entry alone in the ring (a platform
   * lane) or always the latest (see "Which idle worker").
   */
  private final boolean wakeOldestFirst;

  /**
   * Producer side, after an append: wakes one idle worker if there is one (which one: "Which idle
   * worker" in the class comment); true if it woke one. One volatile read when no worker is idle.
   */
  boolean wakeIdle() {
    if (idleCount.get() == 0) {
      return false;
    }
    Idler w;
    boolean oldest = wakeOldestFirst && holdsOneAtMost();
    idleLock.lock();
    try {
      w = oldest ? idleOldest : idleNewest;
      if (w == null) {
        return false;
      }
      unlinkIdle(w);
      w.idle = false;
      idleCount.decrementAndGet();
    } finally {
      idleLock.unlock();
    }
    LockSupport.unpark(w.thread);
    return true;
  }

  /** True if a producer wakes the worker idle longest for an entry alone in the ring. */
  boolean wakesOldestFirst() {
    return wakeOldestFirst;
  }

  /**
   * True if the ring holds at most one claimed entry (a producer that just appended one: its own
   * alone). Reads racily, so it may say true for an entry taken meanwhile; it only picks which
   * idle worker to wake.
   */
  boolean holdsOneAtMost() {
    long sum = 0;
    for (RingShard s : shards) {
      sum += s.roughCount();
      if (sum > 1) {
        return false;
      }
    }
    return true;
  }

  /** Takes {@code w} off the idle list, wherever it is in it; the caller holds idleLock. */
  private void unlinkIdle(Idler w) {
    Idler older = w.older;
    Idler newer = w.newer;
    if (older == null) {
      idleOldest = newer;
    } else {
      older.newer = newer;
    }
    if (newer == null) {
      idleNewest = older;
    } else {
      newer.older = older;
    }
    w.older = null;
    w.newer = null;
  }

  /**
   * A worker's place in the idle list (one per worker: {@code Worker.idler}): written by the ring
   * only, under the idle lock but {@code idle}'s clearing, which whoever wakes it does there too.
   */
  static final class Idler {
    /** Parked in the idle list; cleared by whoever wakes it (under the idle lock). */
    private volatile boolean idle;
    /** The idle workers announced before and after this one; guarded by the idle lock. */
    private Idler older;
    private Idler newer;
    /** The thread to unpark: the one that announced itself last. */
    private volatile Thread thread;

    /** Parked in the ring's idle list now (or about to park). */
    boolean idle() {
      return idle;
    }
  }

  /**
   * Bumped by {@link #wakeAll} before it wakes anyone; a worker about to park re-reads it after it
   * announced itself idle, so a wake-all that found no idle worker is never missed (the same
   * pairing of volatile operations as for producers, see the class comment).
   */
  private final AtomicInteger wakeAllEpoch = new AtomicInteger();

  /** Wakes every idle worker, and every worker about to park (shutdown, a change of concurrency). */
  void wakeAll() {
    wakeAllEpoch.incrementAndGet();
    while (wakeIdle()) {
      // each call wakes one
    }
  }

  /** Workers idle now; approximate. */
  int idleWorkers() {
    return idleCount.get();
  }

  /** The wake-all epoch, to be read before the worker reads its lane's state (see await). */
  int epoch() {
    return wakeAllEpoch.get();
  }

  /**
   * Worker side: waits until an entry may be here, a producer or {@link #wakeAll} woke this
   * worker, or {@code timeoutNanos} passed ({@code < 0}: no timeout). Returns true unless it
   * timed out with nothing claimed. Spins {@link #SPINS} times before it announces itself idle.
   * {@code epoch} is {@link #epoch()} as read before the worker last read its lane's state, so a
   * wake-all (which follows every change of that state) after that read is never missed.
   */
  boolean await(Idler w, long timeoutNanos, int epoch) {
    for (int spins = 0, publishWaits = 0; ; ) {
      if (headPublished()) {
        return true;
      }
      if (hasClaimed()) {
        // Claimed, not yet published: its producer is between its claim and its release store, a
        // few instructions, unless it was descheduled there. Then a worker that spins (or returns
        // to poll at once, as it once did) takes the core the producer needs to finish, for as
        // long as the scheduler lets it: after a few spins, give the core up instead.
        if (publishWaits < PUBLISH_SPINS) {
          publishWaits++;
          Thread.onSpinWait();
        } else {
          Thread.yield();
        }
        continue;
      }
      if (spins++ >= SPINS) {
        break;
      }
      Thread.onSpinWait();
    }
    idleLock.lock();
    try {
      w.thread = Thread.currentThread();
      w.idle = true;
      w.older = idleNewest;
      w.newer = null;
      if (idleNewest == null) {
        idleOldest = w;
      } else {
        idleNewest.newer = w;
      }
      idleNewest = w;
      idleCount.incrementAndGet(); // the fence before the re-check below (see the class comment)
    } finally {
      idleLock.unlock();
    }
    long deadline = timeoutNanos < 0 ? 0 : System.nanoTime() + timeoutNanos;
    boolean timedOut = false;
    while (w.idle) {
      if (hasClaimed() || wakeAllEpoch.get() != epoch) {
        break;
      }
      if (timeoutNanos < 0) {
        LockSupport.park(this);
      } else {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        LockSupport.parkNanos(this, left);
      }
      // An idle worker has no task an interrupt could be meant for (shutdownNow also wakes it):
      // clear the flag, or park would return at once for ever.
      Thread.interrupted();
    }
    if (w.idle) { // not woken by anyone: take this worker off the list
      idleLock.lock();
      try {
        if (w.idle) {
          unlinkIdle(w);
          w.idle = false;
          idleCount.decrementAndGet();
        } else {
          timedOut = false; // woken just now: a producer counts on this worker
        }
      } finally {
        idleLock.unlock();
      }
    }
    return !timedOut || hasClaimed() || wakeAllEpoch.get() != epoch;
  }


}

/** Padding before a {@link TaskRing}'s idle list: the header and the object before it. */
abstract class TaskRingPadding {
  @SuppressWarnings("unused")
  private int q00; // fills the gap after the header, so the fields start after the padding
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** A {@link TaskRing}'s idle list, between two paddings. */
abstract class TaskRingIdleList extends TaskRingPadding {
  /**
   * The idle workers, oldest announcement first, linked both ways by their {@link TaskRing.Idler}s;
   * guarded by the ring's idle lock.
   */
  TaskRing.Idler idleOldest;

  TaskRing.Idler idleNewest;
}

/** Padding after a {@link TaskRing}'s idle list: the fields every append and poll reads. */
abstract class TaskRingIdleListEnd extends TaskRingIdleList {
  @SuppressWarnings("unused")
  private long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;
}
