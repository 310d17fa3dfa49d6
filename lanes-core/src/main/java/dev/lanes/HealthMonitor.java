package dev.lanes;

import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.ArrayList;
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
 * lane every {@value #TICK_MILLIS} ms (and tests may call through {@code checkHealth()} with a
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
 * thread-locals (so it pins no web application's loader), and survives its own failures: an
 * exception checking one lane is logged (and a failing logger ignored) and the next tick goes on.
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
 */
final class HealthMonitor {
  static final long TICK_MILLIS = 100;
  private static final System.Logger LOG = System.getLogger("dev.lanes");
  /** Every lane not yet terminated, weakly (see the class comment). Guarded by TICKER_LOCK. */
  private static final Set<WeakReference<LaneExecutor>> LANES = new HashSet<>();
  private static final ReentrantLock TICKER_LOCK = new ReentrantLock();
  /** The health thread, or null when none runs. Guarded by TICKER_LOCK. */
  private static Thread ticker;

  private final LaneContext ctx;
  /** Replaced whole by a live change ({@link #settings(HealthSettings)}); read per check. */
  private volatile HealthSettings config;
  private final WeakReference<LaneExecutor> registration;
  private final CopyOnWriteArrayList<Consumer<? super HealthEvent>> listeners =
      new CopyOnWriteArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final ArrayDeque<HealthEvent> pending = new ArrayDeque<>();

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

  HealthMonitor(LaneContext ctx, LaneExecutor lane, HealthSettings config) {
    this.ctx = ctx;
    this.config = config;
    this.registration = new WeakReference<>(lane);
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
        t.start();
      }
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  void unregister() {
    TICKER_LOCK.lock();
    try {
      LANES.remove(registration);
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  /** The registered lanes that are still reachable (strong references, for one analysis). */
  static List<LaneExecutor> registeredLanes() {
    TICKER_LOCK.lock();
    try {
      List<LaneExecutor> out = new ArrayList<>(LANES.size());
      for (var it = LANES.iterator(); it.hasNext(); ) {
        LaneExecutor l = it.next().get();
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

  /** True while the health thread runs (for tests). */
  static boolean tickerRunning() {
    TICKER_LOCK.lock();
    try {
      return ticker != null;
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  private static void tickForever() {
    for (; ; ) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
      List<LaneExecutor> lanes;
      TICKER_LOCK.lock();
      try {
        lanes = registeredLanes();
        if (lanes.isEmpty()) {
          ticker = null; // a lane registered from now on starts a new thread
          return;
        }
      } finally {
        TICKER_LOCK.unlock();
      }
      try {
        Deadlocks.check(lanes);
      } catch (Throwable e) {
        logQuietly("lanes-health: deadlock analysis failed", e);
      }
      for (LaneExecutor l : lanes) {
        try {
          l.ctx.pool.reapDeadWorkers();
          long now = l.ctx.ticker.read();
          l.ctx.health.tick(now);
          l.ctx.books.drops.flush(now);
        } catch (Throwable e) {
          logQuietly("lanes-health: checking lane \"" + l.ctx.name + "\" failed", e);
        }
      }
      lanes = null; // hold no lane while parked
    }
  }

  private static void logQuietly(String message, Throwable e) {
    try {
      LOG.log(System.Logger.Level.ERROR, message, e);
    } catch (Throwable ignored) {
      // the health thread must outlive a failing logger
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
      long rejected = ctx.books.rejectedCount();
      long[] sample = {now, sums[0], sums[1], sums[2], rejected};
      long[] last = samples.peekLast();
      if (last == null || now > last[0] || samples.size() == 1) {
        samples.addLast(sample); // the first sample (taken at creation) stays as the baseline
      } else {
        samples.removeLast();
        samples.addLast(sample); // a second look at the same instant replaces the first
      }
      long windowNanos = config.window().toNanos();
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
        if (now - stackProofSince < config.deadlockDetection().toNanos()) {
          return;
        }
      }
      clearSuspicion();
      deadlockDiagnostic = diagnostic;
      deadlockFigures = figures;
      move(LaneHealth.DEADLOCKED, now, figures, diagnostic);
      List<LaneFuture<?>> awaited = f.awaitedIn(ctx.lane);
      switch (config.deadlockAction()) {
        case REPORT -> {}
        case FAIL -> {
          // Claim now (under the analysis' lock, for every lane of the cycle), fail later.
          List<LaneFuture<?>> claimed = ctx.books.claimQueued(awaited);
          if (!claimed.isEmpty()) {
            cures.add(() -> ctx.books.failClaimed(claimed));
          }
        }
        case COMPENSATE -> {
          for (LaneFuture<?> e : awaited) {
            cures.add(() -> ctx.pool.runOnCompensationThread(e, config.maxCompensationThreads()));
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
      boolean held = now - suspicionSince >= config.deadlockDetection().toNanos();
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
    long now = ctx.ticker.read();
    boolean moved;
    lock.lock();
    try {
      clearSuspicion();
      moved = leaveDeadlocked(now);
    } finally {
      lock.unlock();
    }
    if (moved) {
      after.add(this::deliver);
    }
  }

  /** Forgets a proof; leaves DEADLOCKED if the lane is in it. True if it moved. Call under lock. */
  private boolean leaveDeadlocked(long now) {
    deadlockDiagnostic = null;
    deadlockFigures = null;
    stackProofSince = -1;
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
    double headAge = ctx.ring.headWaitNanos(now);
    double wait = Math.max(meanWait, headAge);
    double threshold =
        config.fixedWaitThreshold() != null
            ? config.fixedWaitThreshold().toNanos()
            : config.waitToRunRatio() * (Double.isNaN(meanRun) ? 0 : meanRun);
    threshold = Math.max(threshold, config.minWait().toNanos());
    figures.put("meanWaitMs", meanWait / 1e6);
    figures.put("oldestQueuedMs", headAge / 1e6);
    figures.put("meanRunMs", Double.isNaN(meanRun) ? -1 : meanRun / 1e6); // -1: none ended yet
    figures.put("thresholdMs", threshold / 1e6);
    figures.put("endedInWindow", (double) count);
    figures.put("rejectedInWindow", (double) rejectedInWindow);
    figures.put("queued", (double) ctx.books.queuedCount());
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
            : worse ? config.enterAfter().toNanos() : config.exitAfter().toNanos();
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
    System.Logger.Level level = deadlock ? System.Logger.Level.WARNING : config.logLevel();
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

  /** The settings now. */
  HealthSettings settings() {
    return config;
  }

  /** Replaces the settings (a live change, under the lane's main lock); the samples are kept. */
  void settings(HealthSettings replacement) {
    config = replacement;
  }

  HealthSettings.DeadlockAction policy() {
    return config.deadlockAction();
  }
}
