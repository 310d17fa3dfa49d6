package dev.lanes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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
 *       wait ({@link LaneFuture.WaitTracker}); a timed {@code get} never counts;
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
 * <p><b>Suspicion.</b> Where {@code java.util.concurrent} is not open, a wait on a JDK future
 * cannot be tied to a task, so such a cycle cannot be proven. A lane is then <em>suspected</em>
 * when every worker is parked, with no timeout, either on a lanes future of a task queued here or
 * (inside a task) on a {@code CompletableFuture}, and each worker parked on a {@code
 * CompletableFuture} submitted, from its own thread, a {@code runAsync}/{@code supplyAsync} task
 * still queued here (a JDK async task's envelope records the worker that submitted it). Which
 * future a worker waits on cannot be read, so this is evidence, not proof: the lane's monitor
 * reports it as suspected once it held, with the same tasks running, for the detection period,
 * and never acts on it.
 *
 * <p><b>Concurrency design.</b> One analysis runs at a time (its caller, {@link HealthMonitor},
 * holds a lock around it and the telling of its findings); it reads the lanes'
 * worker sets, queues and envelope states without their locks, a racy view made safe by what it
 * demands: a worker about to take a queued task is running, not waiting, so its lane is not stuck.
 * Findings go to each lane's {@link HealthMonitor}, which decides what to do under its own lock;
 * the cures (failing or running the awaited tasks) run after every lock is released, because they
 * complete futures and so run user code.
 */
final class Deadlocks {
  private Deadlocks() {}

  /**
   * A lane as the analysis reads it; its health monitor implements it over the lane's parts. The
   * reads are racy (see "No free capacity, read safely" in the class comment).
   */
  interface Watched {
    String name();

    /** The lane as its tasks' futures name it. */
    LaneFuture.Home home();

    boolean stoppedOrTerminated();

    int queuedCount();

    HealthSettings.DeadlockAction policy();

    /** The envelopes queued now (a racy scan). */
    List<LaneFuture<?>> queuedEnvelopes();

    /** No worker or permit is free to start a queued task. */
    boolean noFreeCapacity();

    /** Tasks that may run at once. */
    int concurrency();

    /** Permits in use (virtual lane) or core workers (platform lane). */
    int capacityInUse();

    /** Workers whose thread was started and has not exited (the count). */
    int liveWorkers();

    /** The same workers (a concurrent set; may miss one being added or removed). */
    Collection<PoolWorker> workers();
  }

  /** One worker's proven wait: the queued task it waits on, and how that was seen. */
  record Wait(PoolWorker worker, LaneFuture<?> awaited, boolean viaLanesFuture) {}

  /**
   * A lane suspected (not proven) to be in a starvation deadlock through JDK futures: {@code
   * futureWaiters} workers parked on a {@code CompletableFuture}, {@code lanesWaiters} on lanes
   * futures of tasks queued here, {@code asyncQueued} {@code runAsync}/{@code supplyAsync} tasks
   * queued. {@code signature} changes whenever a worker moves on to another task.
   */
  record Suspicion(Watched lane, List<PoolWorker> workers, int futureWaiters, int lanesWaiters,
      int asyncQueued, long signature) {}

  /** What one analysis found: the proven cycles (or null) and the suspected lanes. */
  record Analysis(Finding proven, Map<Watched, Suspicion> suspected) {}

  /** A stuck set of lanes, with every worker's wait. */
  record Finding(Set<Watched> lanes, Map<Watched, List<Wait>> waits) {
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
    List<LaneFuture<?>> awaitedIn(Watched lane) {
      Set<LaneFuture<?>> out = new LinkedHashSet<>();
      for (List<Wait> ws : waits.values()) {
        for (Wait w : ws) {
          if (w.awaited().lane == lane.home()) {
            out.add(w.awaited());
          }
        }
      }
      return new ArrayList<>(out);
    }
  }

  /** The stuck lanes among {@code lanes} (proven), and the suspected ones. */
  static Analysis analyse(List<Watched> lanes) {
    // Lanes that could be stuck: no free capacity, a worker at all, and every worker blocked.
    Set<Watched> stuck = new LinkedHashSet<>();
    Map<Watched, List<PoolWorker>> workersOf = new HashMap<>();
    Map<LaneFuture.Home, Watched> byHome = new IdentityHashMap<>();
    for (Watched l : lanes) {
      byHome.put(l.home(), l);
      if (l.stoppedOrTerminated() || !l.noFreeCapacity()) {
        continue;
      }
      List<PoolWorker> live = everyWorkerBlocked(l);
      if (live != null) {
        stuck.add(l);
        workersOf.put(l, live);
      }
    }
    Map<Watched, Suspicion> suspected = new LinkedHashMap<>();
    if (stuck.isEmpty()) {
      return new Analysis(null, suspected);
    }
    // Threads parked on the futures of tasks queued in those lanes.
    Map<Thread, LaneFuture<?>> parkedOn = new IdentityHashMap<>();
    if (ForeignFutures.isAvailable()) {
      List<Thread> waiters = new ArrayList<>();
      for (Watched l : stuck) {
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
    Map<Watched, List<Wait>> waits = new LinkedHashMap<>();
    for (Watched l : stuck) {
      List<Wait> ws = new ArrayList<>();
      for (PoolWorker w : workersOf.get(l)) {
        LaneFuture<?> e = registeredWait(w);
        boolean viaLanes = e != null;
        if (e == null) {
          Thread t = w.thread();
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
      } else if (!ForeignFutures.isAvailable()) {
        Suspicion s = suspect(l, workersOf.get(l)); // a wait we cannot read: what does it look like?
        if (s != null) {
          suspected.put(l, s);
        }
      }
    }
    stuck.retainAll(waits.keySet());
    // Greatest fixed point: a lane stays only while every wait of it targets a stuck lane.
    boolean changed = true;
    while (changed) {
      changed = false;
      for (var it = stuck.iterator(); it.hasNext(); ) {
        Watched l = it.next();
        for (Wait w : waits.get(l)) {
          if (!stuck.contains(byHome.get(w.awaited().lane))) {
            it.remove();
            waits.remove(l);
            changed = true;
            break;
          }
        }
      }
    }
    return new Analysis(stuck.isEmpty() ? null : new Finding(stuck, waits), suspected);
  }

  /**
   * The lane's workers if every worker that holds its capacity is in the set and blocked (see
   * "No free capacity, read safely" in the class comment), else null.
   */
  private static List<PoolWorker> everyWorkerBlocked(Watched l) {
    int live = l.liveWorkers();
    int held = l.capacityInUse();
    if (held < l.concurrency() || live == 0) {
      return null;
    }
    List<PoolWorker> seen = new ArrayList<>(l.workers());
    if (l.liveWorkers() != live || l.capacityInUse() != held || seen.size() != live) {
      return null; // a worker is starting or leaving: look again next time
    }
    int holders = 0;
    for (PoolWorker w : seen) {
      if (!(w.entered() && (registeredWait(w) != null || parked(w)))) {
        return null;
      }
      if (w.kind() != PoolWorker.Kind.COMPENSATION) {
        holders++;
      }
    }
    return holders == held ? seen : null;
  }

  /**
   * A lane whose every worker is blocked, at least one of them in a wait lanes cannot read (the
   * JDK's futures are closed to it): suspected if the evidence described under "Suspicion" in the
   * class comment is there, else null.
   */
  private static Suspicion suspect(Watched l, List<PoolWorker> workers) {
    List<Long> since = new ArrayList<>(); // when each CompletableFuture waiter's task was accepted
    List<PoolWorker> cfWaiters = new ArrayList<>();
    int lanesWaiters = 0;
    long signature = 17;
    for (PoolWorker w : workers) {
      LaneFuture<?> e = registeredWait(w);
      LaneFuture<?> running = w.current();
      if (running != null) {
        signature = signature * 31
            + (System.identityHashCode(running) ^ running.acceptedNanos ^ running.id);
      }
      if (e != null) {
        if (e.lane != l.home()) {
          return null; // waits on another lane: a suspicion is about one lane only
        }
        lanesWaiters++;
        continue;
      }
      if (w.waitingOn() != null) {
        return null; // a lanes future it waits on with a timeout, or one not queued: no cycle
      }
      Thread t = w.thread();
      if (running == null || !w.isRunningTask() || t == null
          || !ForeignFutures.parkedOnFutureUntimed(t)) {
        return null;
      }
      since.add(running.acceptedNanos);
      cfWaiters.add(w);
    }
    if (since.isEmpty()) {
      return null;
    }
    // Each waiter must have submitted, from its own thread, a JDK async task still queued here.
    java.util.Set<Object> submitters =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    int queuedAsync = 0;
    for (LaneFuture<?> e : l.queuedEnvelopes()) {
      if (!e.handedOut && ForeignFutures.isJdkAsyncTask(e.source)) {
        queuedAsync++;
        if (e.submitter != null) {
          submitters.add(e.submitter);
        }
      }
    }
    for (PoolWorker w : cfWaiters) {
      if (!submitters.contains(w)) {
        return null;
      }
    }
    return new Suspicion(l, workers, since.size(), lanesWaiters, queuedAsync, signature);
  }

  /** The queued task a worker registered an untimed wait on, or null. */
  private static LaneFuture<?> registeredWait(PoolWorker w) {
    LaneFuture<?> f = w.waitingOn();
    if (f == null || w.waitTimed() || f.isDone()) {
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
  private static boolean parked(PoolWorker w) {
    Thread t = w.thread();
    return t != null && !w.idle() && t.getState() == Thread.State.WAITING;
  }

  static Map<String, Double> figures(Suspicion s) {
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("suspectedDeadlock", 1.0);
    figures.put("workers", (double) s.workers().size());
    figures.put("queued", (double) s.lane().queuedCount());
    figures.put("futureWaiters", (double) s.futureWaiters());
    figures.put("asyncQueued", (double) s.asyncQueued());
    return figures;
  }

  static String describe(Suspicion s) {
    StringBuilder frames = new StringBuilder();
    for (PoolWorker w : s.workers()) {
      appendFrames(frames, w, registeredWait(w) != null ? "waits (lanes future) on "
          + registeredWait(w) : "waits on a CompletableFuture");
    }
    Watched l = s.lane();
    return String.format(Locale.ROOT,
        "suspected starvation deadlock in lane \"%s\", not proven: all %d workers wait with no"
            + " timeout (%d on a CompletableFuture), and %d runAsync/supplyAsync tasks are queued"
            + " here, accepted since the tasks those workers run began (%d queued in all). Which"
            + " future a worker waits on cannot be read, because java.util.concurrent is not open"
            + " to lanes (--add-opens java.base/java.util.concurrent=ALL-UNNAMED makes it provable);"
            + " nothing is done about a suspicion (policy %s applies to proven deadlocks only)."
            + " Workers:%n%s",
        l.name(), s.workers().size(), s.futureWaiters(), s.asyncQueued(), l.queuedCount(),
        l.policy(), frames);
  }

  private static void appendFrames(StringBuilder frames, PoolWorker w, String what) {
    Thread t = w.thread();
    if (t == null) {
      return;
    }
    frames.append("  ").append(t.getName()).append(" (").append(t.getState()).append(") ")
        .append(what).append('\n');
    StackTraceElement[] st = t.getStackTrace();
    for (int i = 0; i < Math.min(st.length, 12); i++) {
      frames.append("      at ").append(st[i]).append('\n');
    }
  }

  static Map<String, Double> figures(Finding f, Watched l) {
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("workers", (double) f.waits().get(l).size());
    figures.put("queued", (double) l.queuedCount());
    figures.put("lanesInCycle", (double) f.lanes().size());
    figures.put("awaitedHere", (double) f.awaitedIn(l).size());
    return figures;
  }

  static String describe(Finding f, Watched l) {
    StringBuilder frames = new StringBuilder();
    for (Watched lane : f.lanes()) {
      for (Wait w : f.waits().get(lane)) {
        appendFrames(frames, w.worker(), "waits"
            + (w.viaLanesFuture() ? " (lanes future)" : " (CompletableFuture)") + " on "
            + w.awaited());
      }
    }
    List<String> names = new ArrayList<>();
    for (Watched lane : f.lanes()) {
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
        where, l.queuedCount(), l.name(), f.awaitedIn(l).size(), l.policy(), frames);
  }
}
