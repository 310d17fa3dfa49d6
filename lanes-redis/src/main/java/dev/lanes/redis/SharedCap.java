package dev.lanes.redis;

import dev.lanes.Lane;
import io.lettuce.core.RedisException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A cap shared by every instance of a service: the lane of the same name on each instance runs a
 * task only with a global permit from Redis, so that at most {@code cap} tasks run at once across
 * all of them; the lane's own cap still applies on each instance.
 *
 * <pre>{@code
 * Lane partner = Lane.virtual("partner-api", 10).queueCapacity(1_000).build();
 * try (SharedCap shared = SharedCap.builder(partner, "redis://127.0.0.1:6379").cap(20).build()) {
 *   CompletableFuture<String> reply = shared.submit("quote", () -> partnerApi.quote(order));
 *   SharedCapStats s = shared.stats();   // s.globalInUse(), s.permitWait().p99Nanos(), ...
 * }
 * }</pre>
 *
 * <p>Design. Tasks given to the shared cap wait in its own bounded queue (as long as the lane's),
 * holding no thread and no connection. While the lane has a free slot (tasks this shared cap
 * handed it and that have not ended are fewer than the lane's cap) and tasks wait, it asks Redis
 * for global permits, asynchronously: one waiter per free slot, never more than tasks waiting, so
 * no permit is held by a task that then waits locally. A grant hands the oldest waiting task to the
 * lane; the permit is renewed every {@code lease / 3} while the task runs and released when it ends,
 * however it ends (completed, failed, cancelled, or refused by the lane). A grant with no task left
 * to run (they were cancelled) is released at once.
 *
 * <p>State and locking. The queue, the outstanding waiters, the running permits, the health and
 * the counts are guarded by {@code lock}. Calls to Redis are never made under the lock; their
 * replies are handled on this shared cap's own scheduler thread ({@code lanes-redis-<name>}), which
 * also renews leases, probes Redis while it is away and asks again for waiting permits. A permit
 * freed anywhere (a release, a lapsed lease) is handed by the script itself to the oldest waiter,
 * and Redis publishes the grant (pub/sub) so its instance starts the task without polling; asking
 * again every {@code retryInterval} keeps the waiters' places and finds a grant whose notice was
 * lost.
 *
 * <p>Failure model. Every Redis call has a timeout. A failed or timed-out call applies the {@link
 * FaultPolicy}: fail fast (queued tasks fail with {@link SharedCapRejectedException.Reason#REDIS_UNAVAILABLE})
 * or run under a local share. The shared cap returns to the global cap as soon as a probe
 * succeeds; that first renewal holds every grant (of every instance) for a settle time of two probe
 * intervals and a call timeout, so the other instances put back their running tasks' permits
 * before new ones are handed out. Running tasks keep running through an outage; their permits lapse on Redis's clock
 * if not renewed, and renewing puts back the permits of tasks still running (after a lapse or a
 * restart that lost Redis's data), so Redis's count of holders stays the count of tasks running.
 * What this cannot prevent: while a running task's permit is missing from Redis (lapsed during a
 * long pause or partition, or lost in a restart) another instance may be granted its place, until
 * the next renewal puts it back; see the module README's guarantees table.
 */
public final class SharedCap implements Executor, AutoCloseable {

  /** Starts building a shared cap for {@code lane} on the Redis at {@code redisUri}. */
  public static Builder builder(Lane lane, String redisUri) {
    return new Builder(new LaneAdapter(lane), redisUri);
  }

  private static final AtomicLong INSTANCES = new AtomicLong();

  private final String name;
  private final LaneAdapter lane;
  private final int cap;
  private final int queueCapacity;
  private final Duration lease;
  private final Duration waiterLease;
  private final Duration renewInterval;
  private final Duration probeInterval;
  private final Duration retryInterval;
  private final FaultPolicy policy;
  private final RedisPermits permits;
  private final String instanceId;
  private final ScheduledExecutorService scheduler;
  private final AtomicLong ids = new AtomicLong();
  private final List<Consumer<? super SharedCapEvent>> listeners = new CopyOnWriteArrayList<>();
  /** Releases sent and not yet answered: {@link #close()} waits for them before disconnecting. */
  private final java.util.Set<CompletableFuture<Long>> releasesInFlight =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  // Guarded by lock.
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private final LinkedHashMap<String, Waiter> waiters = new LinkedHashMap<>();
  private final HashMap<String, Boolean> running = new HashMap<>(); // permit id -> on local share
  private int runningOnLocalShare;
  private SharedCapHealth health = SharedCapHealth.GLOBAL;
  private long submitted;
  private long started;
  private long cancelledWhileQueued;
  private long granted;
  private long reinstated;
  private long redisFailures;
  private final EnumMap<SharedCapRejectedException.Reason, Long> rejected =
      new EnumMap<>(SharedCapRejectedException.Reason.class);
  private final Histogram permitWait = new Histogram(TimeUnit.HOURS.toNanos(1), 2);
  private final Histogram queueWait = new Histogram(TimeUnit.HOURS.toNanos(1), 2);

  private volatile long globalInUse;
  private volatile long globalWaiters;

  private SharedCap(Builder b) {
    this.lane = b.lane;
    this.name = b.lane.name();
    this.cap = b.cap;
    this.queueCapacity = b.lane.queueCapacity();
    this.lease = b.lease;
    this.waiterLease = b.waiterLease;
    this.renewInterval = b.lease.dividedBy(3);
    this.probeInterval = b.probeInterval;
    this.retryInterval = b.retryInterval;
    this.policy = b.policy;
    // pid@host, then a number unique in this JVM and a random part against a reused pid.
    this.instanceId = ManagementFactory.getRuntimeMXBean().getName() + "-"
        + INSTANCES.incrementAndGet() + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16));
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "lanes-redis-" + name);
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.scheduler = s;
    this.permits = new RedisPermits(b.redisUri, name, b.callTimeout);
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

  private long firstHeartbeatDelay() {
    lock.lock();
    try {
      return (health == SharedCapHealth.GLOBAL ? renewInterval : probeInterval).toNanos();
    } finally {
      lock.unlock();
    }
  }

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
  // Submission

  /**
   * Queues {@code task} until a global permit is granted, then runs it on the lane.
   *
   * @throws SharedCapRejectedException when the queue is full, the cap is closed, or Redis is away
   *     and the policy is fail-fast
   */
  public <T> CompletableFuture<T> submit(String label, Callable<T> task) {
    Objects.requireNonNull(task, "task");
    Pending p = new Pending(label, task, System.nanoTime());
    List<Runnable> actions;
    lock.lock();
    try {
      submitted++;
      SharedCapRejectedException.Reason refusal =
          switch (health) {
            case CLOSED -> SharedCapRejectedException.Reason.SHUTDOWN;
            case UNAVAILABLE -> SharedCapRejectedException.Reason.REDIS_UNAVAILABLE;
            default -> queue.size() >= queueCapacity
                ? SharedCapRejectedException.Reason.QUEUE_FULL : null;
          };
      if (refusal != null) {
        rejected.merge(refusal, 1L, Long::sum);
        throw new SharedCapRejectedException(name, refusal, describeLocked());
      }
      queue.add(p);
      actions = pumpLocked();
    } finally {
      lock.unlock();
    }
    // A task cancelled while queued leaves the queue at once (and never runs).
    p.outer.whenComplete((v, t) -> {
      if (p.outer.isCancelled()) {
        dropQueued(p);
      }
    });
    run(actions);
    @SuppressWarnings("unchecked")
    CompletableFuture<T> result = (CompletableFuture<T>) p.outer;
    return result;
  }

  public <T> CompletableFuture<T> submit(Callable<T> task) {
    return submit(null, task);
  }

  /**
   * Runs {@code task} with a global permit. What it throws goes to the uncaught-exception handler
   * of the thread it ran on; a refusal after acceptance (Redis lost while it waited, or close) goes
   * to the handler of the thread that refused it.
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    submit(null, () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
      }
      return null;
    }).whenComplete((v, failure) -> {
      if (failure instanceof RejectedExecutionException) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, failure);
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The pump: turns queued tasks into waiters (or, on the local share, into running tasks)

  /** Under lock: what to do next, as actions to run once the lock is released. */
  private List<Runnable> pumpLocked() {
    List<Runnable> actions = new ArrayList<>();
    dropCancelledLocked();
    int concurrency = lane.concurrency();
    switch (health) {
      case GLOBAL -> {
        List<Waiter> fresh = new ArrayList<>();
        while (waiters.size() < queue.size() && running.size() + waiters.size() < concurrency) {
          Waiter w = new Waiter(instanceId + ":" + ids.incrementAndGet(), System.nanoTime());
          waiters.put(w.id, w);
          fresh.add(w);
        }
        if (!fresh.isEmpty()) {
          actions.add(() -> ask(fresh));
        }
      }
      case LOCAL_SHARE -> {
        int limit = Math.min(concurrency, policy.localShare());
        while (!queue.isEmpty() && running.size() < limit) {
          Pending p = queue.poll();
          String id = instanceId + ":" + ids.incrementAndGet();
          running.put(id, Boolean.TRUE);
          runningOnLocalShare++;
          started++;
          actions.add(() -> start(p, id));
        }
      }
      case UNAVAILABLE, CLOSED -> {
        SharedCapRejectedException.Reason reason = health == SharedCapHealth.CLOSED
            ? SharedCapRejectedException.Reason.SHUTDOWN
            : SharedCapRejectedException.Reason.REDIS_UNAVAILABLE;
        String detail = describeLocked();
        while (!queue.isEmpty()) {
          Pending p = queue.poll();
          if (p.outer.isDone()) {
            cancelledWhileQueued++;
            continue;
          }
          rejected.merge(reason, 1L, Long::sum);
          actions.add(() -> p.outer.completeExceptionally(
              new SharedCapRejectedException(name, reason, detail)));
        }
      }
    }
    return actions;
  }

  /** Under lock: drops the tasks at the head of the queue whose future is already done. */
  private void dropCancelledLocked() {
    while (!queue.isEmpty() && queue.peek().outer.isDone()) {
      queue.poll();
      cancelledWhileQueued++;
    }
  }

  private void dropQueued(Pending p) {
    List<Runnable> actions;
    lock.lock();
    try {
      if (!queue.remove(p)) {
        return; // already handed to the lane (the cancel reaches the lane's future), or dropped
      }
      cancelledWhileQueued++;
      actions = pumpLocked();
    } finally {
      lock.unlock();
    }
    run(actions);
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
    } finally {
      lock.unlock();
    }
    if (asking.isEmpty()) {
      return;
    }
    List<String> idsAsked = asking.stream().map(w -> w.id).toList();
    CompletionStage<RedisPermits.Acquired> reply;
    try {
      reply = permits.acquire(idsAsked, cap, lease, waiterLease);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenCompleteAsync((a, failure) -> onAcquireReply(asking, a, failure), scheduler);
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
   * order). A waiter still waiting starts the oldest queued task; a grant already started is
   * ignored; any other grant (its waiter was withdrawn) is released.
   */
  private void granted(String id) {
    List<Runnable> actions = new ArrayList<>();
    lock.lock();
    try {
      Waiter w = waiters.get(id);
      if (w != null) {
        waiters.remove(id);
        granted++;
        permitWait.recordValue(Math.min(System.nanoTime() - w.since, permitWait.getHighestTrackableValue()));
        dropCancelledLocked();
        Pending p = queue.poll();
        if (p == null) {
          actions.add(() -> release(id));
        } else {
          running.put(id, Boolean.FALSE);
          started++;
          actions.add(() -> start(p, id));
        }
        actions.addAll(pumpLocked());
      } else if (!running.containsKey(id)) {
        actions.add(() -> release(id));
      }
    } finally {
      lock.unlock();
    }
    run(actions);
  }

  /** Hands {@code p} to the lane; its permit {@code id} is released when it ends. */
  private void start(Pending p, String id) {
    long now = System.nanoTime();
    lock.lock();
    try {
      queueWait.recordValue(Math.min(now - p.submittedNanos, queueWait.getHighestTrackableValue()));
    } finally {
      lock.unlock();
    }
    // The permit goes back when the task's code has ended, not when its future has: a task
    // cancelled while it runs may go on until it notices the interrupt, and holds its place until
    // then. Its caller sees the cancellation at once. (A Dekker pair: the body writes FINISHED then
    // reads the future; the future's completion reads the state; one of them sees the other.)
    AtomicInteger state = new AtomicInteger(NOT_STARTED);
    AtomicBoolean ended = new AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<CompletableFuture<Object>> laneFuture =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<Throwable> outcome =
        new java.util.concurrent.atomic.AtomicReference<>();
    Runnable end = () -> {
      if (ended.compareAndSet(false, true)) {
        taskEnded(id, outcome.get());
      }
    };
    Callable<Object> body = () -> {
      if (!state.compareAndSet(NOT_STARTED, RUNNING)) {
        throw new java.util.concurrent.CancellationException("cancelled before it started");
      }
      try {
        return p.task.call();
      } finally {
        state.set(FINISHED);
        CompletableFuture<Object> f = laneFuture.get();
        if (f != null && f.isDone()) {
          end.run();
        }
      }
    };
    CompletableFuture<Object> inner;
    try {
      inner = lane.submit(p.label, body);
    } catch (RuntimeException e) {
      inner = CompletableFuture.failedFuture(e);
    }
    laneFuture.set(inner);
    CompletableFuture<Object> ran = inner;
    p.outer.whenComplete((v, t) -> {
      if (p.outer.isCancelled()) {
        ran.cancel(true);
      }
    });
    ran.whenComplete((value, failure) -> {
      outcome.set(failure);
      if (state.compareAndSet(NOT_STARTED, ABANDONED) || state.get() == FINISHED) {
        end.run();
      } // else RUNNING: the body's finally ends it
      if (failure == null) {
        p.outer.complete(value);
      } else {
        p.outer.completeExceptionally(RedisPermits.unwrap(failure));
      }
    });
  }

  private static final int NOT_STARTED = 0;
  private static final int RUNNING = 1;
  private static final int FINISHED = 2;
  private static final int ABANDONED = 3;

  private void taskEnded(String id, Throwable failure) {
    List<Runnable> actions;
    Boolean onLocalShare;
    lock.lock();
    try {
      onLocalShare = running.remove(id);
      if (Boolean.TRUE.equals(onLocalShare)) {
        runningOnLocalShare--;
      }
      if (failure != null && LaneAdapter.isLaneRejection(RedisPermits.unwrap(failure))) {
        rejected.merge(SharedCapRejectedException.Reason.LANE_REJECTED, 1L, Long::sum);
      }
      actions = pumpLocked();
      if (running.isEmpty()) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
    // A task run on the local share may have had its id put into Redis by a renewal after Redis
    // came back: release it too (releasing an id Redis does not hold changes nothing).
    release(id);
    run(actions);
  }

  private void release(String id) {
    CompletableFuture<Long> reply;
    try {
      reply = permits.release(List.of(id)).toCompletableFuture();
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
  // The scheduler thread: wake-ups, retries, renewals and probes

  private void retryWaiters() {
    List<Waiter> again;
    lock.lock();
    try {
      if (health != SharedCapHealth.GLOBAL || waiters.isEmpty()) {
        return;
      }
      again = new ArrayList<>(waiters.values());
    } finally {
      lock.unlock();
    }
    ask(again);
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
    List<String> ids;
    Duration settle;
    lock.lock();
    try {
      if (health == SharedCapHealth.CLOSED) {
        return;
      }
      ids = new ArrayList<>(running.keySet());
      // Back from an outage: hold every grant until the other instances had time to probe and put
      // back the permits of the tasks they kept running (two probes and a call).
      settle = health == SharedCapHealth.GLOBAL ? Duration.ZERO
          : probeInterval.multipliedBy(2).plus(permits.callTimeout());
    } finally {
      lock.unlock();
    }
    CompletionStage<RedisPermits.Renewed> reply;
    try {
      reply = permits.renew(ids, lease, settle);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
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
    List<Runnable> actions = List.of();
    boolean back = false;
    int putBack;
    lock.lock();
    try {
      putBack = 0;
      for (String id : r.reinstated()) {
        if (running.containsKey(id)) {
          putBack++;
        } else {
          stale.add(id); // ended between the snapshot and the renewal: give it back again
        }
      }
      reinstated += putBack;
      if (health == SharedCapHealth.LOCAL_SHARE || health == SharedCapHealth.UNAVAILABLE) {
        health = SharedCapHealth.GLOBAL;
        back = true;
        actions = pumpLocked();
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
    run(actions);
  }

  /** A call to Redis failed or timed out: apply the fault policy (once per outage). */
  private void redisFailed(Throwable failure) {
    Throwable cause = RedisPermits.unwrap(failure);
    List<Runnable> actions;
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
      withdrawn = new ArrayList<>(waiters.keySet());
      waiters.clear();
      actions = pumpLocked();
    } finally {
      lock.unlock();
    }
    emit(SharedCapEvent.Kind.REDIS_LOST, cause.getClass().getSimpleName() + ": "
        + cause.getMessage() + "; now " + now);
    // Best effort: a waiter Redis still holds lapses after its waiter lease anyway.
    withdrawn.forEach(id -> permits.release(List.of(id)));
    run(actions);
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

  public SharedCapStats stats() {
    lock.lock();
    try {
      return new SharedCapStats(name, cap, lane.concurrency(), health, queue.size(), waiters.size(),
          running.size() - runningOnLocalShare, runningOnLocalShare, globalInUse, globalWaiters,
          submitted, started, cancelledWhileQueued, granted, rejected, reinstated, redisFailures, waitOf(permitWait),
          waitOf(queueWait));
    } finally {
      lock.unlock();
    }
  }

  private static SharedCapStats.Wait waitOf(Histogram h) {
    if (h.getTotalCount() == 0) {
      return new SharedCapStats.Wait(0, 0, 0, 0, 0);
    }
    return new SharedCapStats.Wait(h.getTotalCount(), h.getValueAtPercentile(50),
        h.getValueAtPercentile(99), h.getMaxValue(), h.getMean());
  }

  private String describeLocked() {
    return "global cap " + cap + ", queue capacity " + queueCapacity + ", queued " + queue.size()
        + ", running here " + running.size() + ", health " + health;
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "SharedCap[" + name + ": " + describeLocked() + "]";
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes: refuses new tasks, fails the queued ones ({@link SharedCapRejectedException.Reason#SHUTDOWN}),
   * waits for the running ones to end (as {@code ExecutorService.close} does), gives their permits
   * back, and closes the connection. The lane is not closed: it is the caller's.
   */
  @Override
  public void close() {
    List<Runnable> actions;
    List<String> withdrawn;
    lock.lock();
    try {
      if (health == SharedCapHealth.CLOSED) {
        return;
      }
      health = SharedCapHealth.CLOSED;
      withdrawn = new ArrayList<>(waiters.keySet());
      waiters.clear();
      actions = pumpLocked();
    } finally {
      lock.unlock();
    }
    run(actions);
    boolean interrupted = false;
    lock.lock();
    try {
      while (!running.isEmpty()) {
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
      } catch (Exception e) {
        // They lapse after the waiter lease.
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

  private static final class Pending {
    final String label;
    final Callable<Object> task;
    final long submittedNanos;
    final CompletableFuture<Object> outer = new CompletableFuture<>();

    @SuppressWarnings("unchecked")
    Pending(String label, Callable<?> task, long submittedNanos) {
      this.label = label;
      this.task = (Callable<Object>) task;
      this.submittedNanos = submittedNanos;
    }
  }

  private static final class Waiter {
    final String id;
    final long since;
    boolean callInFlight; // guarded by lock
    boolean again; // guarded by lock

    Waiter(String id, long since) {
      this.id = id;
      this.since = since;
    }
  }

  /** Settings of a shared cap; each is checked when set, and the combination in {@link #build()}. */
  public static final class Builder {
    private final LaneAdapter lane;
    private final String redisUri;
    private int cap = -1;
    private Duration lease = Duration.ofSeconds(5);
    private Duration waiterLease = Duration.ofSeconds(2);
    private Duration callTimeout = Duration.ofMillis(500);
    private Duration probeInterval = Duration.ofMillis(200);
    private Duration retryInterval = Duration.ofMillis(200);
    private FaultPolicy policy = FaultPolicy.failFast();

    private Builder(LaneAdapter lane, String redisUri) {
      this.lane = lane;
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
     */
    public Builder retryInterval(Duration retryInterval) {
      this.retryInterval = positive("retryInterval", retryInterval, Duration.ofMillis(5));
      return this;
    }

    /** What to do while Redis is away (default {@link FaultPolicy#failFast()}). */
    public Builder faultPolicy(FaultPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Connects to Redis (at most the call timeout; if Redis is away, the shared cap starts in the
     * fault policy's state and probes) and starts renewing.
     */
    public SharedCap build() {
      if (cap < 0) {
        throw error("cap is required (the most tasks running at once across every instance)");
      }
      if (callTimeout.compareTo(lease.dividedBy(3)) >= 0) {
        throw error("callTimeout must be shorter than a third of the lease (" + lease.dividedBy(3)
            .toMillis() + " ms), was " + callTimeout.toMillis() + " ms");
      }
      if (retryInterval.compareTo(waiterLease.dividedBy(2)) >= 0) {
        throw error("retryInterval must be shorter than half the waiterLease ("
            + waiterLease.dividedBy(2).toMillis() + " ms), was " + retryInterval.toMillis() + " ms");
      }
      return new SharedCap(this);
    }

    private Duration positive(String setting, Duration value, Duration min) {
      Objects.requireNonNull(value, setting);
      if (value.compareTo(min) < 0) {
        throw error(setting + " must be ≥ " + min.toMillis() + " ms, was " + value.toMillis() + " ms");
      }
      return value;
    }

    private IllegalArgumentException error(String message) {
      return new IllegalArgumentException("shared cap \"" + lane.name() + "\": " + message);
    }
  }
}
