package dev.lanes;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One lane's health: the saturation state machine, the lane's side of starvation-deadlock
 * detection ({@link Deadlocks} finds them), and the cures of the deadlock policies.
 *
 * <p><b>Concurrency design.</b> A lane's state lives under {@code lock}. It is evaluated by {@link
 * #tick(long)}, which the process-wide {@code lanes-health} daemon thread calls for every live
 * lane that is not resting (see "Resting") every {@value #TICK_MILLIS} ms (and tests may call through {@code checkHealth()} with a
 * fake clock), after a deadlock analysis of every lane. A worker about to block on a lanes future
 * triggers an analysis at once ({@link Deadlocks#workerWaits}), since that is the moment a cycle
 * forms. Nothing here runs on the task hot path. No user code runs under {@code lock}: listeners
 * are called after it is released, in transition order per lane (transitions are queued under the
 * lock and delivered by whoever made them, serialised by {@code deliveryLock}), and the cures
 * (which complete futures, so run dependent stages) are handed back to the analysis, which runs
 * them once every lock is released.
 *
 * <p><b>The health thread</b> holds lanes weakly: a lane nobody references and that has no live
 * thread can be collected without being closed. The thread starts with the first lane, ends when
 * no lane is left (and starts again with the next), has no context class loader and inherits no
 * thread-locals (so it pins no web application's loader), and survives its own failures: a tick
 * that fails on one lane (its user-supplied clock throws, say) is contained there, the other lanes
 * are judged as usual, and the failure is logged once per lane per {@value
 * #FAILURE_LOG_MINUTES} minutes at WARNING with its cause (a failing logger is ignored); meanwhile
 * the failing lane's state still follows its refusals, with no clock ({@link #tickFailed}). No
 * arithmetic here can overflow: a setting's nanoseconds are read saturated ({@link #nanos}), times
 * are compared only by their differences (as {@link System#nanoTime} requires), and the samples of
 * a window are at most {@value #SAMPLES_PER_WINDOW} (see {@link #tick}).
 *
 * <p><b>Deadlock states.</b> DEADLOCKED is entered as soon as {@link Deadlocks} proves a cycle
 * (through JDK futures: once the proof held for the detection period) and left on the first
 * analysis that no longer finds it (the health thread's next tick, a worker's next wait, or
 * {@code checkHealth()}), with no exit hysteresis, for the state the load gives then. A suspected
 * deadlock (unproven, see {@link Deadlocks}) is never DEADLOCKED: once it held for the detection
 * period the lane is at least SATURATED and one event says "suspected starvation deadlock" (with
 * {@code suspectedDeadlock = 1} in its figures); no policy acts on it; it ends silently when the
 * evidence goes.
 *
 * <p>Saturation is judged from window differences of the lane's cumulative timing sums (tasks
 * ended in the window) and from the age of the oldest queued task, so a lane whose queue does not
 * move at all still shows as waiting.
 *
 * <p><b>Resting (issue #27: an idle lane costs nothing).</b> A lane whose judgement cannot change
 * until work comes — OK and no other state in view, nothing queued or running, nothing ended or
 * refused in the window, every started task's end drained, no event or drop line owed, no
 * deadlock proof or suspicion under way — is put to rest by the health thread ({@code resting}, a
 * volatile flag): the thread then skips its tick (it only reaps its dead workers), and when every
 * lane rests it parks for {@value #RESTING_TICK_MILLIS} ms at a time instead of {@value
 * #TICK_MILLIS}. The first append after rest wakes the lane: {@link #noteWork} (called after every
 * append, one volatile read of a flag that only the health thread and that first waker write)
 * clears the flag with a CAS and, if the thread is in its long park, unparks it. Two Dekker pairs
 * make sure no wake is missed: the health thread sets {@code resting} and then re-reads the ring's
 * appends (and the refusals, starts and running tasks); a submitter makes its append (a CAS on
 * the ring's tail or the overflow's count, a full fence) and then reads {@code resting}. One of
 * the two sees the other, so either the lane is not put to rest or the submitter wakes it. Likewise
 * the thread sets {@code sleepingLong} and then re-reads every lane's flag and the count of
 * registrations, and a waker clears its flag (a registration counts itself) and then reads {@code
 * sleepingLong}. Both pairs live in small classes ({@link Rest}, {@link LongPark}) that jcstress
 * races as they are ({@code RestWakeStress}). While a lane
 * rests its samples are collapsed to the last (all had the same counts); on its first tick after
 * waking that sample is re-stamped one tick before now, which gives the window, the judgement and
 * the hysteresis exactly what a lane ticked all along would have (its idle samples all had those
 * counts too). What rest delays: a worker thread that dies before running lanes' code (a custom
 * factory's wrapper) is reaped at the next round, long or short, as before; nothing else happens
 * to a lane with no task.
 */
final class HealthMonitor {
  static final long TICK_MILLIS = 100;
  /** The health thread's park while every lane rests (see "Resting"). */
  static final long RESTING_TICK_MILLIS = 5_000;
  /**
   * Most samples kept within a saturation window (see {@link #tick}); the window holds these, the
   * newest and at most one from before it.
   */
  static final int SAMPLES_PER_WINDOW = 1000;
  /** A lane whose ticks keep failing logs it once per this many minutes at most. */
  static final long FAILURE_LOG_MINUTES = 10;

  /** The health thread, for wakers (see "Resting"); null when none runs. */
  private static volatile Thread tickerThread;
  /** Whether the health thread parks long, every lane resting (see "Resting"). */
  private static final LongPark LONG_PARK = new LongPark();
  /** Lanes ever registered; written under TICKER_LOCK, read by the thread (see "Resting"). */
  private static volatile long registrations;
  private static final System.Logger LOG = System.getLogger("dev.lanes");
  /** Every lane not yet terminated, weakly (see the class comment). Guarded by TICKER_LOCK. */
  private static final Set<WeakReference<HealthMonitor>> LANES = new HashSet<>();
  /** One deadlock analysis, and the telling of its findings, at a time. */
  private static final ReentrantLock DEADLOCK_LOCK = new ReentrantLock();
  private static final ReentrantLock TICKER_LOCK = new ReentrantLock();
  /** The health thread, or null when none runs. Guarded by TICKER_LOCK. */
  private static Thread ticker;

  private final LaneContext ctx;
  private final LaneBooks books;
  private final WorkerPool pool;
  /** This lane as the deadlock analysis reads it. */
  private final Deadlocks.Watched watched;
  private final WeakReference<HealthMonitor> registration;
  private final CopyOnWriteArrayList<Consumer<? super HealthEvent>> listeners =
      new CopyOnWriteArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final ArrayDeque<HealthEvent> pending = new ArrayDeque<>();
  /**
   * Put to rest by the health thread, cleared by the first append after (see "Resting"); read by
   * every submitter after its append, written only at those two moments.
   */
  private final Rest rest = new Rest();
  /** The samples were collapsed when the lane was put to rest; guarded by lock. */
  private boolean collapsed;
  /**
   * When this lane's failing tick was last logged, on {@link System#nanoTime} (the lane's own clock
   * may be what fails); health thread only.
   */
  private long failureLoggedAt;
  private boolean failureLogged;
  /** Ticks that failed since the last failure line; health thread only. */
  private long failuresUnlogged;

  /** Ticks ever (for tests); guarded by lock. */
  private long ticks;

  // all below guarded by lock
  private final ArrayDeque<long[]> samples = new ArrayDeque<>(); // {time, count, waitSum, runSum, rejected}
  private volatile LaneHealth state = LaneHealth.OK;
  private long stateSince;
  private LaneHealth candidate = LaneHealth.OK;
  private long candidateSince;
  private long saturatedAccum;
  /** The deadlock this lane is in now, as last found; null when none. */
  private String deadlockDiagnostic;
  private Map<String, Double> deadlockFigures;
  /** Since when a cycle proven only from futures' waiters has held, or -1. */
  private long stackProofSince = -1;
  /** The suspected (unproven) deadlock reported now; null when none (see Deadlocks). */
  private String suspicionDiagnostic;
  private Map<String, Double> suspicionFigures;
  /** Since when the suspicion with {@code suspicionSignature} has held, or -1. */
  private long suspicionSince = -1;
  private long suspicionSignature;

  HealthMonitor(LaneContext ctx, LaneBooks books, WorkerPool pool) {
    this.ctx = ctx;
    this.books = books;
    this.pool = pool;
    this.watched = new WatchedLane(ctx, pool, books);
    this.registration = new WeakReference<>(this);
    long now = ctx.ticker.read();
    this.stateSince = now;
    this.candidateSince = now;
    samples.addLast(new long[] {now, 0, 0, 0, 0});
  }

  // ------------------------------------------------------------------ process-wide ticker

  void register() {
    TICKER_LOCK.lock();
    try {
      LANES.add(registration);
      if (ticker == null) {
        Thread t =
            Thread.ofPlatform()
                .name("lanes-health")
                .daemon(true)
                .inheritInheritableThreadLocals(false)
                .unstarted(HealthMonitor::tickForever);
        t.setContextClassLoader(null);
        ticker = t;
        tickerThread = t;
        t.start();
      }
      registrations++; // then read sleepingLong (the Dekker pair with the thread's long park)
      if (LONG_PARK.sleepingLong) {
        LockSupport.unpark(ticker); // a new lane is ticked at once, however long the thread parks
      }
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  /**
   * The lane terminated and leaves the health thread: it writes the drop summary it still owes
   * (no tick will), so each drop is in exactly one line ({@link DropLog#laneLeft}).
   */
  void unregister() {
    TICKER_LOCK.lock();
    try {
      LANES.remove(registration);
    } finally {
      TICKER_LOCK.unlock();
    }
    try {
      books.drops.laneLeft(ctx.ticker.read());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "lane \"" + ctx.name + "\": writing the last drop summary"
          + " failed: " + e);
    }
  }

  /** The registered lanes that are still reachable (strong references, for one analysis). */
  static List<HealthMonitor> registeredLanes() {
    TICKER_LOCK.lock();
    try {
      List<HealthMonitor> out = new ArrayList<>(LANES.size());
      for (var it = LANES.iterator(); it.hasNext(); ) {
        HealthMonitor l = it.next().get();
        if (l == null) {
          it.remove();
        } else {
          out.add(l);
        }
      }
      return out;
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  /**
   * A worker is about to block with no timeout on {@code future}: if the task is queued in a lane
   * with no free capacity, check every lane for a deadlock at once.
   */
  static void workerBlocks(LaneFuture<?> future) {
    if (!future.accepted || future.lane() == null || future.taskState() != LaneFuture.QUEUED
        || !future.lane().noFreeCapacity()) {
      return; // the awaited task can still start: no cycle through it
    }
    checkDeadlocks(registeredLanes());
  }

  /**
   * Analyses {@code lanes} ({@link Deadlocks}), tells each lane its finding, then runs the cures
   * outside all locks.
   */
  static void checkDeadlocks(List<HealthMonitor> lanes) {
    List<Runnable> cures = new ArrayList<>();
    DEADLOCK_LOCK.lock();
    try {
      List<Deadlocks.Watched> watched = new ArrayList<>(lanes.size());
      for (HealthMonitor l : lanes) {
        watched.add(l.watched);
      }
      Deadlocks.Analysis a = Deadlocks.analyse(watched);
      Deadlocks.Finding f = a.proven();
      for (HealthMonitor l : lanes) {
        Deadlocks.Watched w = l.watched;
        Deadlocks.Suspicion s = a.suspected().get(w);
        if (f != null && f.lanes().contains(w)) {
          l.deadlocked(f, Deadlocks.describe(f, w), Deadlocks.figures(f, w), cures);
        } else if (s != null) {
          l.suspected(s.signature(), Deadlocks.describe(s), Deadlocks.figures(s), cures);
        } else {
          l.notDeadlocked(cures); // runs after the lock, like a cure: it delivers events
        }
      }
    } finally {
      DEADLOCK_LOCK.unlock();
    }
    for (Runnable cure : cures) {
      cure.run();
    }
  }

  private static void tickForever() {
    boolean allResting = false;
    for (; ; ) {
      LockSupport.parkNanos(
          TimeUnit.MILLISECONDS.toNanos(allResting ? RESTING_TICK_MILLIS : TICK_MILLIS));
      LONG_PARK.wokeUp();
      List<HealthMonitor> lanes;
      long registered;
      TICKER_LOCK.lock();
      try {
        registered = registrations;
        lanes = registeredLanes();
        if (lanes.isEmpty()) {
          ticker = null; // a lane registered from now on starts a new thread
          tickerThread = null;
          return;
        }
      } finally {
        TICKER_LOCK.unlock();
      }
      List<HealthMonitor> awake = new ArrayList<>();
      for (HealthMonitor l : lanes) {
        if (!l.rest.resting()) {
          awake.add(l);
          continue;
        }
        try {
          l.pool.reapDeadWorkers(); // all a resting lane needs (see "Resting")
        } catch (Throwable e) {
          l.tickFailed(e);
        }
      }
      if (!awake.isEmpty()) {
        try {
          checkDeadlocks(awake); // a resting lane has no task, so it is in no cycle
        } catch (Throwable e) {
          analysisFailed(e);
        }
      }
      for (HealthMonitor l : awake) {
        try {
          l.pool.reapDeadWorkers();
          long now = l.ctx.ticker.read();
          l.tick(now);
          l.books.drops.flush(now);
          l.tryToRest();
        } catch (Throwable e) {
          l.tickFailed(e); // contained: the next lane is judged as usual
        }
      }
      allResting = mayParkLong(lanes, registered);
      lanes = null; // hold no lane while parked
      awake = null;
    }
  }

  /** Every lane rests, and still does once the thread said it parks long (see "Resting"). */
  private static boolean mayParkLong(List<HealthMonitor> lanes, long registered) {
    return everyLaneRests(lanes)
        && LONG_PARK.decide(() -> everyLaneRests(lanes) && registrations == registered);
  }

  private static boolean everyLaneRests(List<HealthMonitor> lanes) {
    for (HealthMonitor l : lanes) {
      if (!l.rest.resting()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Submitter side, after every append (and every refusal): wakes the lane if it rests. One
   * volatile read when it does not (see "Resting").
   */
  void noteWork() {
    if (rest.wake() && LONG_PARK.sleepingLong) {
      Thread t = tickerThread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  /** Ticks so far, whoever made them (for tests). */
  long ticks() {
    lock.lock();
    try {
      return ticks;
    } finally {
      lock.unlock();
    }
  }

  /** Samples held now (for tests). */
  int samplesHeld() {
    lock.lock();
    try {
      return samples.size();
    } finally {
      lock.unlock();
    }
  }

  /** True while the lane rests (see "Resting"); for tests. */
  boolean resting() {
    return rest.resting();
  }

  /**
   * Health thread, after this lane's tick: puts the lane to rest if nothing about it can change
   * until work comes (see "Resting"). True if it rests now.
   */
  boolean tryToRest() {
    lock.lock();
    try {
      if (state != LaneHealth.OK || candidate != LaneHealth.OK || deadlockDiagnostic != null
          || suspicionSince >= 0 || stackProofSince >= 0 || !pending.isEmpty()) {
        return false;
      }
      long[] first = samples.peekFirst();
      long[] last = samples.peekLast();
      if (first[1] != last[1] || first[4] != last[4]) {
        return false; // tasks ended or were refused in the window: it may still move
      }
      long appended = ctx.ring.appended();
      long started = ctx.timings.started();
      if (!quiet(appended, started, last)) {
        return false;
      }
      if (!rest.tryRest(() -> quiet(appended, started, last))) {
        return false;
      }
      while (samples.size() > 1) {
        samples.removeFirst(); // every sample has the last one's counts
      }
      collapsed = true;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Nothing appended or started since the reads given, nothing queued or running, every start
   * drained into {@code last}, no refusal after it, no drop line owed. Call under lock.
   */
  private boolean quiet(long appended, long started, long[] last) {
    return ctx.ring.appended() == appended
        && ctx.timings.started() == started
        && started == last[1]
        && !ctx.ring.hasClaimed()
        && books.running() == 0
        && books.rejectedCount() == last[4]
        && !books.drops.owesLine();
  }

  /**
   * A lane's rest flag: the health thread's side and the waker's side of the first Dekker pair of
   * "Resting", apart so that jcstress races them as they are ({@code RestWakeStress}). The thread
   * sets the flag and then re-reads what a submitter changes before it calls {@link #wake} (its
   * append, a CAS, is a full fence); a submitter reads the flag after that change. One of the two
   * sees the other: the lane does not rest, or the submitter wakes it.
   */
  static final class Rest {
    private static final java.lang.invoke.VarHandle RESTING;

    static {
      try {
        RESTING = java.lang.invoke.MethodHandles.lookup()
            .findVarHandle(Rest.class, "resting", boolean.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private volatile boolean resting;

    /**
     * Health thread (one at a time): rests the lane, then re-checks {@code stillQuiet} and takes
     * the rest back if it no longer holds. True if the lane rests now.
     */
    boolean tryRest(java.util.function.BooleanSupplier stillQuiet) {
      resting = true; // then re-read (the waker reads this after its change)
      if (!stillQuiet.getAsBoolean()) {
        resting = false;
        return false;
      }
      return true;
    }

    /** Waker, after its change: true if this call ended the rest (one volatile read if none). */
    boolean wake() {
      return resting && RESTING.compareAndSet(this, true, false);
    }

    boolean resting() {
      return resting;
    }
  }

  /**
   * Whether the health thread parks long: the second Dekker pair of "Resting", apart for {@code
   * RestWakeStress}. The thread sets {@code sleepingLong} and then re-reads every lane's rest flag
   * (and the count of registrations); a waker ends a lane's rest and then reads {@code
   * sleepingLong}, and unparks the thread if it is set. So the thread never parks long while a
   * lane it saw resting was woken without it being told.
   */
  static final class LongPark {
    volatile boolean sleepingLong;

    /**
     * Health thread, every lane seen resting: true if it may park long, {@code stillAllResting}
     * re-read after {@code sleepingLong} was set.
     */
    boolean decide(java.util.function.BooleanSupplier stillAllResting) {
      sleepingLong = true; // then re-read every flag (a waker reads this after its wake)
      boolean parkLong = stillAllResting.getAsBoolean();
      sleepingLong = parkLong;
      return parkLong;
    }

    /** Health thread, after any park. */
    void wokeUp() {
      sleepingLong = false;
    }
  }

  /** When a failed deadlock analysis was last logged (System.nanoTime); health thread only. */
  private static long analysisFailureLoggedAt;
  private static boolean analysisFailureLogged;

  private static void analysisFailed(Throwable e) {
    long now = System.nanoTime();
    if (analysisFailureLogged
        && now - analysisFailureLoggedAt < TimeUnit.MINUTES.toNanos(FAILURE_LOG_MINUTES)) {
      return;
    }
    analysisFailureLogged = true;
    analysisFailureLoggedAt = now;
    logQuietly("lanes-health: the deadlock analysis failed (" + e + "); logged once per "
        + FAILURE_LOG_MINUTES + " min at most", e);
  }

  /**
   * Health thread: this lane's tick failed with {@code e}. Logs it (the first time, then once per
   * {@value #FAILURE_LOG_MINUTES} minutes at most, with how many failed meanwhile), then lets the
   * state follow the lane's refusals, which needs no clock: a refusal since the last sample makes
   * an OK or SATURATED lane REJECTING at once (a failing tick has no time to hold hysteresis by).
   * The lane stays so until a tick succeeds and judges it again.
   */
  void tickFailed(Throwable e) {
    failuresUnlogged++;
    long wall = System.nanoTime();
    if (!failureLogged || wall - failureLoggedAt >= TimeUnit.MINUTES.toNanos(FAILURE_LOG_MINUTES)) {
      String more = failureLogged ? " (" + (failuresUnlogged - 1) + " more failed since the last"
          + " line)" : "";
      failureLogged = true;
      failureLoggedAt = wall;
      failuresUnlogged = 0;
      logQuietly("lane \"" + ctx.name + "\": health check failed: " + e + more + "; the lane's state"
          + " follows its refusals only until a check succeeds; logged once per "
          + FAILURE_LOG_MINUTES + " min at most", e);
    }
    try {
      followRefusals();
    } catch (Throwable again) {
      // nothing more to do without the lane's books; the next tick tries again
    }
  }

  private void followRefusals() {
    lock.lock();
    try {
      long[] last = samples.peekLast();
      long rejected = books.rejectedCount();
      if (rejected == last[4] || state.ordinal() >= LaneHealth.REJECTING.ordinal()) {
        return;
      }
      Map<String, Double> figures = new LinkedHashMap<>();
      figures.put("rejectedInWindow", (double) (rejected - samples.peekFirst()[4]));
      figures.put("queued", (double) books.queuedCount());
      transition(LaneHealth.REJECTING, last[0], figures, String.format(Locale.ROOT,
          "%.0f tasks rejected or dropped (the health check is failing: judged from refusals"
              + " only)", figures.get("rejectedInWindow")));
    } finally {
      lock.unlock();
    }
    deliver();
  }

  private static void logQuietly(String message, Throwable e) {
    try {
      LOG.log(System.Logger.Level.WARNING, message, e);
    } catch (Throwable ignored) {
      // the health thread must outlive a failing logger
    }
  }

  /** {@code d} in nanoseconds, {@link Long#MAX_VALUE} beyond (about 292 years). */
  static long nanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  // ------------------------------------------------------------------ reading

  LaneHealth state() {
    return state;
  }

  long saturatedNanos(long now) {
    lock.lock();
    try {
      return saturatedAccum + (state != LaneHealth.OK ? Math.max(0, now - stateSince) : 0);
    } finally {
      lock.unlock();
    }
  }

  void subscribe(Consumer<? super HealthEvent> listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  boolean unsubscribe(Object listener) {
    return listeners.remove(listener);
  }

  // ------------------------------------------------------------------ evaluation

  /** Re-evaluates the lane at {@code now} (on the lane's ticker). */
  void tick(long now) {
    lock.lock();
    try {
      long[] sums = ctx.timings.sums();
      long rejected = books.rejectedCount();
      ticks++;
      long[] sample = {now, sums[0], sums[1], sums[2], rejected};
      long[] last = samples.peekLast();
      if (collapsed) {
        // The first tick after rest: the one sample left stands for the idle ticks skipped, the
        // last of which would have been a tick ago (see "Resting").
        collapsed = false;
        long tickAgo = now - TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
        if (tickAgo - last[0] > 0) {
          last[0] = tickAgo;
        }
      }
      long windowNanos = nanos(config().window());
      if (samples.size() == 1) {
        samples.addLast(sample); // the first sample (taken at creation) stays as the baseline
      } else if (now - last[0] <= 0) {
        samples.removeLast();
        samples.addLast(sample); // a second look at the same instant replaces the first
      } else {
        // Keep samples at least a window / SAMPLES_PER_WINDOW apart, so a window holds at most
        // that many (plus the newest and one before the window): the newest replaces the last
        // while the last is nearer than that to the one before it. Counts are cumulative, so a
        // replaced sample loses nothing but the window start's precision.
        samples.removeLast();
        long[] beforeLast = samples.peekLast();
        if (last[0] - beforeLast[0] >= windowNanos / SAMPLES_PER_WINDOW) {
          samples.addLast(last);
        }
        samples.addLast(sample);
      }
      while (samples.size() > 2 && now - samples.peekFirst()[0] > windowNanos) {
        samples.removeFirst();
      }
      Map<String, Double> figures = new LinkedHashMap<>();
      LaneHealth desired;
      String why;
      if (deadlockDiagnostic != null) {
        desired = LaneHealth.DEADLOCKED;
        why = deadlockDiagnostic;
        figures.putAll(deadlockFigures);
      } else {
        desired = judgeLoad(now, figures);
        why = describe(desired, figures);
        if (suspicionDiagnostic != null) {
          desired = atLeastSaturated(desired);
          why = suspicionDiagnostic;
          figures.putAll(suspicionFigures);
        }
      }
      move(desired, now, figures, why);
    } finally {
      lock.unlock();
    }
    deliver();
  }

  /**
   * {@link Deadlocks} found this lane stuck: enter DEADLOCKED and add this lane's cure (its policy
   * applied to the awaited tasks queued here) to {@code cures}, which the caller runs once every
   * lock is released. Runs every time a cycle is found, so a second cycle is handled like the
   * first; a task already handled is no longer queued, so it is never handled twice.
   */
  void deadlocked(Deadlocks.Finding f, String diagnostic, Map<String, Double> figures,
      List<Runnable> cures) {
    long now = ctx.ticker.read();
    lock.lock();
    try {
      if (f.partlyReadFromFutures()) {
        // Waits read from the JDK's futures: report once the proof has held for a while.
        if (stackProofSince < 0) {
          stackProofSince = now;
        }
        if (now - stackProofSince < nanos(config().deadlockDetection())) {
          return;
        }
      }
      clearSuspicion();
      deadlockDiagnostic = diagnostic;
      deadlockFigures = figures;
      move(LaneHealth.DEADLOCKED, now, figures, diagnostic);
      List<LaneFuture<?>> awaited = f.awaitedIn(watched);
      switch (config().deadlockAction()) {
        case REPORT -> {}
        case FAIL -> {
          // Claim now (under the analysis' lock, for every lane of the cycle), fail later.
          List<LaneFuture<?>> claimed = books.claimQueued(awaited);
          if (!claimed.isEmpty()) {
            cures.add(() -> books.failClaimed(claimed));
          }
        }
        case COMPENSATE -> {
          for (LaneFuture<?> e : awaited) {
            cures.add(() -> pool.runOnCompensationThread(e, config().maxCompensationThreads()));
          }
        }
      }
    } finally {
      lock.unlock();
    }
    cures.add(this::deliver);
  }

  /**
   * {@link Deadlocks} suspects (cannot prove) a starvation deadlock here. Once the same suspicion
   * ({@code signature}: the same tasks running) has held for the detection period, it is reported:
   * the lane is at least SATURATED and an event is delivered whose diagnostic begins "suspected
   * starvation deadlock" and whose figures hold {@code suspectedDeadlock = 1}, even when the state
   * does not change (the diagnosis did). Nothing is ever done to a task on a suspicion.
   */
  void suspected(long signature, String diagnostic, Map<String, Double> figures,
      List<Runnable> after) {
    long now = ctx.ticker.read();
    boolean announced;
    lock.lock();
    try {
      announced = leaveDeadlocked(now); // a proof seen earlier no longer holds
      if (suspicionSince < 0 || signature != suspicionSignature) {
        clearSuspicion(); // a new suspicion (or other tasks now): its clock starts now
        suspicionSince = now;
        suspicionSignature = signature;
      }
      boolean held = now - suspicionSince >= nanos(config().deadlockDetection());
      boolean first = held && suspicionDiagnostic == null;
      if (held) {
        suspicionDiagnostic = diagnostic;
        suspicionFigures = figures;
      }
      if (first) {
        ForeignFutures.explainSuspicionOnce();
        Map<String, Double> all = new LinkedHashMap<>();
        LaneHealth to = atLeastSaturated(judgeLoad(now, all));
        all.putAll(figures);
        transition(to, now, all, diagnostic);
        announced = true;
      }
    } finally {
      lock.unlock();
    }
    if (announced) {
      after.add(this::deliver);
    }
  }

  /**
   * {@link Deadlocks} found this lane neither stuck nor suspected. A lane in DEADLOCKED leaves it
   * now, on this first check without the evidence, for the state its load gives (no exit
   * hysteresis: the deadlock is over, not merely quieter); a suspicion ends silently, and the
   * state then follows the load as usual.
   */
  void notDeadlocked(List<Runnable> after) {
    boolean moved;
    lock.lock();
    try {
      clearSuspicion();
      // the clock only when leaving: a lane whose clock fails spoils no other lane's analysis
      moved = state == LaneHealth.DEADLOCKED ? leaveDeadlocked(ctx.ticker.read()) : forgetProof();
    } finally {
      lock.unlock();
    }
    if (moved) {
      after.add(this::deliver);
    }
  }

  /** Forgets a proof, for a lane not in DEADLOCKED; false (it did not move). Call under lock. */
  private boolean forgetProof() {
    deadlockDiagnostic = null;
    deadlockFigures = null;
    stackProofSince = -1;
    return false;
  }

  /** Forgets a proof; leaves DEADLOCKED if the lane is in it. True if it moved. Call under lock. */
  private boolean leaveDeadlocked(long now) {
    forgetProof();
    if (state != LaneHealth.DEADLOCKED) {
      return false;
    }
    Map<String, Double> figures = new LinkedHashMap<>();
    LaneHealth desired = judgeLoad(now, figures);
    move(desired, now, figures, "the starvation deadlock is over; " + describe(desired, figures));
    return true;
  }

  /** Call under lock. */
  private void clearSuspicion() {
    suspicionDiagnostic = null;
    suspicionFigures = null;
    suspicionSince = -1;
  }

  private static LaneHealth atLeastSaturated(LaneHealth h) {
    return h.ordinal() < LaneHealth.SATURATED.ordinal() ? LaneHealth.SATURATED : h;
  }

  private LaneHealth judgeLoad(long now, Map<String, Double> figures) {
    long[] first = samples.peekFirst();
    long[] last = samples.peekLast();
    long count = last[1] - first[1];
    long rejectedInWindow = last[4] - first[4];
    double meanWait = count > 0 ? (double) (last[2] - first[2]) / count : 0;
    double meanRun = count > 0 ? (double) (last[3] - first[3]) / count : Double.NaN;
    if (Double.isNaN(meanRun) && last[1] > 0) {
      meanRun = (double) last[3] / last[1]; // nothing ended in the window: use the lane's mean
    }
    double headAge = books.headWaitNanos(now); // the oldest live task
    double wait = Math.max(meanWait, headAge);
    HealthSettings set = config(); // one value for the whole judgement
    double threshold =
        set.fixedWaitThreshold() != null
            ? nanos(set.fixedWaitThreshold())
            : set.waitToRunRatio() * (Double.isNaN(meanRun) ? 0 : meanRun);
    threshold = Math.max(threshold, nanos(set.minWait()));
    figures.put("meanWaitMs", meanWait / 1e6);
    figures.put("oldestQueuedMs", headAge / 1e6);
    figures.put("meanRunMs", Double.isNaN(meanRun) ? -1 : meanRun / 1e6); // -1: none ended yet
    figures.put("thresholdMs", threshold / 1e6);
    figures.put("endedInWindow", (double) count);
    figures.put("rejectedInWindow", (double) rejectedInWindow);
    figures.put("queued", (double) books.queuedCount());
    if (rejectedInWindow > 0) {
      return LaneHealth.REJECTING;
    }
    return wait > threshold ? LaneHealth.SATURATED : LaneHealth.OK;
  }

  private static String describe(LaneHealth h, Map<String, Double> f) {
    return switch (h) {
      case OK -> String.format(Locale.ROOT, "queue wait %.1f ms within threshold %.1f ms",
          Math.max(f.get("meanWaitMs"), f.get("oldestQueuedMs")), f.get("thresholdMs"));
      case SATURATED -> String.format(Locale.ROOT,
          "queue wait %.1f ms (mean of ended tasks %.1f ms, oldest queued %.1f ms) above threshold"
              + " %.1f ms (%s)",
          Math.max(f.get("meanWaitMs"), f.get("oldestQueuedMs")), f.get("meanWaitMs"),
          f.get("oldestQueuedMs"), f.get("thresholdMs"),
          f.get("meanRunMs") < 0 // the figure's "none" (see judgeLoad)
              ? "no task has ended yet"
              : String.format(Locale.ROOT, "mean run %.1f ms", f.get("meanRunMs")));
      case REJECTING -> String.format(Locale.ROOT, "%.0f tasks rejected or dropped in the window",
          f.get("rejectedInWindow"));
      case DEADLOCKED -> "deadlocked";
    };
  }

  /** Applies hysteresis and records a transition; call under lock. */
  private void move(LaneHealth desired, long now, Map<String, Double> figures, String why) {
    if (desired != candidate) {
      candidate = desired;
      candidateSince = now;
    }
    if (desired == state) {
      return;
    }
    long held = now - candidateSince;
    boolean worse = desired.ordinal() > state.ordinal();
    long needed =
        desired == LaneHealth.DEADLOCKED || state == LaneHealth.DEADLOCKED
            ? 0 // a deadlock is entered and left on the analysis' evidence, with no hysteresis
            : worse ? nanos(config().enterAfter()) : nanos(config().exitAfter());
    if (held < needed) {
      return;
    }
    transition(desired, now, figures, why);
  }

  /**
   * Records a transition to {@code desired} (from the state itself when only the diagnosis
   * changed) and queues its event; call under lock.
   */
  private void transition(LaneHealth desired, long now, Map<String, Double> figures, String why) {
    if (candidate != desired) {
      candidate = desired;
      candidateSince = now;
    }
    LaneHealth from = state;
    if (from != LaneHealth.OK) {
      saturatedAccum += Math.max(0, now - stateSince);
    }
    state = desired;
    stateSince = now;
    HealthEvent event = new HealthEvent(ctx.name, from, desired, now, figures, why);
    pending.addLast(event);
    LaneEvents.healthTransition(event);
    // A deadlock (proven, or a suspicion: from == to) is a bug and always a warning; the rest is
    // load, logged at the level the user chose (INFO by default).
    boolean deadlock = desired == LaneHealth.DEADLOCKED || figures.containsKey("suspectedDeadlock");
    System.Logger.Level level = deadlock ? System.Logger.Level.WARNING : config().logLevel();
    if (level != System.Logger.Level.OFF) {
      LOG.log(level, "lane \"" + ctx.name + "\": " + from + " → " + desired + ": " + why);
    }
  }

  void deliver() {
    if (!deliveryLock.tryLock()) {
      return; // the holder delivers what we queued
    }
    try {
      for (; ; ) {
        HealthEvent e;
        lock.lock();
        try {
          e = pending.pollFirst();
        } finally {
          lock.unlock();
        }
        if (e == null) {
          return;
        }
        for (Consumer<? super HealthEvent> l : listeners) {
          try {
            l.accept(e);
          } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING,
                "lane \"" + ctx.name + "\": health listener failed", t);
          }
        }
      }
    } finally {
      deliveryLock.unlock();
    }
  }

  /** The settings now: the health part of the lane's one settings value, read once a check. */
  HealthSettings settings() {
    return ctx.settings.get().health;
  }

  private HealthSettings config() {
    return ctx.settings.get().health;
  }

  HealthSettings.DeadlockAction policy() {
    return config().deadlockAction();
  }

  /** The lane as the deadlock analysis reads it, over its parts. */
  private record WatchedLane(LaneContext ctx, WorkerPool pool, LaneBooks books)
      implements Deadlocks.Watched {
    @Override
    public String name() {
      return ctx.name;
    }

    @Override
    public LaneFuture.Home home() {
      return ctx.home;
    }

    @Override
    public boolean stoppedOrTerminated() {
      return ctx.runState() >= RunState.STOP;
    }

    @Override
    public int queuedCount() {
      return books.queuedCount();
    }

    @Override
    public HealthSettings.DeadlockAction policy() {
      return ctx.settings.get().health.deadlockAction();
    }

    @Override
    public List<LaneFuture<?>> queuedEnvelopes() {
      return books.queuedEnvelopes();
    }

    @Override
    public boolean noFreeCapacity() {
      return pool.noFreeCapacity();
    }

    @Override
    public int concurrency() {
      return pool.concurrency();
    }

    @Override
    public int capacityInUse() {
      return pool.capacityInUse();
    }

    @Override
    public int liveWorkers() {
      return pool.liveWorkers.get();
    }

    @Override
    public Collection<PoolWorker> workers() {
      return pool.workers;
    }
  }
}
