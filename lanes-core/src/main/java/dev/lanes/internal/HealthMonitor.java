package dev.lanes.internal;

import dev.lanes.DeadlockPolicy;
import dev.lanes.HealthConfig;
import dev.lanes.HealthEvent;
import dev.lanes.LaneDeadlockException;
import dev.lanes.LaneHealth;
import dev.lanes.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One lane's health: the saturation state machine, starvation-deadlock detection, and the cures
 * of the deadlock policies.
 *
 * <p><b>Concurrency design.</b> All state lives under {@code lock}. It is evaluated by {@link
 * #tick(long)}, which the process-wide {@code lanes-health} daemon thread calls for every live
 * lane every {@value #TICK_MILLIS} ms (and tests may call directly with a fake clock), and by
 * {@link #workerWaits}, which a lane worker calls just before it blocks on a lanes future: that is
 * the moment a nested-submission cycle forms, so it is checked there at once. Nothing here runs
 * on the task hot path: a worker that never blocks on a lanes future never enters this class.
 * Listeners are called outside the lock, in transition order per lane (transitions are queued
 * under the lock and delivered by whoever made them, serialised by {@code deliveryLock}).
 *
 * <p>Saturation is judged from window differences of the lane's cumulative timing sums (tasks
 * ended in the window) and from the age of the oldest queued task, so a lane whose queue does not
 * move at all still shows as waiting.
 */
final class HealthMonitor {
  static final long TICK_MILLIS = 100;
  private static final System.Logger LOG = System.getLogger("dev.lanes");
  private static final Set<LaneExecutor> LANES = ConcurrentHashMap.newKeySet();
  private static volatile Thread ticker;
  private static final ReentrantLock TICKER_LOCK = new ReentrantLock();

  private final LaneExecutor lane;
  private final HealthConfig config;
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
  private long lastStarted = -1;
  private long lastProgress;
  private boolean deadlockHandled;

  HealthMonitor(LaneExecutor lane, HealthConfig config) {
    this.lane = lane;
    this.config = config;
    long now = lane.now();
    this.stateSince = now;
    this.candidateSince = now;
    this.lastProgress = now;
    samples.addLast(new long[] {now, 0, 0, 0, 0});
  }

  // ------------------------------------------------------------------ process-wide ticker

  static void register(LaneExecutor lane) {
    LANES.add(lane);
    if (ticker == null) {
      startTicker();
    }
  }

  static void unregister(LaneExecutor lane) {
    LANES.remove(lane);
  }

  private static void startTicker() {
    TICKER_LOCK.lock();
    try {
      startTickerLocked();
    } finally {
      TICKER_LOCK.unlock();
    }
  }

  private static void startTickerLocked() {
    if (ticker != null) {
      return;
    }
    Thread t =
        Thread.ofPlatform()
            .name("lanes-health")
            .daemon(true)
            .unstarted(
                () -> {
                  for (; ; ) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
                    for (LaneExecutor l : LANES) {
                      try {
                        l.health.tick(l.now());
                      } catch (Throwable e) {
                        LOG.log(System.Logger.Level.ERROR,
                            "lanes-health: checking lane \"" + l.name() + "\" failed", e);
                      }
                    }
                  }
                });
    t.start();
    ticker = t;
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

  Subscription subscribe(Consumer<? super HealthEvent> listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    return () -> listeners.remove(listener);
  }

  // ------------------------------------------------------------------ evaluation

  /** Re-evaluates the lane at {@code now} (on the lane's ticker). */
  void tick(long now) {
    lock.lock();
    try {
      long[] sums = lane.timingSums();
      long rejected = lane.rejectedCount();
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
      long startedNow = lane.startedCount();
      if (startedNow != lastStarted) {
        lastStarted = startedNow;
        lastProgress = now;
      }
      Map<String, Double> figures = new LinkedHashMap<>();
      DeadlockFinding deadlock = findDeadlock(now, true);
      LaneHealth desired;
      String why;
      if (deadlock != null) {
        desired = LaneHealth.DEADLOCKED;
        why = deadlock.diagnostic;
        figures.putAll(deadlock.figures);
      } else {
        deadlockHandled = false;
        desired = judgeLoad(now, figures);
        why = describe(desired, figures);
      }
      move(desired, now, figures, why);
      if (deadlock != null) {
        cure(deadlock);
      }
    } finally {
      lock.unlock();
    }
    deliver();
  }

  /** A worker of some lane is about to block on {@code future}. */
  void workerWaits(Worker w, LaneFuture<?> future) {
    if (future.lane() != lane) {
      return;
    }
    TaskEnvelope e = future.envelope;
    if (e == null || e.state() != TaskEnvelope.QUEUED) {
      return;
    }
    lock.lock();
    try {
      long now = lane.now();
      DeadlockFinding d = findDeadlock(now, false);
      if (d != null) {
        move(LaneHealth.DEADLOCKED, now, d.figures, d.diagnostic);
        cure(d);
      }
    } finally {
      lock.unlock();
    }
    deliver();
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
    double headAge = lane.oldestQueuedNanos(now);
    double wait = Math.max(meanWait, headAge);
    double threshold =
        config.fixedWaitThreshold() != null
            ? config.fixedWaitThreshold().toNanos()
            : config.waitToRunRatio() * (Double.isNaN(meanRun) ? 0 : meanRun);
    threshold = Math.max(threshold, config.minWait().toNanos());
    figures.put("meanWaitMs", meanWait / 1e6);
    figures.put("oldestQueuedMs", headAge / 1e6);
    figures.put("meanRunMs", Double.isNaN(meanRun) ? -1 : meanRun / 1e6);
    figures.put("thresholdMs", threshold / 1e6);
    figures.put("endedInWindow", (double) count);
    figures.put("rejectedInWindow", (double) rejectedInWindow);
    figures.put("queued", (double) lane.queue.size());
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
              + " %.1f ms (mean run %.1f ms)",
          Math.max(f.get("meanWaitMs"), f.get("oldestQueuedMs")), f.get("meanWaitMs"),
          f.get("oldestQueuedMs"), f.get("thresholdMs"), f.get("meanRunMs"));
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
        desired == LaneHealth.DEADLOCKED
            ? 0
            : worse ? config.enterAfter().toNanos() : config.exitAfter().toNanos();
    if (held < needed) {
      return;
    }
    LaneHealth from = state;
    if (from != LaneHealth.OK) {
      saturatedAccum += Math.max(0, now - stateSince);
    }
    state = desired;
    stateSince = now;
    HealthEvent event = new HealthEvent(lane.name(), from, desired, now, figures, why);
    pending.addLast(event);
    LaneEvents.healthTransition(event);
    System.Logger.Level level =
        desired == LaneHealth.OK ? System.Logger.Level.INFO : System.Logger.Level.WARNING;
    LOG.log(level, "lane \"" + lane.name() + "\": " + from + " → " + desired + ": " + why);
  }

  private void deliver() {
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
                "lane \"" + lane.name() + "\": health listener failed", t);
          }
        }
      }
    } finally {
      deliveryLock.unlock();
    }
  }

  // ------------------------------------------------------------------ deadlock

  private record DeadlockFinding(
      List<Worker> workers, List<TaskEnvelope> awaited, Map<String, Double> figures, String diagnostic) {}

  /**
   * Every live worker waits on work while queued tasks cannot start. {@code useStacks}: also
   * count workers whose stacks show a wait on a future that lanes did not make (e.g. {@code
   * CompletableFuture.runAsync(.., lane).join()}), which needs the no-progress period to pass.
   */
  private DeadlockFinding findDeadlock(long now, boolean useStacks) {
    if (lane.queue.isEmpty() || lane.isShutdownNowOrTerminated()) {
      return null;
    }
    List<Worker> live = new ArrayList<>(lane.workers);
    if (live.isEmpty() || !lane.noFreeCapacity()) {
      return null; // a free worker (or permit) exists: queued tasks can still start
    }
    boolean stalled = now - lastProgress >= config.deadlockDetection().toNanos();
    List<TaskEnvelope> awaited = new ArrayList<>();
    StringBuilder frames = new StringBuilder();
    int viaLanesFuture = 0;
    for (Worker w : live) {
      LaneFuture<?> f = w.waitingOn;
      Thread t = w.thread;
      if (f != null) {
        TaskEnvelope e = f.envelope;
        if (f.lane() != lane || e == null || e.state() != TaskEnvelope.QUEUED) {
          return null; // waits on something that can still finish
        }
        awaited.add(e);
        viaLanesFuture++;
      } else if (!(useStacks && stalled && t != null && waitsOnFuture(t))) {
        return null;
      }
      if (t != null) {
        frames.append("  ").append(t.getName()).append(" (").append(t.getState()).append(")");
        if (f != null) {
          frames.append(" waits on ").append(f.envelope);
        }
        frames.append('\n');
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(st.length, 12); i++) {
          frames.append("      at ").append(st[i]).append('\n');
        }
      }
    }
    int queued = lane.queue.size();
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("workers", (double) live.size());
    figures.put("queued", (double) queued);
    figures.put("waitingViaLanesFuture", (double) viaLanesFuture);
    figures.put("stalledMs", (now - lastProgress) / 1e6);
    String diagnostic =
        String.format(Locale.ROOT,
            "starvation deadlock in lane \"%s\": all %d workers wait on work while %d tasks sit in"
                + " the same lane's queue and none has started for %.0f ms; policy %s. Workers:%n%s",
            lane.name(), live.size(), queued, (now - lastProgress) / 1e6,
            config.deadlockPolicy(), frames);
    return new DeadlockFinding(live, awaited, figures, diagnostic);
  }

  private static boolean waitsOnFuture(Thread t) {
    Thread.State s = t.getState();
    if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
      return false;
    }
    for (StackTraceElement e : t.getStackTrace()) {
      String c = e.getClassName();
      String m = e.getMethodName();
      if ((c.equals("java.util.concurrent.CompletableFuture")
              && (m.equals("waitingGet") || m.equals("timedGet") || m.equals("join")
                  || m.equals("get")))
          || (c.equals("java.util.concurrent.FutureTask")
              && (m.equals("awaitDone") || m.equals("get")))
          || (c.equals("java.util.concurrent.ForkJoinTask")
              && (m.equals("awaitDone") || m.equals("join") || m.equals("get")))) {
        return true;
      }
      if (c.startsWith("dev.lanes.internal.LaneExecutor")) {
        break; // below the task: nothing of the task's own waits further down
      }
    }
    return false;
  }

  /** Applies the deadlock policy once per deadlock. Call under lock. */
  private void cure(DeadlockFinding d) {
    if (deadlockHandled) {
      return;
    }
    deadlockHandled = true;
    switch (config.deadlockPolicy()) {
      case REPORT -> {}
      case FAIL -> {
        LaneDeadlockException ex =
            new LaneDeadlockException(lane.name(),
                String.format(Locale.ROOT,
                    "lane \"%s\" is deadlocked: its %d workers all wait on tasks queued behind"
                        + " them (%d queued); failing the wait instead of hanging",
                    lane.name(), d.workers.size(), lane.queue.size()));
        // Claim every awaited task before failing any: a worker freed by the first failure must
        // not pick up (and run) a task another waiter is about to be failed for.
        List<TaskEnvelope> claimed = new ArrayList<>();
        for (TaskEnvelope e : d.awaited) {
          if (lane.queue.remove(e)) {
            claimed.add(e);
          }
        }
        if (claimed.size() < d.workers.size()) {
          // Some waits go through futures lanes did not make (CompletableFuture.runAsync and
          // friends): claim the queued tasks those futures belong to, oldest first.
          claimed.addAll(lane.claimQueuedForeignTasks(d.workers.size() - claimed.size()));
        }
        for (TaskEnvelope e : claimed) {
          lane.failClaimed(e, ex);
        }
        int failed = claimed.size();
        if (failed == 0) {
          LOG.log(System.Logger.Level.WARNING, "lane \"" + lane.name()
              + "\": FAIL policy could not reach the awaited futures; compensating instead");
          compensate();
        }
      }
      case COMPENSATE -> compensate();
    }
  }

  private void compensate() {
    int want = Math.min(lane.queue.size(), config.maxCompensationThreads());
    for (int i = 0; i < want; i++) {
      if (!lane.addCompensationWorker(config.maxCompensationThreads())) {
        break;
      }
    }
  }

  DeadlockPolicy policy() {
    return config.deadlockPolicy();
  }
}
