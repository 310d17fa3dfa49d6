package dev.lanes.redis;

import dev.lanes.LaneGate;
import dev.lanes.TaskOutcome;
import io.lettuce.core.RedisException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A cap shared by every instance of a service, as a {@link LaneGate}: the lane it gates runs a
 * task only with a global permit from Redis, so that at most {@code cap} tasks run at once across
 * every instance whose lane is gated by a shared cap of the same name on the same Redis; the
 * lane's own concurrency still applies on each instance. Tasks go to the lane as usual ({@code
 * lane.submit}, {@code execute}, {@code @Async}, …): one queue, one set of figures, the lane's.
 *
 * <pre>{@code
 * try (SharedCap shared = SharedCap.builder("partner-api", "redis://127.0.0.1:6379").cap(20).build();
 *     Lane partner = Lane.virtual("partner-api", 10).queueCapacity(1_000).gate(shared).build()) {
 *   CompletableFuture<String> reply = partner.submit("quote", () -> partnerApi.quote(order));
 *   SharedCapStats s = shared.stats();   // s.globalInUse(), s.heldHere(), s.health(), ...
 * }
 * }</pre>
 *
 * <p><b>Design.</b> A worker of the lane that sees a task queued asks {@link #tryEnter}. A permit
 * granted earlier and not yet taken ({@code unclaimed}) is its pass at once; otherwise the worker
 * becomes a <em>waiter</em> (one per worker: waiters are keyed by the worker's {@code ready}, so a
 * worker that asks again while it waits asks Redis for nothing more), Redis is asked for a permit
 * for it, asynchronously, and the worker parks at the gate. So this instance asks for at most as
 * many permits as the lane has workers waiting at the gate (never more than its concurrency), a
 * waiting task holds no permit, and no permit is asked for a task that is not queued. A grant (the
 * acquire script's reply, or a pub/sub notice from a release anywhere) moves the permit to {@code
 * unclaimed} and runs the waiter's {@code ready}; the first worker to ask takes it. A pass is
 * renewed every {@code lease / 3} while its task runs and released (or kept for the next task:
 * below) when the lane exits it, however the task ended (completed, failed, cancelled while it
 * ran — only once its code has returned), or at once if it went unused. A grant nobody takes
 * within a retry interval (its worker left: the task was taken by another worker, or the lane
 * shut down) is released.
 *
 * <p><b>Keeping a permit (issue #27).</b> A global permit whose task ended is not released at
 * once: it is <em>kept</em> ({@code kept}), still held in Redis, for the lane's next queued task,
 * and the next {@code tryEnter} takes it without a call to Redis. The gate cannot see the lane's
 * queue; it relies on the worker loop instead: a worker that ends a task asks the gate again at
 * once (microseconds) if a task is queued, and does not ask if none is. So a kept permit that no
 * worker took within {@link #KEEP_IDLE_NANOS} (1 ms) means the queue emptied, and {@code
 * sweepKept} (on the scheduler thread, scheduled only while permits are kept) releases it. A
 * permit goes back to Redis, for the oldest waiter of any instance, when its <em>quantum</em> is
 * used: {@code quantumTasks} tasks or {@code quantum} of time since a task first took it, whichever
 * comes first; so each instance pays one acquire and one release per quantum instead of per task,
 * and instances that all want more than their share take turns a quantum at a time (Redis's
 * oldest-waiter-first order). A permit is in exactly one of {@code unclaimed}, {@code running} and
 * {@code kept} at a time, moved between them under {@code lock}, and only {@code tryEnter} moves
 * one into {@code running}: a permit is held by at most one running task at any instant. Kept
 * permits are renewed with the running ones, withdrawn (released) when Redis is lost or the cap
 * closes, and never kept off {@code GLOBAL} health or for a pass that ran no task; local-share
 * passes are never kept.
 *
 * <p><b>State and locking.</b> Waiters, unclaimed grants, passes out, kept permits, health and
 * counts are guarded by {@code lock}. Redis is never called under the lock, and neither is a
 * {@code ready}: both are collected as actions and run after it is released. Replies are handled on this shared
 * cap's own scheduler thread ({@code lanes-redis-<name>}), which also renews leases, probes Redis
 * while it is away, asks again for waiting permits (to keep their places, and to find a grant
 * whose notice was lost) and releases unclaimed grants. {@code globalInUse} and {@code
 * globalWaiters} are volatile copies of Redis's last answer. An acquire or a renewal is decided
 * under the lock and sent after it; {@link #close()} sends its releases only once those decided
 * before it are in the connection ({@code callsBeingSent}), so that Redis never runs one after the
 * release of the same id, and a worker whose waiter was withdrawn (Redis lost) while its acquire
 * was on its way releases it again after the acquire. {@code SharedCapLincheckTest} model-checks
 * this protocol with Lincheck (workers' {@code tryEnter} and exit, {@code sweepKept}, a quantum
 * expiring, retries and renewals, Redis lost, {@code close}) against a permit store in memory,
 * through a package-private seam ({@code PermitStore}, and a scheduler and a clock of the test's):
 * no permit in two running tasks, at most {@code cap} running, every permit held in Redis accounted
 * for here, none left after close, no worker left waiting unwoken.
 *
 * <p><b>Failure model.</b> Every Redis call has a timeout. A failed or timed-out call applies the
 * {@link FaultPolicy} once per outage, and wakes every worker waiting at the gate: under {@code
 * failFast()} each then gets {@link LaneGate#REFUSE}, so the lane ends its queued tasks as {@link
 * TaskOutcome#GATE_REFUSED} (and every task queued until Redis answers); under {@code
 * localShare(n)} at most {@code n} passes without a permit are out at once. Nothing here throws
 * into the lane: a Redis client that throws is a failed call. Running tasks keep running through an
 * outage; their permits lapse on Redis's clock if not renewed, and renewing puts back the permits
 * of tasks still running (after a lapse or a restart that lost Redis's data), so Redis's count of
 * holders stays the count of tasks running. The first successful probe sets {@code GLOBAL} again
 * and holds every grant (of every instance) for a settle time of two probe intervals and a call
 * timeout, so the other instances put back their running tasks' permits before new ones are handed
 * out. What this cannot prevent: while a running task's permit is missing from Redis another
 * instance may be granted its place, until the next renewal puts it back (see the module README).
 * {@link #close()} refuses whatever still waits at the gate and waits for the passes out to come
 * back: close the lane first.
 */
public final class SharedCap implements LaneGate, AutoCloseable {

  /**
   * Starts building a shared cap named {@code name} (give the lane's name: instances whose shared
   * caps have the same name share the cap) on the Redis at {@code redisUri}.
   */
  public static Builder builder(String name, String redisUri) {
    return new Builder(name, redisUri);
  }

  private static final AtomicLong INSTANCES = new AtomicLong();

  /**
   * A permit kept for the next task that no worker takes within this long is given back: the
   * lane's queue emptied (a worker that finishes a task asks again within microseconds if a task
   * is queued).
   */
  static final long KEEP_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final String name;
  private final int cap;
  private final Duration lease;
  private final Duration waiterLease;
  private final Duration renewInterval;
  private final Duration probeInterval;
  private final Duration retryInterval;
  private final long quantumNanos;
  private final int quantumTasks;
  private final FaultPolicy policy;
  private final PermitStore permits;
  /** {@code System::nanoTime}; the model check's own clock there. */
  private final LongSupplier clock;
  private final String instanceId;
  private final ScheduledExecutorService scheduler;
  private final AtomicLong ids = new AtomicLong();
  private final List<Consumer<? super SharedCapEvent>> listeners = new CopyOnWriteArrayList<>();
  /** Releases sent and not yet answered: {@link #close()} waits for them before disconnecting. */
  private final java.util.Set<CompletableFuture<Long>> releasesInFlight =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when the last pass out comes back (for {@link #close()}). */
  private final Condition idle = lock.newCondition();
  // Guarded by lock.
  /** Waiters asking Redis for a permit, oldest first, by permit id. */
  private final LinkedHashMap<String, Waiter> waiters = new LinkedHashMap<>();
  /** The same waiters by their worker's {@code ready} (identity: one waiter per worker). */
  private final IdentityHashMap<Runnable, Waiter> waiterOf = new IdentityHashMap<>();
  /** Workers told "not now" while on the local share (or while grants are held), to wake. */
  private final LinkedHashSet<Runnable> parked = new LinkedHashSet<>();
  /** Permits granted to this instance that no worker has taken yet, oldest first. */
  private final ArrayDeque<Grant> unclaimed = new ArrayDeque<>();
  /** Passes out, by permit id: the permit each running task holds (or its local-share slot). */
  private final HashMap<String, Held> running = new HashMap<>();
  /**
   * Global permits kept between tasks, held in Redis but by no running task, oldest kept first:
   * the next worker to ask takes the newest (see "Keeping a permit" in the class comment).
   */
  private final ArrayDeque<Held> kept = new ArrayDeque<>();
  /** Whether {@link #sweepKept} is scheduled. */
  private boolean sweepScheduled;
  private long tasksOnKeptPermits;
  private int runningOnLocalShare;
  /** Passes taken out of {@code running} whose release is not sent yet (close waits for them). */
  private int passesComingBack;
  /**
   * Acquires and renewals decided under the lock and not yet handed to Redis's connection: {@link
   * #close()} sends its release of what it withdrew only after them, so that Redis never runs an
   * acquire or a renewal of an id after its release (which would grant or put back a permit for
   * nobody, held until its lease lapsed).
   */
  private int callsBeingSent;
  private SharedCapHealth health = SharedCapHealth.GLOBAL;
  private long granted;
  private long reinstated;
  private long refused;
  private long redisFailures;

  private volatile long globalInUse;
  private volatile long globalWaiters;

  private SharedCap(Builder b) {
    this(b, null, null, System::nanoTime);
  }

  /**
   * A shared cap on {@code store} (null: Redis at the builder's URI), whose scheduler work runs on
   * {@code schedulerOrNull} (null: its own thread) and whose time is {@code clock}. Package
   * private: the seam of {@code SharedCapLincheckTest}, which drives the scheduler's work and the
   * clock itself.
   */
  SharedCap(Builder b, PermitStore store, ScheduledExecutorService schedulerOrNull,
      LongSupplier clock) {
    this.name = b.name;
    this.cap = b.cap;
    this.lease = b.lease;
    this.waiterLease = b.waiterLease;
    this.renewInterval = b.lease.dividedBy(3);
    this.probeInterval = b.probeInterval;
    this.retryInterval = b.retryInterval;
    this.quantumNanos = b.quantum.toNanos();
    this.quantumTasks = b.quantumTasks;
    this.policy = b.policy;
    this.clock = clock;
    // pid@host, then a number unique in this JVM and a random part against a reused pid.
    this.instanceId = ManagementFactory.getRuntimeMXBean().getName() + "-"
        + INSTANCES.incrementAndGet() + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16));
    this.scheduler = schedulerOrNull != null ? schedulerOrNull : newScheduler(name);
    this.permits = store != null ? store : new RedisPermits(b.redisUri, name, b.callTimeout);
    try {
      permits.connect(this::onGrantNotice);
    } catch (RedisException e) {
      lock.lock();
      try {
        redisFailures++;
        health = policy.failsFast() ? SharedCapHealth.UNAVAILABLE : SharedCapHealth.LOCAL_SHARE;
      } finally {
        lock.unlock();
      }
      emit(SharedCapEvent.Kind.REDIS_LOST, "cannot connect: " + e.getMessage());
    }
    scheduler.schedule(this::heartbeat, firstHeartbeatDelay(), TimeUnit.NANOSECONDS);
    scheduler.scheduleWithFixedDelay(this::retryWaiters, retryInterval.toNanos(),
        retryInterval.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static ScheduledExecutorService newScheduler(String name) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "lanes-redis-" + name);
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return s;
  }

  private long firstHeartbeatDelay() {
    lock.lock();
    try {
      return (health == SharedCapHealth.GLOBAL ? renewInterval : probeInterval).toNanos();
    } finally {
      lock.unlock();
    }
  }

  /** The shared cap's name (its lane's), which keys it in Redis. */
  public String name() {
    return name;
  }

  /** The most tasks running at once across every instance. */
  public int cap() {
    return cap;
  }

  public SharedCapHealth health() {
    lock.lock();
    try {
      return health;
    } finally {
      lock.unlock();
    }
  }

  /** This instance's id in Redis: permit ids are {@code <instanceId>:<n>}. */
  public String instanceId() {
    return instanceId;
  }

  /** Calls {@code listener} on every event, on the thread where it happened; keep it quick. */
  public void onEvent(Consumer<? super SharedCapEvent> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(Consumer<? super SharedCapEvent> listener) {
    listeners.remove(listener);
  }

  // ---------------------------------------------------------------------------------------------
  // The gate

  /**
   * A worker of the lane asks to start a task: a pass if a kept or granted permit is at hand (or,
   * on the local share, if the share has room), {@link LaneGate#REFUSE} while Redis is away under
   * fail-fast or after {@link #close()}, else null (a permit is asked for; {@code ready} runs when
   * one is granted).
   */
  @Override
  public Pass tryEnter(Runnable ready) {
    Objects.requireNonNull(ready, "ready");
    Waiter fresh = null;
    lock.lock();
    try {
      switch (health) {
        case CLOSED, UNAVAILABLE -> {
          refused++;
          return LaneGate.REFUSE;
        }
        case LOCAL_SHARE -> {
          if (runningOnLocalShare < policy.localShare()) {
            Held h = new Held(instanceId + ":" + ids.incrementAndGet(), true, 0);
            running.put(h.id, h);
            runningOnLocalShare++;
            return new Permit(h);
          }
          parked.add(ready);
          return null;
        }
        case GLOBAL -> {
          Held k = kept.pollLast(); // the newest: most likely the asking worker's own
          if (k != null) {
            running.put(k.id, k);
            tasksOnKeptPermits++;
            return new Permit(k);
          }
          Grant g = unclaimed.poll();
          if (g != null) {
            Held h = new Held(g.id, false, clock.getAsLong());
            running.put(h.id, h);
            return new Permit(h);
          }
          if (!waiterOf.containsKey(ready)) {
            fresh = new Waiter(instanceId + ":" + ids.incrementAndGet(), ready);
            waiters.put(fresh.id, fresh);
            waiterOf.put(ready, fresh);
          }
        }
      }
    } finally {
      lock.unlock();
    }
    if (fresh != null) {
      ask(List.of(fresh));
    }
    return null;
  }

  /**
   * One task's pass: the permit it holds. Exited once by the lane (see {@link LaneGate.Pass}); a
   * second exit changes nothing, so a permit kept for the next task can never be kept twice.
   */
  private final class Permit implements Pass {
    final Held held;
    private boolean exited; // guarded by lock

    Permit(Held held) {
      this.held = held;
    }

    @Override
    public void exit(TaskOutcome outcome) {
      passBack(this, outcome);
    }

    @Override
    public String toString() {
      return "permit " + held.id;
    }
  }

  /**
   * The lane gives a pass back. A global permit whose task ran, within its quantum, while Redis
   * answers, is kept for the next task (no call to Redis); any other pass is released.
   */
  private void passBack(Permit pass, TaskOutcome outcome) {
    List<Runnable> wake = List.of();
    Held h = pass.held;
    String id = h.id;
    lock.lock();
    try {
      if (pass.exited) {
        return;
      }
      pass.exited = true;
      running.remove(id);
      if (h.local) {
        runningOnLocalShare--;
        wake = takeParkedLocked(); // room on the local share
      } else if (outcome != null && health == SharedCapHealth.GLOBAL) {
        long now = clock.getAsLong();
        if (++h.tasks < quantumTasks && now - h.since < quantumNanos) {
          h.keptAt = now;
          kept.addLast(h);
          if (!sweepScheduled) {
            sweepScheduled = scheduleSweep(KEEP_IDLE_NANOS);
          }
          return;
        }
      }
      passesComingBack++;
    } finally {
      lock.unlock();
    }
    // A pass of the local share may have had its id put into Redis by a renewal after Redis came
    // back: release it too (releasing an id Redis does not hold changes nothing). Sent before
    // close() may see the pass back, so that close waits for its answer.
    try {
      release(id);
    } finally {
      passCameBack();
    }
    run(wake);
  }

  /** Under lock: the parked workers' {@code ready}s, to run once the lock is released. */
  private List<Runnable> takeParkedLocked() {
    List<Runnable> wake = new ArrayList<>(parked);
    parked.clear();
    return wake;
  }

  /** Under lock: withdraws every waiter; returns their ids (to release) and wakes their workers. */
  private List<String> withdrawWaitersLocked(List<Runnable> wake) {
    List<String> withdrawn = new ArrayList<>(waiters.keySet());
    for (Waiter w : waiters.values()) {
      wake.add(w.ready);
    }
    waiters.clear();
    waiterOf.clear();
    for (Grant g : unclaimed) {
      withdrawn.add(g.id);
    }
    unclaimed.clear();
    for (Held h : kept) {
      withdrawn.add(h.id);
    }
    kept.clear();
    wake.addAll(takeParkedLocked());
    return withdrawn;
  }

  /** Asks Redis for a permit for each of {@code batch} that has no call under way, in one call. */
  private void ask(List<Waiter> batch) {
    List<Waiter> asking = new ArrayList<>(batch.size());
    lock.lock();
    try {
      for (Waiter w : batch) {
        if (w.callInFlight) {
          w.again = true;
        } else if (waiters.get(w.id) == w) {
          w.callInFlight = true;
          asking.add(w);
        }
      }
      if (asking.isEmpty()) {
        return;
      }
      callsBeingSent++;
    } finally {
      lock.unlock();
    }
    List<String> idsAsked = asking.stream().map(w -> w.id).toList();
    CompletionStage<RedisPermits.Acquired> reply;
    try {
      reply = permits.acquire(idsAsked, cap, lease, waiterLease);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    } finally {
      askSent(asking);
    }
    try {
      reply.whenCompleteAsync((a, failure) -> onAcquireReply(asking, a, failure), scheduler);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile: close() withdrew the waiter, and askSent released it again after this
      // acquire, so Redis takes back a permit it granted here
    }
  }

  /**
   * An acquire for {@code asked} is in Redis's connection (or failed). A waiter withdrawn while it
   * was on its way (Redis lost, or close) had its release sent before it, so Redis may queue it (or
   * grant it a permit) again for nobody: it is released once more, now after the acquire, and
   * before close may go on.
   */
  private void askSent(List<Waiter> asked) {
    List<String> withdrawn = new ArrayList<>();
    lock.lock();
    try {
      for (Waiter w : asked) {
        if (waiters.get(w.id) != w && !heldHereLocked(w.id)) {
          withdrawn.add(w.id); // not granted meanwhile: withdrawn
        }
      }
    } finally {
      lock.unlock();
    }
    try {
      if (!withdrawn.isEmpty()) {
        releaseAll(withdrawn);
      }
    } finally {
      callSent();
    }
  }

  /** An acquire or renewal is in Redis's connection (or failed): close may release after it. */
  private void callSent() {
    lock.lock();
    try {
      if (--callsBeingSent == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  private void onAcquireReply(List<Waiter> asked, RedisPermits.Acquired a, Throwable failure) {
    List<Waiter> again = new ArrayList<>();
    lock.lock();
    try {
      for (Waiter w : asked) {
        w.callInFlight = false;
        if (w.again) {
          w.again = false;
          again.add(w);
        }
      }
    } finally {
      lock.unlock();
    }
    if (failure != null) {
      redisFailed(failure);
      return;
    }
    globalInUse = a.holders();
    globalWaiters = a.waiters();
    for (int i = 0; i < asked.size(); i++) {
      if (a.granted().get(i)) {
        granted(asked.get(i).id);
      }
    }
    if (!again.isEmpty()) {
      ask(again);
    }
  }

  /** A grant notice from Redis: a permit was handed to a waiter, maybe one of ours. */
  private void onGrantNotice(String id) {
    if (id.startsWith(instanceId + ":")) {
      try {
        scheduler.execute(() -> granted(id));
      } catch (RejectedExecutionException e) {
        // closed: a permit granted now lapses at the end of its lease
      }
    }
  }

  /**
   * Permit {@code id} is ours (said by an acquire reply or a notice; both may come, in either
   * order). A waiter still waiting puts it among the unclaimed grants and wakes its worker; any
   * other grant (its waiter was withdrawn, or it was already seen) is released or ignored.
   */
  private void granted(String id) {
    Runnable wake = null;
    boolean releaseIt = false;
    lock.lock();
    try {
      Waiter w = waiters.remove(id);
      if (w != null) {
        waiterOf.remove(w.ready);
        granted++;
        if (health == SharedCapHealth.GLOBAL) {
          unclaimed.add(new Grant(id, clock.getAsLong()));
          wake = w.ready;
        } else {
          releaseIt = true;
        }
      } else if (!heldHereLocked(id)) {
        releaseIt = true;
      }
    } finally {
      lock.unlock();
    }
    if (releaseIt) {
      release(id);
    }
    if (wake != null) {
      wake.run();
    }
  }

  private void release(String id) {
    releaseAll(List.of(id));
  }

  private void releaseAll(List<String> ids) {
    CompletableFuture<Long> reply;
    try {
      reply = permits.release(ids).toCompletableFuture();
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    releasesInFlight.add(reply);
    CompletableFuture<Long> sent = reply;
    // A release that fails is not retried: the permit lapses at the end of its lease.
    reply.whenComplete((n, failure) -> {
      releasesInFlight.remove(sent);
      if (failure != null) {
        try {
          scheduler.execute(() -> redisFailed(failure));
        } catch (RejectedExecutionException closing) {
          // closed meanwhile: nothing depends on the health any more
        }
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The scheduler thread: kept permits, retries, stale grants, renewals and probes

  /** Under lock: whether permit {@code id} is ours now (running, kept, or granted unclaimed). */
  private boolean heldHereLocked(String id) {
    return running.containsKey(id) || kept.stream().anyMatch(k -> k.id.equals(id))
        || unclaimed.stream().anyMatch(g -> g.id.equals(id));
  }

  /** Under lock: schedules {@link #sweepKept} in {@code nanos}; false if closing. */
  private boolean scheduleSweep(long nanos) {
    try {
      scheduler.schedule(this::sweepKept, nanos, TimeUnit.NANOSECONDS);
      return true;
    } catch (RejectedExecutionException closing) {
      return false;
    }
  }

  /**
   * Gives back the permits kept for a next task that no worker took within {@link
   * #KEEP_IDLE_NANOS}: the lane's queue emptied (its workers went idle instead of asking).
   * Reschedules itself while permits are kept.
   */
  private void sweepKept() {
    List<String> unused = new ArrayList<>();
    lock.lock();
    try {
      long now = clock.getAsLong();
      while (!kept.isEmpty() && now - kept.peekFirst().keptAt >= KEEP_IDLE_NANOS) {
        unused.add(kept.pollFirst().id);
      }
      sweepScheduled = !kept.isEmpty()
          && scheduleSweep(kept.peekFirst().keptAt + KEEP_IDLE_NANOS - now);
      passesComingBack += unused.isEmpty() ? 0 : 1;
    } finally {
      lock.unlock();
    }
    if (unused.isEmpty()) {
      return;
    }
    try {
      releaseAll(unused);
    } finally {
      passCameBack();
    }
  }

  private void retryWaiters() {
    List<Waiter> again;
    List<String> stale = new ArrayList<>();
    lock.lock();
    try {
      if (health != SharedCapHealth.GLOBAL) {
        return;
      }
      long now = clock.getAsLong();
      while (!unclaimed.isEmpty() && now - unclaimed.peek().since >= retryInterval.toNanos()) {
        stale.add(unclaimed.poll().id); // its worker did not come for it: someone else may
      }
      again = new ArrayList<>(waiters.values());
    } finally {
      lock.unlock();
    }
    stale.forEach(this::release);
    if (!again.isEmpty()) {
      ask(again);
    }
  }

  private void heartbeat() {
    if (!permits.connected()) {
      try {
        permits.connect(this::onGrantNotice);
      } catch (RuntimeException e) {
        redisFailed(e);
        reschedule();
        return;
      }
    }
    List<String> held;
    Duration settle;
    lock.lock();
    try {
      if (health == SharedCapHealth.CLOSED) {
        return;
      }
      held = new ArrayList<>(running.keySet());
      for (Grant g : unclaimed) {
        held.add(g.id);
      }
      for (Held k : kept) {
        held.add(k.id);
      }
      // Back from an outage: hold every grant until the other instances had time to probe and put
      // back the permits of the tasks they kept running (two probes and a call).
      settle = health == SharedCapHealth.GLOBAL ? Duration.ZERO
          : probeInterval.multipliedBy(2).plus(permits.callTimeout());
      callsBeingSent++;
    } finally {
      lock.unlock();
    }
    CompletionStage<RedisPermits.Renewed> reply;
    try {
      reply = permits.renew(held, lease, settle);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    } finally {
      callSent();
    }
    try {
      reply.whenCompleteAsync((r, failure) -> {
        try {
          if (failure != null) {
            redisFailed(failure);
          } else {
            renewed(r);
          }
        } finally {
          reschedule();
        }
      }, scheduler);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile
    }
  }

  private void reschedule() {
    Duration next;
    lock.lock();
    try {
      if (health == SharedCapHealth.CLOSED) {
        return;
      }
      next = health == SharedCapHealth.GLOBAL ? renewInterval : probeInterval;
    } finally {
      lock.unlock();
    }
    try {
      scheduler.schedule(this::heartbeat, next.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void renewed(RedisPermits.Renewed r) {
    globalInUse = r.holders();
    globalWaiters = r.waiters();
    List<String> stale = new ArrayList<>();
    List<Runnable> wake = new ArrayList<>();
    boolean back = false;
    int putBack;
    lock.lock();
    try {
      putBack = 0;
      for (String id : r.reinstated()) {
        if (running.containsKey(id) || kept.stream().anyMatch(k -> k.id.equals(id))) {
          putBack++;
        } else if (unclaimed.stream().noneMatch(g -> g.id.equals(id))) {
          stale.add(id); // ended between the snapshot and the renewal: give it back again
        }
      }
      reinstated += putBack;
      if (health == SharedCapHealth.LOCAL_SHARE || health == SharedCapHealth.UNAVAILABLE) {
        health = SharedCapHealth.GLOBAL;
        back = true;
        wake.addAll(takeParkedLocked()); // they ask again, now for global permits
      }
    } finally {
      lock.unlock();
    }
    stale.forEach(this::release);
    if (putBack > 0) {
      emit(SharedCapEvent.Kind.PERMITS_REINSTATED,
          putBack + " permit(s) of running tasks were missing from Redis and were put back");
    }
    if (back) {
      emit(SharedCapEvent.Kind.REDIS_BACK, "Redis answered; the global cap of " + cap + " applies");
    }
    run(wake);
  }

  /** A call to Redis failed or timed out: apply the fault policy (once per outage). */
  private void redisFailed(Throwable failure) {
    Throwable cause = RedisPermits.unwrap(failure);
    List<Runnable> wake = new ArrayList<>();
    List<String> withdrawn;
    SharedCapHealth now;
    lock.lock();
    try {
      redisFailures++;
      if (health != SharedCapHealth.GLOBAL) {
        return;
      }
      health = policy.failsFast() ? SharedCapHealth.UNAVAILABLE : SharedCapHealth.LOCAL_SHARE;
      now = health;
      withdrawn = withdrawWaitersLocked(wake);
    } finally {
      lock.unlock();
    }
    emit(SharedCapEvent.Kind.REDIS_LOST, cause.getClass().getSimpleName() + ": "
        + cause.getMessage() + "; now " + now);
    // Best effort: a waiter Redis still holds lapses after its waiter lease anyway.
    withdrawn.forEach(id -> permits.release(List.of(id)));
    run(wake); // the workers ask again: refused (fail-fast) or on the local share
  }

  private void emit(SharedCapEvent.Kind kind, String detail) {
    SharedCapEvent event = new SharedCapEvent(name, kind, health(), detail, Instant.now());
    for (Consumer<? super SharedCapEvent> l : listeners) {
      try {
        l.accept(event);
      } catch (RuntimeException e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
      }
    }
  }

  private static void run(List<Runnable> actions) {
    for (Runnable a : actions) {
      a.run();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Figures and lifecycle

  /** A snapshot of this shared cap on this instance (the lane's own figures are the lane's). */
  public SharedCapStats stats() {
    lock.lock();
    try {
      return new SharedCapStats(name, cap, health, waiters.size(), unclaimed.size(),
          running.size() - runningOnLocalShare, runningOnLocalShare, globalInUse, globalWaiters,
          granted, reinstated, refused, redisFailures, kept.size(), tasksOnKeptPermits);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "SharedCap[" + name + ": global cap " + cap + ", held here "
          + (running.size() - runningOnLocalShare) + ", kept " + kept.size() + ", waiting "
          + waiters.size()
          + ", health " + health + "]";
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes: refuses whatever waits at the gate from now on (the lane ends those tasks as {@link
   * TaskOutcome#GATE_REFUSED}), waits for the passes out to come back (their tasks to end, as
   * {@code ExecutorService.close} does), gives every permit back and closes the connection. Close
   * the lane first (a try-with-resources that opens the shared cap first does).
   */
  @Override
  public void close() {
    List<Runnable> wake = new ArrayList<>();
    List<String> withdrawn;
    lock.lock();
    try {
      if (health == SharedCapHealth.CLOSED) {
        return;
      }
      health = SharedCapHealth.CLOSED;
      withdrawn = withdrawWaitersLocked(wake);
    } finally {
      lock.unlock();
    }
    run(wake);
    boolean interrupted = false;
    lock.lock();
    try {
      // The passes out, and the acquires and renewals on their way for what was just withdrawn:
      // its release (below) must reach Redis after them.
      while (!running.isEmpty() || passesComingBack > 0 || callsBeingSent > 0) {
        try {
          idle.await();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      lock.unlock();
    }
    if (!withdrawn.isEmpty()) {
      try {
        permits.release(withdrawn).toCompletableFuture()
            .get(permits.callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (Exception e) {
        // They lapse after their (waiter) lease.
      }
    }
    // Let the last releases (sent by ending tasks) be answered before disconnecting.
    try {
      CompletableFuture.allOf(releasesInFlight.toArray(CompletableFuture[]::new))
          .get(permits.callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      interrupted = true;
    } catch (Exception e) {
      // Unanswered releases lapse at the end of their lease.
    }
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(permits.callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      interrupted = true;
      scheduler.shutdownNow();
    }
    permits.close();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A permit out of Redis's hands on this instance: running a task, or kept for the next one.
   * Fields other than {@code id} and {@code local} are guarded by lock.
   */
  private static final class Held {
    final String id;
    final boolean local; // a slot of the local share: no permit in Redis, never kept
    final long since; // when a task first took it: its quantum runs from here
    int tasks; // tasks it ran since
    long keptAt; // when it was last kept between tasks

    Held(String id, boolean local, long since) {
      this.id = id;
      this.local = local;
      this.since = since;
    }
  }

  /** A waiter: a permit asked for on behalf of one worker (its {@code ready}). */
  private static final class Waiter {
    final String id;
    final Runnable ready;
    boolean callInFlight; // guarded by lock
    boolean again; // guarded by lock

    Waiter(String id, Runnable ready) {
      this.id = id;
      this.ready = ready;
    }
  }

  /** A permit granted to this instance that no worker has taken yet. */
  private record Grant(String id, long since) {}

  /** Settings of a shared cap; each is checked when set, and the combination in {@link #build()}. */
  public static final class Builder {
    private final String name;
    private final String redisUri;
    private int cap = -1;
    private Duration lease = Duration.ofSeconds(5);
    private Duration waiterLease = Duration.ofSeconds(2);
    private Duration callTimeout = Duration.ofMillis(500);
    private Duration probeInterval = Duration.ofMillis(200);
    private Duration retryInterval = Duration.ofMillis(200);
    private Duration quantum = Duration.ofMillis(10);
    private int quantumTasks = 1_000;
    private FaultPolicy policy = FaultPolicy.failFast();

    private Builder(String name, String redisUri) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(
            "shared cap name must not be blank (give the lane's name), was "
                + (name == null ? "null" : "\"" + name + "\""));
      }
      this.name = name.strip();
      this.redisUri = Objects.requireNonNull(redisUri, "redisUri");
      try {
        io.lettuce.core.RedisURI.create(redisUri);
      } catch (IllegalArgumentException e) {
        throw error("redisUri must be a Redis URI such as redis://127.0.0.1:6379, was \""
            + redisUri + "\" (" + e.getMessage() + ")");
      }
    }

    /** The most tasks running at once across every instance (required; 1 to 1,000,000). */
    public Builder cap(int cap) {
      if (cap < 1 || cap > 1_000_000) {
        throw error("cap must be between 1 and 1000000, was " + cap);
      }
      this.cap = cap;
      return this;
    }

    /**
     * How long a permit lives without renewal (default 5 s): a dead instance's permits come back
     * after at most this long. Renewed every third of it. At least 300 ms.
     */
    public Builder lease(Duration lease) {
      this.lease = positive("lease", lease, Duration.ofMillis(300));
      return this;
    }

    /** How long a waiter keeps its place without asking again (default 2 s; at least 100 ms). */
    public Builder waiterLease(Duration waiterLease) {
      this.waiterLease = positive("waiterLease", waiterLease, Duration.ofMillis(100));
      return this;
    }

    /** The most any call to Redis may take (default 500 ms; at least 10 ms). */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = positive("callTimeout", callTimeout, Duration.ofMillis(10));
      return this;
    }

    /** How often Redis is probed while it is away (default 200 ms; at least 10 ms). */
    public Builder probeInterval(Duration probeInterval) {
      this.probeInterval = positive("probeInterval", probeInterval, Duration.ofMillis(10));
      return this;
    }

    /**
     * How often waiters ask again (default 200 ms; at least 5 ms): it keeps their place (their
     * waiter lease), and finds a grant whose notice was lost while the subscription reconnected.
     * A grant no worker took for this long is released.
     */
    public Builder retryInterval(Duration retryInterval) {
      this.retryInterval = positive("retryInterval", retryInterval, Duration.ofMillis(5));
      return this;
    }

    /**
     * How long one global permit may serve this instance's queued tasks, one after the other,
     * before it goes back to Redis for the oldest waiter of any instance (default 10 ms; 0 to
     * 1 minute, and shorter than the lease). A permit goes back when the first of {@code quantum}
     * and {@link #quantumTasks} is reached, or when the lane's queue empties. {@code
     * Duration.ZERO}: a permit per task (one acquire and one release each), as before issue #27.
     */
    public Builder quantum(Duration quantum) {
      Objects.requireNonNull(quantum, "quantum");
      if (quantum.isNegative() || quantum.compareTo(Duration.ofMinutes(1)) > 0) {
        throw error("quantum must be between 0 ms and 60000 ms, was " + quantum.toMillis() + " ms");
      }
      this.quantum = quantum;
      return this;
    }

    /**
     * The most tasks one global permit runs on this instance before it goes back to Redis
     * (default 1,000; 1 to 1,000,000; 1: a permit per task). See {@link #quantum}.
     */
    public Builder quantumTasks(int quantumTasks) {
      if (quantumTasks < 1 || quantumTasks > 1_000_000) {
        throw error("quantumTasks must be between 1 and 1000000, was " + quantumTasks);
      }
      this.quantumTasks = quantumTasks;
      return this;
    }

    /** What to do while Redis is away (default {@link FaultPolicy#failFast()}). */
    public Builder faultPolicy(FaultPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Connects to Redis (at most the call timeout; if Redis is away, the shared cap starts in the
     * fault policy's state and probes) and starts renewing. Give the result to the lane's builder
     * ({@code LaneBuilder.gate}).
     */
    public SharedCap build() {
      check();
      return new SharedCap(this);
    }

    /** Builds on a permit store, a scheduler and a clock of the caller's (the model check's). */
    SharedCap build(PermitStore store, ScheduledExecutorService scheduler, LongSupplier clock) {
      check();
      return new SharedCap(this, Objects.requireNonNull(store, "store"),
          Objects.requireNonNull(scheduler, "scheduler"), Objects.requireNonNull(clock, "clock"));
    }

    private void check() {
      if (cap < 0) {
        throw error("cap is required (the most tasks running at once across every instance)");
      }
      if (callTimeout.compareTo(lease.dividedBy(3)) >= 0) {
        throw error("callTimeout must be shorter than a third of the lease (" + lease.dividedBy(3)
            .toMillis() + " ms), was " + callTimeout.toMillis() + " ms");
      }
      if (quantum.compareTo(lease) >= 0) {
        throw error("quantum must be shorter than the lease (" + lease.toMillis() + " ms), was "
            + quantum.toMillis() + " ms");
      }
      if (retryInterval.compareTo(waiterLease.dividedBy(2)) >= 0) {
        throw error("retryInterval must be shorter than half the waiterLease ("
            + waiterLease.dividedBy(2).toMillis() + " ms), was " + retryInterval.toMillis() + " ms");
      }
    }

    private Duration positive(String setting, Duration value, Duration min) {
      Objects.requireNonNull(value, setting);
      if (value.compareTo(min) < 0) {
        throw error(setting + " must be ≥ " + min.toMillis() + " ms, was " + value.toMillis() + " ms");
      }
      return value;
    }

    private IllegalArgumentException error(String message) {
      return new IllegalArgumentException("shared cap \"" + name + "\": " + message);
    }
  }

  /** A pass that was on its way back has come back: {@code close()} waits for the last one. */
  private void passCameBack() {
    lock.lock();
    try {
      if (--passesComingBack == 0 && running.isEmpty()) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }
}
