package dev.lanes.adapt;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.LaneKind;
import dev.lanes.TaskOutcome;
import dev.lanes.TaskRecord;
import java.util.Collections;
import java.util.Set;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * An adaptive concurrency limit for a lane: it sets the lane's concurrency ({@link
 * Lane#setConcurrency}) from the measured run time of the lane's own tasks. While run time stays
 * near its recent minimum and tasks wait in line, the limit grows (by a factor per decision until
 * the first cut, then by a step); when run time rises above that minimum by more than a
 * tolerance, the resource behind the lane is congested and the limit is cut towards limit ×
 * baseline ÷ recent. It never leaves its bounds, never changes without a window of samples, and
 * never grows while no task waits or beyond the tasks there are to run. Queue wait is not its
 * signal: shedding on queue wait is the lane's own admission setting.
 *
 * <pre>{@code
 * try (Lane lane = Lane.virtual("partner-api", 8).build();
 *      AdaptiveLimit limit = AdaptiveLimit.attach(lane, AdaptiveSettings.builder()
 *          .minLimit(2).maxLimit(200).build())) {
 *   limit.onChange(change -> log.info("{}", change));
 *   ...
 * }
 * }</pre>
 *
 * <p>The limit is the lane's concurrency: {@code lane.stats().concurrency()}, the Micrometer gauge
 * {@code lanes.concurrency} and the live page show it. {@link #close()} stops adapting and leaves
 * the lane at its current concurrency.
 *
 * <p><b>Concurrency design.</b> The controller listens to the lane's task records ({@link
 * Lane#onTask}), which the lane's worker threads deliver, many at once. Everything it decides
 * with — the control law's window, smoothed run time and baseline, and the closed flag's
 * transition — is guarded by {@code lock}: a worker tries it for each record that counts (and
 * skips the sample if another holds it: no worker ever waits for the controller), adds the
 * sample, and when the window is full reads the lane's demand (its cheap {@code running()} and
 * {@code queued()} gauges, no snapshot), decides, calls
 * {@code setConcurrency} and delivers the change to the listeners, all before releasing it. So
 * decisions are serial, each sees the previous one's state (the lock's happens-before), the lane's
 * concurrency and {@link #limit()} move in the order the events report, and a listener never runs
 * twice at once. {@code limit} is volatile, written under the lock and read without it. {@code
 * closed} is volatile so that a record arriving after {@link #close()} is dropped without the
 * lock; one already inside the lock when close is called finishes its decision first (close
 * takes the lock). Failure model: an exception from a change listener goes to the current thread's
 * uncaught-exception handler and the other listeners still run; an exception from {@code
 * setConcurrency} (a lane that refuses the figure) propagates to the lane, which reports it like
 * any listener failure, and the limit stays as it was.
 */
public final class AdaptiveLimit implements AutoCloseable {

  /**
   * Lanes with a controller attached (a lane may have one at a time); weak, so that a lane nobody
   * refers to can still be collected.
   */
  private static final Set<Lane> ATTACHED =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private final Lane lane;
  private final AdaptiveSettings settings;
  private final ControlLaw law; // guarded by lock
  private final ReentrantLock lock = new ReentrantLock();
  private final CopyOnWriteArrayList<Consumer<? super LimitChange>> listeners =
      new CopyOnWriteArrayList<>();
  private final Consumer<TaskRecord> taskListener = this::onTask;
  private final java.util.concurrent.atomic.LongAdder skipped = new java.util.concurrent.atomic.LongAdder();
  private volatile int limit;
  private volatile boolean closed;

  private AdaptiveLimit(Lane lane, AdaptiveSettings settings, int maxLimit) {
    this.lane = lane;
    this.settings = settings;
    this.law = new ControlLaw(settings, maxLimit);
  }

  /**
   * Attaches an adaptive limit with the {@linkplain AdaptiveSettings#defaults() default settings}.
   *
   * @see #attach(Lane, AdaptiveSettings)
   */
  public static AdaptiveLimit attach(Lane lane) {
    return attach(lane, AdaptiveSettings.defaults());
  }

  /**
   * Attaches an adaptive limit to a lane of any kind and sets the lane to its initial limit (the
   * given one, or the lane's concurrency brought within the bounds; that first setting is no
   * {@link LimitChange} event, every later change is).
   *
   * @param lane the lane; it must not have another adaptive limit attached
   * @param settings the bounds and the law's figures
   * @return the handle: the current limit, the change events, {@code close()}
   * @throws IllegalArgumentException if a bound is above what the lane's kind allows (32,767 on a
   *     platform lane); the message names the lane, the setting, the bound and the value
   * @throws IllegalStateException if the lane is shut down, or already has an adaptive limit
   */
  public static AdaptiveLimit attach(Lane lane, AdaptiveSettings settings) {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(settings, "settings");
    int kindMax = lane.kind() == LaneKind.VIRTUAL
        ? LaneBuilder.MAX_VIRTUAL_CONCURRENCY
        : LaneBuilder.MAX_PLATFORM_CONCURRENCY;
    String where = "lane \"" + lane.name() + "\": adaptive ";
    String kind = lane.kind().name().toLowerCase(java.util.Locale.ROOT);
    if (settings.maxLimit() > kindMax) {
      throw new IllegalArgumentException(where + "maxLimit must be between 1 and " + kindMax
          + " on a " + kind + " lane, was " + settings.maxLimit());
    }
    if (settings.initialLimit() > kindMax) {
      throw new IllegalArgumentException(where + "initialLimit must be between 1 and " + kindMax
          + " on a " + kind + " lane, was " + settings.initialLimit());
    }
    if (lane.isShutdown()) {
      throw new IllegalStateException(where + "limit cannot be attached to a shut-down lane");
    }
    AdaptiveLimit a = new AdaptiveLimit(lane, settings, settings.maxLimit());
    synchronized (ATTACHED) {
      if (ATTACHED.contains(lane)) {
        throw new IllegalStateException(
            where + "limit is already attached to this lane (close it first)");
      }
      ATTACHED.add(lane);
    }
    a.start();
    return a;
  }

  private void start() {
    lock.lock();
    try {
      int now = lane.concurrency();
      int initial = settings.initialLimit() != 0
          ? settings.initialLimit()
          : Math.max(settings.minLimit(), Math.min(settings.maxLimit(), now));
      if (initial != now) {
        lane.setConcurrency(initial);
      }
      limit = initial;
      lane.onTask(taskListener);
    } catch (RuntimeException e) {
      ATTACHED.remove(lane);
      throw e;
    } finally {
      lock.unlock();
    }
  }

  private void onTask(TaskRecord r) {
    if (closed || (r.outcome() != TaskOutcome.COMPLETED && r.outcome() != TaskOutcome.FAILED)) {
      return;
    }
    // A worker that finds the lock taken skips its sample instead of waiting: on a virtual lane
    // of tiny tasks, thousands of threads queueing on one lock cost more than the tasks. The
    // samples kept are still a fair draw of the lane's run times.
    if (!lock.tryLock()) {
      skipped.increment();
      return;
    }
    try {
      if (closed || !law.add(r.startedNanos(), r.endedNanos(), r.runNanos())) {
        return;
      }
      int running = lane.running(); // cheap gauges: no snapshot on a worker thread
      int queued = lane.queued();
      ControlLaw.Decision d = law.decide(r.endedNanos(), lane.concurrency(), running, queued);
      if (!d.changed()) {
        return;
      }
      lane.setConcurrency(d.to());
      limit = d.to();
      LimitChange change = new LimitChange(lane.name(), d.from(), d.to(), d.reason(), d.samples(),
          d.recentRunNanos(), d.baselineRunNanos(), running, queued, r.endedNanos());
      for (Consumer<? super LimitChange> l : listeners) {
        try {
          l.accept(change);
        } catch (RuntimeException e) {
          Thread t = Thread.currentThread();
          t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** {@return the limit now: the lane's concurrency as this controller last set it} */
  public int limit() {
    return limit;
  }

  /**
   * {@return how many task records were not taken as samples because another of the lane's
   * threads held the controller's lock at that moment}
   */
  public long skippedSamples() {
    return skipped.sum();
  }

  /** {@return the lane this limit drives} */
  public Lane lane() {
    return lane;
  }

  /** {@return the settings} */
  public AdaptiveSettings settings() {
    return settings;
  }

  /**
   * {@return true until the first cut: until then the limit grows by the growth factor per
   * decision; afterwards by a step}
   */
  public boolean probing() {
    lock.lock();
    try {
      return law.probing();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Calls {@code listener} with every change of the limit, on the lane's thread that decided it,
   * one change at a time and in order. Keep it quick: the lane's thread runs no task meanwhile.
   *
   * @param listener called with each {@link LimitChange}
   */
  public void onChange(Consumer<? super LimitChange> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Stops calling a listener given to {@link #onChange}.
   *
   * @return true if it was registered and is removed
   */
  public boolean removeListener(Consumer<? super LimitChange> listener) {
    return listeners.remove(listener);
  }

  /** {@return true once {@link #close()} was called} */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Stops adapting: no more decisions or events; the lane keeps its current concurrency and may
   * get another adaptive limit. Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      lane.removeListener(taskListener);
      ATTACHED.remove(lane); // only the open handle of a lane gets here
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "AdaptiveLimit[lane=" + lane.name() + ", limit=" + limit + (closed ? ", closed" : "")
        + "]";
  }
}
