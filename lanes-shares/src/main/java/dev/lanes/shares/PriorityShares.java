package dev.lanes.shares;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.LaneGate;
import dev.lanes.TaskOutcome;
import dev.lanes.Ticker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One concurrency (say a database's 10 connections) divided among named partitions in priority
 * order, each with a guaranteed share, as one {@link LaneGate} per partition. Each partition is
 * served by its own lane — its own bounded queue, its own figures — built with the partition's
 * gate; the gates together let at most {@code total} of their tasks run at once.
 *
 * <pre>{@code
 * PriorityShares db = PriorityShares.builder("db", 10)
 *     .partition("checkout", 0.7)    // highest priority first: 7 permits guaranteed
 *     .partition("reports", 0.3)     // 3 guaranteed
 *     .build();
 * Map<String, Lane> lanes = db.lanes(p -> Lane.virtual("db-" + p, 10).queueCapacity(100));
 * lanes.get("checkout").submit(() -> checkout(order));
 * }</pre>
 *
 * <p><b>The rules.</b> At most {@code total} passes are out at once. A partition holding fewer
 * than its guaranteed permits may always take a free one. A partition at or over its guarantee may
 * <em>borrow</em> a free permit only if the permits left free still cover every guaranteed permit
 * missing from the partitions that are not <em>lendable</em>; a partition is lendable once it has
 * been idle — nothing held, reserved or waiting at its gate — for {@code lendAfterIdle}. So a
 * low-priority flood never takes a busy partition's guaranteed permits, and takes everything while
 * the others are gone; borrowed permits come back as their tasks end (nothing is pre-empted). When
 * a permit comes free and workers wait at several gates, it goes to (1) the highest-priority
 * partition below its guarantee with a worker waiting, else (2) the highest-priority partition
 * with a worker waiting that may borrow it.
 *
 * <p><b>Design.</b> A worker of a partition's lane that sees a task queued asks {@link
 * LaneGate#tryEnter}: it gets a pass if a permit is reserved for its partition or a free one is
 * allowed by the rules, else it is recorded as a <em>waiter</em> of its partition, keyed by its
 * {@code ready} (one entry per worker however often it asks), and parks. Whenever a permit may have
 * become usable — a pass exited, a reservation expired, time passed — {@code dispatch} gives free
 * permits to waiting partitions by the rules above: it <em>reserves</em> the permit for the
 * partition, takes its oldest waiter and runs that waiter's {@code ready}; the worker asks again
 * and takes the reservation (any worker of the partition may: they all take the lane's oldest
 * task). A reservation nobody takes within {@code claimTimeout} (its worker found nothing queued
 * any more, or left) is given back, and the partition's other waiters are woken too, so that
 * those with nothing to do stop counting as waiting (a woken worker with a task queued asks again).
 * Time-dependent changes (a partition becoming lendable, a reservation expiring) are noticed by a
 * check that runs every {@code recheckInterval} while any worker waits or any reservation is out,
 * on the JDK's delayed-task thread ({@link CompletableFuture#delayedExecutor}); it is scheduled
 * again only while something waits or is reserved.
 *
 * <p><b>State and locking.</b> Everything — per partition the held, reserved and waiting books,
 * when it was last active, its counts, and the shares' totals — is guarded by one {@link
 * ReentrantLock}, held for a few field updates and a scan of the partitions (there are few). No
 * {@code ready} runs and nothing is scheduled-and-waited under the lock: the {@code ready}s to run
 * are collected and run after it is released. The lock orders everything, so a snapshot
 * ({@link #stats()}) balances exactly: {@code held + reserved + free = total}, {@code granted −
 * exited = held} per partition. A pass given out under the lock happens-before its exit, which
 * takes the lock again.
 *
 * <p><b>Failure model.</b> A pass exited twice counts once (the lane exits each pass once; a
 * second call is ignored). A {@code ready} that throws is reported to the current thread's
 * uncaught-exception handler and the other {@code ready}s still run. A worker that goes away while
 * recorded as a waiter costs at most one reservation for {@code claimTimeout} before it is
 * forgotten. The {@link Ticker} must not throw. Nothing here waits: {@code tryEnter} and {@code
 * exit} take the lock briefly and return.
 */
public final class PriorityShares {

  /**
   * Starts building shares named {@code name} (for messages and figures) of {@code total} permits:
   * at most {@code total} tasks of all its partitions run at once.
   */
  public static Builder builder(String name, int total) {
    return new Builder(name, total);
  }

  private final String name;
  private final int total;
  private final long lendAfterIdleNanos;
  private final long claimTimeoutNanos;
  private final Duration recheckInterval;
  private final Ticker ticker;
  private final Executor recheckLater;
  /** Highest priority first; fixed at build. */
  private final Partition[] partitions;
  private final Map<String, Partition> byName;

  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock.
  /** Passes out plus reservations, over every partition. */
  private int inUse;
  private long guaranteeBreaches;
  private boolean recheckScheduled;

  private PriorityShares(Builder b) {
    this.name = b.name;
    this.total = b.total;
    this.lendAfterIdleNanos = b.lendAfterIdle.toNanos();
    this.claimTimeoutNanos = b.claimTimeout.toNanos();
    this.ticker = b.ticker;
    long nanos = Math.min(claimTimeoutNanos, lendAfterIdleNanos == 0 ? Long.MAX_VALUE
        : lendAfterIdleNanos) / 4;
    this.recheckInterval = Duration.ofNanos(Math.clamp(nanos,
        TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(25)));
    this.recheckLater = CompletableFuture.delayedExecutor(
        recheckInterval.toNanos(), TimeUnit.NANOSECONDS, Runnable::run);
    long start = ticker.read();
    this.partitions = new Partition[b.names.size()];
    Map<String, Partition> names = new LinkedHashMap<>();
    for (int i = 0; i < partitions.length; i++) {
      Partition p = new Partition(b.names.get(i), i, b.guaranteed.get(i));
      // Never active so far: lendable at once.
      p.lastActive = start - lendAfterIdleNanos;
      partitions[i] = p;
      names.put(p.name, p);
    }
    this.byName = Collections.unmodifiableMap(names);
  }

  /** {@return the shares' name} */
  public String name() {
    return name;
  }

  /** {@return the most tasks of all partitions running at once} */
  public int total() {
    return total;
  }

  /** {@return the partitions' names, highest priority first} */
  public List<String> partitions() {
    return List.copyOf(byName.keySet());
  }

  /**
   * {@return the permits {@code partition} may always have while it is active: floor(share ×
   * total), at least 1}
   *
   * @throws IllegalArgumentException if there is no such partition
   */
  public int guaranteed(String partition) {
    return partition(partition).guaranteed;
  }

  /** {@return how long a partition must be idle before others may borrow its guaranteed permits} */
  public Duration lendAfterIdle() {
    return Duration.ofNanos(lendAfterIdleNanos);
  }

  /** {@return how long a permit reserved for a woken worker waits for it before it is given back} */
  public Duration claimTimeout() {
    return Duration.ofNanos(claimTimeoutNanos);
  }

  /**
   * {@return how often reservations and idleness are re-checked while any worker waits: a quarter
   * of the shorter of {@code claimTimeout} and {@code lendAfterIdle}, between 1 and 25 ms}
   */
  public Duration recheckInterval() {
    return recheckInterval;
  }

  /**
   * The gate of {@code partition}: give it to the partition's lane ({@code LaneBuilder.gate}).
   * Each call returns the same gate. One lane per partition is the intended use; the gate counts
   * every worker that asks it, whichever lane it serves.
   *
   * @throws IllegalArgumentException if there is no such partition
   */
  public LaneGate gate(String partition) {
    return partition(partition).gate;
  }

  /**
   * Builds one lane per partition, highest priority first: {@code template} gets the partition's
   * name and returns the lane's builder (any kind, any settings but a gate), which is given the
   * partition's gate and built. A platform lane's threads beyond what its partition may hold wait
   * parked at the gate; so do a virtual lane's. If one build fails, the lanes already built are
   * shut down now and the failure is thrown.
   *
   * @return the lanes by partition name, highest priority first (unmodifiable)
   * @throws IllegalStateException if a template's builder already has a gate
   */
  public Map<String, Lane> lanes(Function<String, LaneBuilder> template) {
    Objects.requireNonNull(template, "template");
    Map<String, Lane> lanes = new LinkedHashMap<>();
    try {
      for (Partition p : partitions) {
        LaneBuilder b = Objects.requireNonNull(template.apply(p.name),
            () -> "priority shares \"" + name + "\": the template returned no builder for"
                + " partition \"" + p.name + "\"");
        lanes.put(p.name, b.gate(p.gate).build());
      }
    } catch (RuntimeException | Error e) {
      for (Lane built : lanes.values()) {
        built.shutdownNow();
      }
      throw e;
    }
    return Collections.unmodifiableMap(lanes);
  }

  private Partition partition(String partition) {
    Partition p = byName.get(partition);
    if (p == null) {
      throw new IllegalArgumentException("priority shares \"" + name + "\": no partition \""
          + partition + "\"; the partitions are " + byName.keySet());
    }
    return p;
  }

  // ---------------------------------------------------------------------------------------------
  // The gate

  private LaneGate.Pass enter(Partition p, Runnable ready) {
    Objects.requireNonNull(ready, "ready");
    List<Runnable> wake = null;
    LaneGate.Pass pass = null;
    lock.lock();
    try {
      long now = ticker.read();
      p.waiters.remove(ready); // asking: not a waiter while it asks
      p.lastActive = now;
      if (p.reservations.isEmpty()) {
        // Time may have made a waiter eligible since the last dispatch: serve the queue first.
        wake = dispatchLocked(now, null);
      }
      if (!p.reservations.isEmpty()) {
        p.reservations.pollFirst();
        inUse--; // the reservation becomes the pass
        pass = handOutLocked(p);
      } else if (inUse < total && (belowGuaranteeLocked(p) || mayBorrowLocked(p, now))) {
        countBreachLocked(p, now);
        pass = handOutLocked(p);
      } else {
        p.waiters.add(ready);
        scheduleRecheckLocked();
      }
    } finally {
      lock.unlock();
    }
    run(wake);
    return pass;
  }

  /** Under lock: one more pass out for {@code p} (its permit already counted or free). */
  private LaneGate.Pass handOutLocked(Partition p) {
    inUse++;
    p.held++;
    p.granted++;
    if (p.held > p.guaranteed) {
      p.borrowedTotal++;
    }
    return new SharePass(p);
  }

  private void exit(SharePass pass) {
    List<Runnable> wake;
    lock.lock();
    try {
      if (pass.exited) {
        return;
      }
      pass.exited = true;
      Partition p = pass.partition;
      long now = ticker.read();
      p.held--;
      p.exited++;
      inUse--;
      p.lastActive = now; // active until now; idle from now if nothing else is held or waits
      Partition owed = null;
      for (Partition q : partitions) {
        if (!q.waiters.isEmpty() && belowGuaranteeLocked(q)) {
          owed = q;
          break;
        }
      }
      Partition[] first = new Partition[1];
      wake = dispatchLocked(now, first);
      if (owed != null) {
        owed.releasesOwed++;
        if (first[0] == owed) {
          owed.releasesOwedGranted++;
        }
      }
    } finally {
      lock.unlock();
    }
    run(wake);
  }

  /**
   * Under lock: gives free permits to waiting partitions by the rules, reserving each and taking
   * one waiter's {@code ready} to run. {@code first[0]}, if given, is set to the first partition
   * served. Returns the {@code ready}s to run once the lock is released, or null.
   */
  private List<Runnable> dispatchLocked(long now, Partition[] first) {
    List<Runnable> wake = null;
    while (inUse < total) {
      Partition pick = null;
      for (Partition q : partitions) { // rule 1: below its guarantee, highest priority first
        if (!q.waiters.isEmpty() && belowGuaranteeLocked(q)) {
          pick = q;
          break;
        }
      }
      if (pick == null) {
        for (Partition q : partitions) { // rule 2: may borrow, highest priority first
          if (!q.waiters.isEmpty() && mayBorrowLocked(q, now)) {
            pick = q;
            break;
          }
        }
      }
      if (pick == null) {
        break;
      }
      countBreachLocked(pick, now);
      if (first != null && first[0] == null) {
        first[0] = pick;
      }
      inUse++;
      pick.reservations.addLast(now);
      Iterator<Runnable> oldest = pick.waiters.iterator();
      Runnable ready = oldest.next();
      oldest.remove();
      if (wake == null) {
        wake = new ArrayList<>(2);
      }
      wake.add(ready);
      pick.lastActive = now;
    }
    if (wake != null) {
      scheduleRecheckLocked(); // the reservations must be claimed or given back
    }
    return wake;
  }

  private static boolean belowGuaranteeLocked(Partition p) {
    return p.held + p.reservations.size() < p.guaranteed;
  }

  /**
   * Under lock: whether {@code p} may take one free permit beyond its guarantee: the permits free
   * after it must cover the guaranteed permits missing from every partition that is not lendable.
   */
  private boolean mayBorrowLocked(Partition p, long now) {
    return total - inUse - 1 >= protectedShortfallLocked(p, now);
  }

  private int protectedShortfallLocked(Partition except, long now) {
    int shortfall = 0;
    for (Partition q : partitions) {
      if (q != except && !lendableLocked(q, now)) {
        shortfall += Math.max(0, q.guaranteed - q.held - q.reservations.size());
      }
    }
    return shortfall;
  }

  private boolean lendableLocked(Partition q, long now) {
    return q.held == 0 && q.reservations.isEmpty() && q.waiters.isEmpty()
        && now - q.lastActive >= lendAfterIdleNanos;
  }

  /**
   * Under lock, before a permit goes to {@code p}: if that permit takes {@code p} beyond its
   * guarantee, checks — apart from the decision, partition by partition — that no partition that is
   * not lendable and still misses guaranteed permits is left without enough free ones. Counts a
   * breach otherwise (the rules say never).
   */
  private void countBreachLocked(Partition p, long now) {
    if (p.held + p.reservations.size() < p.guaranteed) {
      return; // not a borrow
    }
    int freeAfter = total - inUse - 1;
    int missing = 0;
    for (Partition q : partitions) {
      if (q == p) {
        continue;
      }
      boolean active = q.held > 0 || !q.reservations.isEmpty() || !q.waiters.isEmpty()
          || now - q.lastActive < lendAfterIdleNanos;
      if (active && q.held + q.reservations.size() < q.guaranteed) {
        missing += q.guaranteed - q.held - q.reservations.size();
      }
    }
    if (missing > freeAfter) {
      guaranteeBreaches++;
    }
  }

  /** Under lock: gives back reservations older than the claim timeout; wakes their waiters. */
  private List<Runnable> expireLocked(long now, List<Runnable> wake) {
    for (Partition p : partitions) {
      boolean expired = false;
      while (!p.reservations.isEmpty() && now - p.reservations.peekFirst() >= claimTimeoutNanos) {
        p.reservations.pollFirst();
        p.reservationsExpired++;
        inUse--;
        expired = true;
      }
      if (expired) {
        // Its worker did not come: the others may have nothing queued either. Those that do ask
        // again; the rest stop counting as waiting (and stop keeping the partition active).
        if (wake == null) {
          wake = new ArrayList<>(p.waiters.size());
        }
        wake.addAll(p.waiters);
        p.waiters.clear();
        p.lastActive = now;
      }
    }
    return wake;
  }

  private void scheduleRecheckLocked() {
    if (!recheckScheduled) {
      recheckScheduled = true;
      recheckLater.execute(this::recheck);
    }
  }

  /** Runs every recheck interval while anything waits or is reserved. */
  private void recheck() {
    List<Runnable> wake = null;
    lock.lock();
    try {
      recheckScheduled = false;
      long now = ticker.read();
      wake = expireLocked(now, null);
      List<Runnable> more = dispatchLocked(now, null);
      if (more != null) {
        if (wake == null) {
          wake = more;
        } else {
          wake.addAll(more);
        }
      }
      for (Partition p : partitions) {
        if (!p.waiters.isEmpty() || !p.reservations.isEmpty()) {
          scheduleRecheckLocked();
          break;
        }
      }
    } finally {
      lock.unlock();
    }
    run(wake);
  }

  private static void run(List<Runnable> readies) {
    if (readies == null) {
      return;
    }
    for (Runnable r : readies) {
      try {
        r.run();
      } catch (RuntimeException e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Figures

  /** {@return a snapshot of every partition's books, read under the lock (they balance)} */
  public SharesStats stats() {
    lock.lock();
    try {
      long now = ticker.read();
      List<PartitionStats> list = new ArrayList<>(partitions.length);
      int held = 0;
      int reserved = 0;
      for (Partition p : partitions) {
        held += p.held;
        reserved += p.reservations.size();
        list.add(new PartitionStats(p.name, p.priority, p.guaranteed, p.held,
            Math.max(0, p.held - p.guaranteed), p.reservations.size(), p.waiters.size(),
            lendableLocked(p, now), p.granted, p.exited, p.borrowedTotal, p.releasesOwed,
            p.releasesOwedGranted, p.reservationsExpired));
      }
      return new SharesStats(name, total, held, reserved, total - held - reserved,
          guaranteeBreaches, list);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("PriorityShares[").append(name).append(": total ")
        .append(total);
    lock.lock();
    try {
      for (Partition p : partitions) {
        s.append(", ").append(p.name).append(' ').append(p.held).append('/').append(p.guaranteed)
            .append(" held, ").append(p.waiters.size()).append(" waiting");
      }
    } finally {
      lock.unlock();
    }
    return s.append(']').toString();
  }

  // ---------------------------------------------------------------------------------------------

  /** One partition: its settings and books (books guarded by the shares' lock). */
  private final class Partition {
    final String name;
    final int priority;
    final int guaranteed;
    final LaneGate gate;
    /** Workers told "not now", oldest first, by their {@code ready} (identity). */
    final LinkedHashSet<Runnable> waiters = new LinkedHashSet<>();
    /** When each unclaimed reservation was made (ticker), oldest first. */
    final ArrayDeque<Long> reservations = new ArrayDeque<>();
    int held;
    /** Ticker reading when last seen active (asking, holding, reserved or waiting). */
    long lastActive;
    long granted;
    long exited;
    long borrowedTotal;
    long releasesOwed;
    long releasesOwedGranted;
    long reservationsExpired;

    Partition(String name, int priority, int guaranteed) {
      this.name = name;
      this.priority = priority;
      this.guaranteed = guaranteed;
      this.gate = new LaneGate() {
        @Override
        public Pass tryEnter(Runnable ready) {
          return enter(Partition.this, ready);
        }

        @Override
        public String toString() {
          return "gate of partition \"" + Partition.this.name + "\" of priority shares \""
              + PriorityShares.this.name + "\"";
        }
      };
    }
  }

  /** A pass of one partition, exited once by its lane. */
  private final class SharePass implements LaneGate.Pass {
    final Partition partition;
    boolean exited; // guarded by lock

    SharePass(Partition partition) {
      this.partition = partition;
    }

    @Override
    public void exit(TaskOutcome outcome) {
      PriorityShares.this.exit(this);
    }

    @Override
    public String toString() {
      return "pass of partition \"" + partition.name + "\"";
    }
  }

  /**
   * Settings of priority shares: partitions in priority order, each checked when given; the
   * combination in {@link #build()}. Messages name the shares, the setting, the bound and the value.
   */
  public static final class Builder {
    /** Largest total. */
    public static final int MAX_TOTAL = 1_000_000;
    /** Longest {@code lendAfterIdle}. */
    public static final Duration MAX_LEND_AFTER_IDLE = Duration.ofHours(1);

    private final String name;
    private final int total;
    private final List<String> names = new ArrayList<>();
    private final List<Integer> guaranteed = new ArrayList<>();
    private double shareSum;
    private Duration lendAfterIdle = Duration.ofMillis(100);
    private Duration claimTimeout = Duration.ofMillis(50);
    private Ticker ticker = Ticker.system();
    private final java.util.Set<String> given = new java.util.HashSet<>();

    private Builder(String name, int total) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("priority shares name must not be blank, was "
            + (name == null ? "null" : "\"" + name + "\""));
      }
      this.name = name.strip();
      if (total < 1 || total > MAX_TOTAL) {
        throw error("total must be between 1 and " + MAX_TOTAL + ", was " + total);
      }
      this.total = total;
    }

    /**
     * Adds a partition, lower in priority than every partition added before it, with a share of
     * the total: it is guaranteed floor(share × total) permits, at least 1, while it is active.
     * Shares must sum to at most 1; what they leave over anyone may borrow.
     *
     * @param partition its name, unique in these shares
     * @param share more than 0, at most 1
     */
    public Builder partition(String partition, double share) {
      if (partition == null || partition.isBlank()) {
        throw error("partition name must not be blank, was "
            + (partition == null ? "null" : "\"" + partition + "\""));
      }
      String p = partition.strip();
      if (names.contains(p)) {
        throw error("partition \"" + p + "\" was already added (priority " + names.indexOf(p)
            + ")");
      }
      if (!(share > 0 && share <= 1)) {
        throw error("partition \"" + p + "\": share must be > 0 and ≤ 1, was " + share);
      }
      if (shareSum + share > 1 + 1e-9) {
        throw error("partition \"" + p + "\": shares must sum to ≤ 1, would sum to "
            + round(shareSum + share) + " (" + round(shareSum) + " before, plus " + share + ")");
      }
      shareSum += share;
      names.add(p);
      guaranteed.add(Math.max(1, (int) Math.floor(share * total + 1e-9)));
      return this;
    }

    /**
     * How long a partition must have been idle (nothing held, reserved or waiting at its gate)
     * before others may borrow its guaranteed permits; default 100 ms, 0 to 1 h. A partition that
     * was never active is lendable at once.
     */
    public Builder lendAfterIdle(Duration lendAfterIdle) {
      Objects.requireNonNull(lendAfterIdle, "lendAfterIdle");
      if (lendAfterIdle.isNegative() || lendAfterIdle.compareTo(MAX_LEND_AFTER_IDLE) > 0) {
        throw error("lendAfterIdle must be between 0 and " + MAX_LEND_AFTER_IDLE + ", was "
            + lendAfterIdle);
      }
      once("lendAfterIdle", this.lendAfterIdle, lendAfterIdle);
      this.lendAfterIdle = lendAfterIdle;
      return this;
    }

    /**
     * How long a permit reserved for a woken worker waits for it before it is given back (the
     * worker found nothing queued, or left); default 50 ms, 1 ms to 1 min.
     */
    public Builder claimTimeout(Duration claimTimeout) {
      Objects.requireNonNull(claimTimeout, "claimTimeout");
      if (claimTimeout.compareTo(Duration.ofMillis(1)) < 0
          || claimTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
        throw error("claimTimeout must be between 1 ms and 1 min, was " + claimTimeout);
      }
      once("claimTimeout", this.claimTimeout, claimTimeout);
      this.claimTimeout = claimTimeout;
      return this;
    }

    /** The clock of idleness and reservations (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      Objects.requireNonNull(ticker, "ticker");
      once("ticker", this.ticker, ticker);
      this.ticker = ticker;
      return this;
    }

    /**
     * Checks the partitions together and builds.
     *
     * @throws IllegalArgumentException if no partition was added, or the guaranteed permits
     *     (floor(share × total), at least 1 each) sum to more than the total
     */
    public PriorityShares build() {
      if (names.isEmpty()) {
        throw error("at least one partition is required (partition(name, share))");
      }
      int sum = guaranteed.stream().mapToInt(Integer::intValue).sum();
      if (sum > total) {
        throw error("the guaranteed permits (floor(share × total), at least 1 each) must sum to"
            + " ≤ total " + total + ", were " + sum + " " + guaranteedByName()
            + "; give a larger total or fewer partitions");
      }
      return new PriorityShares(this);
    }

    private Map<String, Integer> guaranteedByName() {
      Map<String, Integer> m = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        m.put(names.get(i), guaranteed.get(i));
      }
      return m;
    }

    private void once(String setting, Object before, Object value) {
      if (!given.add(setting)) {
        throw new IllegalStateException("priority shares \"" + name + "\": " + setting
            + " was already set to " + before + "; cannot set it to " + value);
      }
    }

    private static String round(double d) {
      return String.valueOf(Math.round(d * 1e6) / 1e6);
    }

    private IllegalArgumentException error(String message) {
      return new IllegalArgumentException("priority shares \"" + name + "\": " + message);
    }
  }
}
