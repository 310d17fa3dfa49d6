package dev.lanes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Finds starvation deadlocks, within one lane or across lanes, only where the evidence proves
 * them.
 *
 * <p><b>What counts as proof.</b> A lane is <em>stuck</em> when it has no free thread or permit
 * and every one of its workers is blocked, with no timeout, on a task that sits queued (not
 * started) in a stuck lane. The stuck set is the greatest set with that property (start from every
 * lane that could be stuck, drop a lane as soon as one of its workers waits on something outside
 * the set, repeat until nothing changes), so a lane A whose workers wait on tasks queued in B, while
 * B's workers wait on tasks queued in A, is found with B. A worker's wait is known two ways:
 *
 * <ol>
 *   <li>through lanes' own futures: {@code get()}/{@code join()} on a lane future registers the
 *       wait ({@link WaitTracker}); a timed {@code get} never counts;
 *   <li>through the JDK's own futures ({@code CompletableFuture.supplyAsync(.., lane).join()}, or a
 *       stage depending on a lane's future): the threads parked on the future of a queued task,
 *       read from the future itself ({@link ForeignFutures}; needs {@code java.util.concurrent}
 *       open to lanes, otherwise such waits prove nothing). A future with {@code orTimeout} does
 *       not count.
 * </ol>
 *
 * A worker that waits on anything else (another executor's future, a sleep, IO, a lock, a timed
 * wait) or runs makes its lane not stuck: such a lane is busy or saturated, never deadlocked.
 *
 * <p><b>No free capacity, read safely.</b> A permit (virtual lane) or a core worker (platform
 * lane) is counted before its worker enters the worker set, and a leaving worker leaves the set
 * before it gives them back, so a set copied while a worker starts or leaves can hold fewer workers
 * than the capacity in use (with every one of them blocked) although a queued task is about to
 * start. A lane counts as stuck only if the capacity in use and the live-worker count read before
 * the copy equal those read after it, the copy holds every live worker, the non-compensation
 * workers in it are as many as the capacity in use, and each of them is blocked; a worker whose
 * thread has not entered lanes' code yet is not blocked.
 *
 * <p><b>Concurrency design.</b> One analysis runs at a time ({@code LOCK}); it reads the lanes'
 * worker sets, queues and envelope states without their locks, a racy view made safe by what it
 * demands: a worker about to take a queued task is running, not waiting, so its lane is not stuck.
 * Findings go to each lane's {@link HealthMonitor}, which decides what to do under its own lock;
 * the cures (failing or running the awaited tasks) run after every lock is released, because they
 * complete futures and so run user code.
 */
final class Deadlocks {
  private static final ReentrantLock LOCK = new ReentrantLock();

  private Deadlocks() {}

  /** One worker's proven wait: the queued task it waits on, and how that was seen. */
  record Wait(Worker worker, LaneFuture<?> awaited, boolean viaLanesFuture) {}

  /** A stuck set of lanes, with every worker's wait. */
  record Finding(Set<LaneExecutor> lanes, Map<LaneExecutor, List<Wait>> waits) {
    /**
     * True if some wait of the cycle was read from a JDK future rather than registered through a
     * lanes future: then every lane of it is reported only once the proof has held a while.
     */
    boolean partlyReadFromFutures() {
      for (List<Wait> ws : waits.values()) {
        for (Wait w : ws) {
          if (!w.viaLanesFuture()) {
            return true;
          }
        }
      }
      return false;
    }

    /** The awaited tasks that sit in {@code lane}'s queue (the ones its policy may act on). */
    List<LaneFuture<?>> awaitedIn(LaneExecutor lane) {
      Set<LaneFuture<?>> out = new LinkedHashSet<>();
      for (List<Wait> ws : waits.values()) {
        for (Wait w : ws) {
          if (w.awaited().lane == lane) {
            out.add(w.awaited());
          }
        }
      }
      return new ArrayList<>(out);
    }
  }

  /** A worker is about to block with no timeout on {@code future}: check at once. */
  static void workerWaits(Worker w, LaneFuture<?> future) {
    LaneFuture<?> e = future.accepted ? future : null;
    if (e == null || e.taskState() != LaneFuture.QUEUED || !e.lane.pool.noFreeCapacity()) {
      return; // the awaited task can still start: no cycle through it
    }
    check(HealthMonitor.registeredLanes());
  }

  /** Analyses {@code lanes}, tells each lane its finding, then runs the cures outside all locks. */
  static void check(List<LaneExecutor> lanes) {
    List<Runnable> cures = new ArrayList<>();
    LOCK.lock();
    try {
      Finding f = analyse(lanes);
      for (LaneExecutor l : lanes) {
        if (f != null && f.lanes().contains(l)) {
          l.health.deadlocked(f, describe(f, l), figures(f, l), cures);
        } else {
          l.health.notDeadlocked(cures); // runs after the lock, like a cure: it delivers events
        }
      }
    } finally {
      LOCK.unlock();
    }
    for (Runnable cure : cures) {
      cure.run();
    }
  }

  /** The stuck lanes among {@code lanes}, or null if none. */
  static Finding analyse(List<LaneExecutor> lanes) {
    // Lanes that could be stuck: no free capacity, a worker at all, and every worker blocked.
    Set<LaneExecutor> stuck = new LinkedHashSet<>();
    Map<LaneExecutor, List<Worker>> workersOf = new HashMap<>();
    for (LaneExecutor l : lanes) {
      if (l.isShutdownNowOrTerminated() || !l.pool.noFreeCapacity()) {
        continue;
      }
      List<Worker> live = everyWorkerBlocked(l);
      if (live != null) {
        stuck.add(l);
        workersOf.put(l, live);
      }
    }
    if (stuck.isEmpty()) {
      return null;
    }
    if (!ForeignFutures.isAvailable()) {
      ForeignFutures.explainOnce(); // a lane looks stuck and we cannot read what it waits on
    }
    // Threads parked on the futures of tasks queued in those lanes.
    Map<Thread, LaneFuture<?>> parkedOn = new IdentityHashMap<>();
    if (ForeignFutures.isAvailable()) {
      List<Thread> waiters = new ArrayList<>();
      for (LaneExecutor l : stuck) {
        for (LaneFuture<?> e : l.queuedEnvelopes()) {
          CompletableFuture<?> f = e.handedOut ? e : ForeignFutures.futureOf(e.source);
          waiters.clear();
          ForeignFutures.untimedWaiters(f, waiters);
          for (Thread t : waiters) {
            parkedOn.putIfAbsent(t, e);
          }
        }
      }
    }
    Map<LaneExecutor, List<Wait>> waits = new LinkedHashMap<>();
    for (LaneExecutor l : stuck) {
      List<Wait> ws = new ArrayList<>();
      for (Worker w : workersOf.get(l)) {
        LaneFuture<?> e = registeredWait(w);
        boolean viaLanes = e != null;
        if (e == null) {
          Thread t = w.thread;
          e = t == null ? null : parkedOn.get(t);
        }
        if (e == null) {
          ws = null;
          break;
        }
        ws.add(new Wait(w, e, viaLanes));
      }
      if (ws != null) {
        waits.put(l, ws);
      }
    }
    stuck.retainAll(waits.keySet());
    // Greatest fixed point: a lane stays only while every wait of it targets a stuck lane.
    boolean changed = true;
    while (changed) {
      changed = false;
      for (var it = stuck.iterator(); it.hasNext(); ) {
        LaneExecutor l = it.next();
        for (Wait w : waits.get(l)) {
          if (!stuck.contains(w.awaited().lane)) {
            it.remove();
            waits.remove(l);
            changed = true;
            break;
          }
        }
      }
    }
    return stuck.isEmpty() ? null : new Finding(stuck, waits);
  }

  /**
   * The lane's workers if every worker that holds its capacity is in the set and blocked (see
   * "No free capacity, read safely" in the class comment), else null.
   */
  private static List<Worker> everyWorkerBlocked(LaneExecutor l) {
    WorkerPool p = l.pool;
    int live = p.liveWorkers.get();
    int held = capacityInUse(l);
    if (held < l.concurrency || live == 0) {
      return null;
    }
    List<Worker> seen = new ArrayList<>(p.workers);
    if (p.liveWorkers.get() != live || capacityInUse(l) != held || seen.size() != live) {
      return null; // a worker is starting or leaving: look again next time
    }
    int holders = 0;
    for (Worker w : seen) {
      if (!(w.entered && (registeredWait(w) != null || parked(w)))) {
        return null;
      }
      if (w.kind != Worker.Kind.COMPENSATION) {
        holders++;
      }
    }
    return holders == held ? seen : null;
  }

  /** Permits in use (virtual lane) or core workers (platform lane). */
  private static int capacityInUse(LaneExecutor l) {
    return l.elastic ? l.pool.permits.get() : l.pool.coreWorkers.get();
  }

  /** The queued task a worker registered an untimed wait on, or null. */
  private static LaneFuture<?> registeredWait(Worker w) {
    LaneFuture<?> f = w.waitingOn;
    if (f == null || w.waitTimed || f.isDone()) {
      return null;
    }
    LaneFuture<?> e = f.accepted ? f : null;
    if (e == null || e.taskState() != LaneFuture.QUEUED) {
      return null;
    }
    if (ForeignFutures.hasTimeout(f)) {
      return null; // orTimeout on the awaited future: the wait ends by itself
    }
    return e;
  }

  /** Parked untimed inside a task (a worker idle in its lane's ring waits for work, not a task). */
  private static boolean parked(Worker w) {
    Thread t = w.thread;
    return t != null && !w.idle && t.getState() == Thread.State.WAITING;
  }

  private static Map<String, Double> figures(Finding f, LaneExecutor l) {
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("workers", (double) f.waits().get(l).size());
    figures.put("queued", (double) l.queuedCount());
    figures.put("lanesInCycle", (double) f.lanes().size());
    figures.put("awaitedHere", (double) f.awaitedIn(l).size());
    return figures;
  }

  private static String describe(Finding f, LaneExecutor l) {
    StringBuilder frames = new StringBuilder();
    for (LaneExecutor lane : f.lanes()) {
      for (Wait w : f.waits().get(lane)) {
        Thread t = w.worker().thread;
        if (t == null) {
          continue;
        }
        frames.append("  ").append(t.getName()).append(" (").append(t.getState()).append(") waits")
            .append(w.viaLanesFuture() ? " (lanes future)" : " (CompletableFuture)")
            .append(" on ").append(w.awaited()).append('\n');
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(st.length, 12); i++) {
          frames.append("      at ").append(st[i]).append('\n');
        }
      }
    }
    List<String> names = new ArrayList<>();
    for (LaneExecutor lane : f.lanes()) {
      names.add('"' + lane.name() + '"');
    }
    String where =
        f.lanes().size() == 1
            ? "in lane \"" + l.name() + "\": all " + f.waits().get(l).size()
                + " workers wait on tasks queued behind them in the same lane"
            : "across lanes " + String.join(", ", names) + ": every worker of each waits on a task"
                + " queued in one of them";
    return String.format(Locale.ROOT,
        "starvation deadlock %s (%d queued in \"%s\", %d of them awaited); policy %s. Workers:%n%s",
        where, l.queuedCount(), l.name(), f.awaitedIn(l).size(), l.health.policy(), frames);
  }
}
