package dev.lanes.alerts;

import dev.lanes.HealthEvent;
import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.Lanes;
import dev.lanes.TaskOutcome;
import dev.lanes.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Watches lanes and sends an {@link Alert}, with its evidence, when one is in trouble: {@linkplain
 * AlertKind#SATURATED saturated} for longer than a threshold, {@linkplain AlertKind#REJECTING
 * refusing or dropping} tasks faster than a rate, or in a starvation deadlock, {@linkplain
 * AlertKind#DEADLOCKED proven} or {@linkplain AlertKind#DEADLOCK_SUSPECTED suspected}.
 *
 * <pre>{@code
 * LaneAlerts alerts = LaneAlerts.builder()
 *     .saturatedFor(Duration.ofSeconds(30))
 *     .rejectionsPerSecond(5, Duration.ofMinutes(1))
 *     .silence(Duration.ofMinutes(15))
 *     .sink(AlertSink.log(System.Logger.Level.WARNING))
 *     .sink(WebhookSink.to(URI.create("https://hooks.example/…")).format(WebhookSink.Format.SLACK).build())
 *     .build();
 * alerts.watch(lanes);   // every lane of the set, and those added later
 * }</pre>
 *
 * <p><b>Episodes and silence.</b> For each (lane, kind), an episode starts when the condition
 * first holds and ends at the first check where it does not; no two alerts of one kind for one
 * lane are sent less than {@code silence} apart: an episode that becomes due inside the silence
 * window is held until the window has passed, and sent then if it still holds (its alert counts the
 * episodes that came and went unsent, {@code silencedEpisodes}).
 *
 * <p><b>One alert per lane episode.</b> A lane's episode opens with the first alert due for it and
 * ends at the first check where none of its conditions holds. That alert names every condition
 * holding at its check ({@link Alert#conditions()}, and {@code (also: …)} in its headline;
 * SATURATED only if a check of the episode saw the lane's health SATURATED itself, not only a worse
 * state, which the saturation rule also counts). While
 * the lane episode is open, an alert of a more severe kind ({@link AlertKind} is ordered, least
 * severe first) is sent as a follow-up whose headline says {@code worse:}; one of the same or a
 * less severe kind is not sent. With {@link Builder#recoveryMessages}, the end of a lane episode
 * sends one {@linkplain Alert#resolved() resolved} alert naming every kind it had. So saturated,
 * then refusing, then OK is two alerts and one recovery message. The first alert of each episode
 * carries the stacks of the lane's workers; its body states the alert's state ({@link
 * Alert#state()}), so it never reads OK under a REJECTING headline when the lane's own monitor
 * lags the check.
 *
 * <p><b>Across instances.</b> With {@link Builder#dedupe}, each alert is sent only when the dedupe
 * grants this instance the claim for (lane, kind); refused, this instance sends nothing for that
 * lane episode, its recovery included. A claim that throws counts as granted (fail open), logged
 * once until the dedupe answers again. Claims are made on the checking thread, under the lock.
 *
 * <p><b>What is read.</b> Each check reads every watched lane's {@link Lane#stats()} once: its
 * health (saturation: SATURATED or worse, timed from the first check that saw it, so up to one
 * check interval late) and its refusal counts (the rate is the refusals in the last window ÷ the
 * window, from the samples of earlier checks). Deadlocks come from the lane's {@link HealthEvent}s
 * ({@link Lane#onHealth}), whose listener only queues the event and asks for a check, so a
 * lane's thread never waits for an alert; a deadlock that formed and was broken between two checks
 * is still reported.
 *
 * <p><b>Checks</b> run every {@link Builder#checkInterval} on one daemon thread, {@code
 * lanes-alerts}, for every lane this instance watches; or on the caller's scheduler ({@link
 * Builder#scheduler}); or only when {@link #check()} is called ({@link Builder#manualChecks()}).
 * {@link #close()} stops them (joining the thread), stops watching, and closes the sinks.
 *
 * <p><b>Closing while a set changes.</b> A lane added to a watched {@link Lanes} set while {@link
 * #close()} runs is either watched and then let go by the close, or never watched; either way
 * {@link Lanes#add} never throws because this instance closed (its listener ignores a closed
 * instance), and a closed instance watches nothing.
 *
 * <p><b>Concurrency design.</b> {@code lock} guards the watched lanes and every episode's state;
 * {@link #check()} holds it while it reads the lanes and decides, then releases it and calls the
 * sinks (other code) in the order the alerts were made, so two concurrent checks may interleave
 * their sends. The health listeners run on the lane's threads (the {@code lanes-health} thread, or
 * a worker about to wait): each offers the event to its lane's bounded queue (an event that does
 * not fit is counted and the lane's polled health stands in) and, when checks are scheduled, asks
 * for one at once, coalesced by {@code checkRequested}. A sink that throws is logged at most once
 * per failure interval and the other sinks still get the alert.
 */
public final class LaneAlerts implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LogSink.LOGGER_NAME);
  /** Events a lane may queue between two checks; more are counted and dropped. */
  static final int EVENTS_PER_LANE = 256;
  /** Rate samples kept per lane at most (the oldest go first). */
  static final int MAX_SAMPLES = 4096;
  private static final TaskOutcome[] REJECTIONS = rejections();

  private final Duration saturatedFor;
  private final double rejectionsPerSecond;
  private final Duration rejectionWindow;
  private final Duration silence;
  private final boolean recoveryMessages;
  private final Ticker ticker;
  private final List<AlertSink> sinks;
  private final FailureLog failures;
  private final AlertDedupe dedupe;
  private boolean dedupeFailing; // guarded by lock

  private final ReentrantLock lock = new ReentrantLock();
  /** Guarded by lock; by identity, in watch order. */
  private final Map<Lane, Watch> watched = new IdentityHashMap<>();
  private final List<Lane> order = new ArrayList<>(); // guarded by lock
  /** Lanes sets watched whole, with their listeners. Guarded by lock. */
  private final List<SetWatch> sets = new ArrayList<>();
  private boolean closed; // guarded by lock

  private final ScheduledExecutorService ownScheduler; // null unless checks run on our thread
  private final ScheduledExecutorService scheduler; // ours, the caller's, or null (manual)
  private final ScheduledFuture<?> periodic;
  private final AtomicBoolean checkRequested = new AtomicBoolean();
  private final AtomicLong alertsSent = new AtomicLong();

  private LaneAlerts(Builder b) {
    this.saturatedFor = b.saturatedFor;
    this.rejectionsPerSecond = b.rejectionsPerSecond;
    this.rejectionWindow = b.rejectionWindow;
    this.silence = b.silence;
    this.recoveryMessages = b.recoveryMessages;
    this.ticker = b.ticker;
    this.sinks = List.copyOf(b.sinks);
    this.dedupe = b.dedupe;
    this.failures = new FailureLog(b.ticker, b.failureLogInterval);
    if (b.manual) {
      this.ownScheduler = null;
      this.scheduler = null;
      this.periodic = null;
    } else {
      if (b.scheduler == null) {
        ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1,
            Thread.ofPlatform().name("lanes-alerts").daemon(true)
                .inheritInheritableThreadLocals(false).factory());
        own.setRemoveOnCancelPolicy(true);
        this.ownScheduler = own;
        this.scheduler = own;
      } else {
        this.ownScheduler = null;
        this.scheduler = b.scheduler;
      }
      long every = b.checkInterval.toNanos();
      this.periodic = scheduler.scheduleWithFixedDelay(this::scheduledCheck, every, every,
          TimeUnit.NANOSECONDS);
    }
  }

  /** {@return a builder with the default settings (see each setting)} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts watching a lane.
   *
   * @param lane the lane
   * @return false if this instance already watches it
   * @throws NullPointerException if {@code lane} is null
   * @throws IllegalStateException if this instance is closed
   */
  public boolean watch(Lane lane) {
    Objects.requireNonNull(lane, "lane must not be null");
    lock.lock();
    try {
      requireOpen();
      if (watched.containsKey(lane)) {
        return false;
      }
      Watch w = new Watch(lane, ticker.read());
      watched.put(lane, w);
      order.add(lane);
      lane.onHealth(w.listener);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Watches every lane of a set: those in it now, those added later; a lane removed from the set
   * is no longer watched. Once this instance is closed, lanes added to the set are ignored (the
   * set's {@link Lanes#add} never throws because of it, see "Closing while a set changes"), and so
   * are the set's lanes if {@link #close()} ran while this call was under way.
   *
   * @param lanes the set
   * @throws NullPointerException if {@code lanes} is null
   * @throws IllegalStateException if this instance was closed when the call began
   */
  public void watch(Lanes lanes) {
    Objects.requireNonNull(lanes, "lanes must not be null");
    SetWatch set = new SetWatch(lanes, this::watchUnlessClosed, lane -> unwatch(lane));
    lock.lock();
    try {
      requireOpen();
      sets.add(set);
    } finally {
      lock.unlock();
    }
    lanes.onAdded(set.added);
    lanes.onRemoved(set.removed);
    boolean closedMeanwhile;
    lock.lock();
    try {
      closedMeanwhile = closed;
    } finally {
      lock.unlock();
    }
    if (closedMeanwhile) { // the close may have looked for these listeners before they were added
      lanes.removeListener(set.added);
      lanes.removeListener(set.removed);
      return;
    }
    lanes.all().forEach(this::watchUnlessClosed);
  }

  /** A set's listener: watches {@code lane}, or does nothing once this instance is closed. */
  private void watchUnlessClosed(Lane lane) {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      watch(lane); // re-entrant: still open under the same hold of the lock
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops watching a lane; its open episodes end without a message.
   *
   * @param lane the lane
   * @return false if it was not watched
   */
  public boolean unwatch(Lane lane) {
    lock.lock();
    try {
      Watch w = watched.remove(lane);
      if (w == null) {
        return false;
      }
      order.remove(lane);
      lane.removeListener(w.listener);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Hands {@code event} to the lane's health listener, as the lane would; for tests. */
  void deliverForTest(Lane lane, HealthEvent event) {
    Watch w;
    lock.lock();
    try {
      w = watched.get(lane);
    } finally {
      lock.unlock();
    }
    w.listener.accept(event);
  }

  /** {@return the names of the watched lanes, in the order they were first watched} */
  public List<String> watching() {
    lock.lock();
    try {
      return order.stream().map(Lane::name).toList();
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@return how many alerts (recovery messages included) were made for the sinks; each is
   * counted when a check decides it, just before that check hands it to the sinks}
   */
  public long alertsSent() {
    return alertsSent.get();
  }

  /**
   * Checks every watched lane now and sends what is due. The scheduler calls it every check
   * interval; call it yourself with {@link Builder#manualChecks()}. A lane found terminated is no
   * longer watched.
   */
  public void check() {
    List<Alert> due = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      for (Lane lane : List.copyOf(order)) {
        Watch w = watched.get(lane);
        int before = due.size();
        w.check(ticker.read(), due);
        // Counted under the lock: a check that finds an episode alerted finds it counted too.
        alertsSent.addAndGet(due.size() - before);
        if (w.lastStats.terminated()) {
          unwatch(lane);
        }
      }
    } finally {
      lock.unlock();
    }
    for (Alert alert : due) {
      for (AlertSink sink : sinks) {
        try {
          sink.send(alert);
        } catch (RuntimeException e) {
          failures.failed("lanes alerts: sink " + sink + " threw " + e + " on alert " + alert.kind()
              + " for lane \"" + alert.lane() + "\"");
        }
      }
    }
  }

  private void scheduledCheck() {
    checkRequested.set(false);
    try {
      check();
    } catch (RuntimeException | Error e) {
      // a periodic task that throws is never run again: log and go on
      failures.failed("lanes alerts: a check failed: " + e);
    }
  }

  /** A health listener asks for a check at once (coalesced) when checks are scheduled. */
  private void requestCheck() {
    ScheduledExecutorService s = scheduler;
    if (s != null && checkRequested.compareAndSet(false, true)) {
      try {
        s.execute(this::scheduledCheck);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        checkRequested.set(false); // closing; the periodic check (if any) still runs
      }
    }
  }

  /**
   * Stops the checks (joining the {@code lanes-alerts} thread, or cancelling the task on the
   * caller's scheduler), stops watching every lane and set, and closes the sinks that are {@link
   * AutoCloseable}. Idempotent.
   */
  @Override
  public void close() {
    List<SetWatch> setsToLeave;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (Lane lane : List.copyOf(order)) {
        unwatch(lane);
      }
      setsToLeave = List.copyOf(sets);
      sets.clear();
    } finally {
      lock.unlock();
    }
    for (SetWatch set : setsToLeave) {
      set.lanes.removeListener(set.added);
      set.lanes.removeListener(set.removed);
    }
    if (periodic != null) {
      periodic.cancel(false);
    }
    if (ownScheduler != null) {
      ownScheduler.shutdown();
      boolean interrupted = false;
      try {
        while (!ownScheduler.awaitTermination(1, TimeUnit.MINUTES)) {
          LOG.log(System.Logger.Level.WARNING,
              "lanes alerts: still waiting for a check to end (a sink is slow)");
        }
      } catch (InterruptedException e) {
        interrupted = true;
        ownScheduler.shutdownNow();
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    List<Object> closeables = new ArrayList<>(sinks);
    closeables.add(dedupe);
    for (Object sink : closeables) {
      if (sink instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          LOG.log(System.Logger.Level.WARNING, "lanes alerts: closing " + sink + " failed", e);
        }
      }
    }
  }

  /**
   * Asks the dedupe whether this instance sends the alert for (lane, kind); held for the silence
   * window, at least {@link Builder#MIN_CLAIM_HOLD}. A dedupe that throws is taken as yes, and
   * said once until it answers again. Called under lock.
   */
  private boolean claimed(String lane, AlertKind kind) {
    Duration hold = silence.compareTo(Builder.MIN_CLAIM_HOLD) < 0 ? Builder.MIN_CLAIM_HOLD : silence;
    try {
      boolean mine = dedupe.claim(lane, kind, hold);
      if (dedupeFailing) {
        dedupeFailing = false;
        LOG.log(System.Logger.Level.INFO, "lanes alerts: de-duplication answers again ("
            + dedupe + "); alerts go out once per episode across instances");
      }
      return mine;
    } catch (RuntimeException e) {
      if (!dedupeFailing) {
        dedupeFailing = true;
        LOG.log(System.Logger.Level.WARNING, "lanes alerts: de-duplication failed (" + dedupe
            + ": " + e + "); sending alerts from this instance without it until it answers again");
      }
      return true;
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("lanes alerts: closed; no lane can be watched");
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      StringBuilder b = new StringBuilder("LaneAlerts[")
          .append(closed ? "closed" : "watching " + watching())
          .append(", saturatedFor ").append(saturatedFor)
          .append(", rejectionsPerSecond ").append(rejectionsPerSecond)
          .append(" over ").append(rejectionWindow)
          .append(", silence ").append(silence)
          .append(", sent ").append(alertsSent.get());
      for (Lane lane : order) {
        Watch w = watched.get(lane);
        for (Map.Entry<AlertKind, Episode> e : w.episodes.entrySet()) {
          if (e.getValue().active) {
            b.append(", ").append(lane.name()).append(' ').append(e.getKey());
          }
        }
      }
      return b.append(']').toString();
    } finally {
      lock.unlock();
    }
  }

  // ------------------------------------------------------------------------------ per lane

  private static TaskOutcome[] rejections() {
    List<TaskOutcome> r = new ArrayList<>();
    for (TaskOutcome o : TaskOutcome.values()) {
      if (o.isRejection()) {
        r.add(o);
      }
    }
    return r.toArray(new TaskOutcome[0]);
  }

  /** One (lane, kind): its current episode and its last alert. Guarded by lock. */
  private static final class Episode {
    boolean active;
    long since;
    boolean alerted;
    boolean silencedCounted;
    boolean everAlerted;
    long lastAlertAt;
    long silencedEpisodes; // since the last alert
    /** The sample of the check that saw the episode start (see {@link #sample}). */
    long[] startSample;
    /**
     * SATURATED only: a check of this episode saw the lane's health SATURATED itself, not only a
     * worse state (REJECTING, DEADLOCKED) that the rule counts too.
     */
    boolean plain;
  }

  /** One watched lane. Its fields are guarded by lock, except {@code events} and the listener. */
  private final class Watch {
    final Lane lane;
    final ArrayBlockingQueue<HealthEvent> events = new ArrayBlockingQueue<>(EVENTS_PER_LANE);
    final AtomicLong eventsDropped = new AtomicLong();
    final Consumer<HealthEvent> listener;
    final EnumMap<AlertKind, Episode> episodes = new EnumMap<>(AlertKind.class);
    /** The lane's pin count and time at the previous check, and what came since. */
    long pinsSeen;
    long pinNanosSeen;
    long pinsSinceCheck;
    long newPinNanos;
    /** The samples of earlier checks ({@link LaneAlerts#sample}), oldest first. */
    final ArrayDeque<long[]> samples = new ArrayDeque<>();
    LaneStats lastStats;
    long eventsDroppedSeen;
    HealthEvent deadlockEvent;
    HealthEvent suspicionEvent;
    boolean suspicionOpen;
    /** What the last check measured of refusals (for a REJECTING alert's figures). */
    Map<String, Double> rateFigures = Map.of();
    /** The sample the last check's refusal rate was measured from (the window's start). */
    long[] rateBase;
    /** The last check's own sample. */
    long[] currentSample;
    /** The lane episode (see {@link #laneEpisode}): open, since, its kinds, its worst alerted. */
    boolean laneOpen;
    long laneSince;
    final EnumSet<AlertKind> kindsInEpisode = EnumSet.noneOf(AlertKind.class);
    AlertKind worstInEpisode;
    /** Whether this instance sent an alert of the open lane episode (or another one did). */
    boolean sentInEpisode;

    Watch(Lane lane, long now) {
      this.lane = lane;
      for (AlertKind k : AlertKind.values()) {
        episodes.put(k, new Episode());
      }
      this.listener = event -> {
        if (!events.offer(event)) {
          eventsDropped.incrementAndGet();
        }
        requestCheck();
      };
      this.lastStats = lane.stats();
      samples.addLast(sample(now, lastStats));
    }

    void check(long now, List<Alert> due) {
      // Events first: a deadlock that formed and was broken since the last check still counts.
      boolean deadlockSeen = false;
      boolean suspicionSeen = false;
      for (HealthEvent e; (e = events.poll()) != null; ) {
        if (e.to() == LaneHealth.DEADLOCKED) {
          deadlockSeen = true;
          deadlockEvent = e;
        }
        Double suspected = e.figures().get("suspectedDeadlock");
        if (suspected != null && suspected == 1.0) {
          suspicionSeen = true;
          suspicionEvent = e;
        }
      }
      long dropped = eventsDropped.get();
      if (dropped != eventsDroppedSeen) {
        failures.failed("lanes alerts: lane \"" + lane.name() + "\" sent more than "
            + EVENTS_PER_LANE + " health events between two checks; " + (dropped - eventsDroppedSeen)
            + " were dropped and its polled health stands in");
        eventsDroppedSeen = dropped;
      }
      LaneStats stats = lane.stats();
      lastStats = stats;
      Map<AlertKind, Alert> made = new EnumMap<>(AlertKind.class);
      LaneHealth health = stats.health();
      long[] current = sample(now, stats);
      currentSample = current;

      // Saturated: SATURATED or worse, for saturatedFor.
      judge(AlertKind.SATURATED, health.compareTo(LaneHealth.SATURATED) >= 0, now, stats, made);
      if (health == LaneHealth.SATURATED) {
        episodes.get(AlertKind.SATURATED).plain = true;
      }

      // Refusals over the window.
      long windowNanos = rejectionWindow.toNanos();
      // Keep as the base the latest sample at or before the window's start.
      while (samples.size() > 1 && second(samples)[0] <= now - windowNanos) {
        samples.removeFirst();
      }
      long[] base = samples.peekFirst();
      rateBase = base;
      double seconds = Math.max(windowNanos, now - base[0]) / 1e9;
      Map<String, Double> rates = new LinkedHashMap<>();
      Map<String, Double> counts = new LinkedHashMap<>();
      long total = 0;
      for (int i = 0; i < REJECTIONS.length; i++) {
        long n = current[i + 1] - base[i + 1];
        total += n;
        if (n > 0) {
          rates.put("rejectedPerSecond." + REJECTIONS[i].tag(), n / seconds);
          counts.put("rejectedInWindow." + REJECTIONS[i].tag(), (double) n);
        }
      }
      double rate = total / seconds;
      samples.addLast(current);
      if (samples.size() > MAX_SAMPLES) {
        samples.removeFirst();
      }
      rateFigures = new LinkedHashMap<>();
      rateFigures.put("rejectedPerSecond", rate);
      rateFigures.putAll(rates);
      rateFigures.put("rejectedInWindow", (double) total);
      rateFigures.putAll(counts);
      rateFigures.put("windowMs", seconds * 1e3);
      rateFigures.put("thresholdPerSecond", rejectionsPerSecond);
      // The rule averages over the whole window; while less of it was watched, the refusals came
      // faster than that: the span they came in, and their rate over it.
      long span = now - base[0];
      if (span > 0 && span < windowNanos) {
        rateFigures.put("watchedMs", span / 1e6);
        rateFigures.put("rejectedPerSecondWatched", total / (span / 1e9));
      }
      boolean rejecting = rate > rejectionsPerSecond;
      judge(AlertKind.REJECTING, rejecting, now, stats, made);

      // Deadlocks: proven (the lane's state, or an event since the last check) and suspected.
      boolean deadlocked = deadlockSeen || health == LaneHealth.DEADLOCKED;
      judge(AlertKind.DEADLOCKED, deadlocked, now, stats, made);
      if (suspicionSeen) {
        suspicionOpen = true;
      }
      boolean suspicion = suspicionSeen || (suspicionOpen && health != LaneHealth.OK);
      if (!suspicion) {
        suspicionOpen = false;
      }
      judge(AlertKind.DEADLOCK_SUSPECTED, suspicion, now, stats, made);

      // Pinning: new pins since the previous check (a lane that reports pinning).
      dev.lanes.Pinning pinning = stats.pinning();
      long newPins = pinning.count() - pinsSeen;
      newPinNanos = pinning.totalNanos() - pinNanosSeen;
      pinsSinceCheck = newPins;
      pinsSeen = pinning.count();
      pinNanosSeen = pinning.totalNanos();
      judge(AlertKind.PINNING, newPins > 0, now, stats, made);
      laneEpisode(made, now, stats, due);
    }

    /**
     * One (lane, kind) at one check: start, alert, hold or end its episode; the alert it makes goes
     * to {@code made}, for the lane episode to send, fold or drop ({@link #laneEpisode}).
     */
    private void judge(AlertKind kind, boolean holds, long now, LaneStats stats,
        Map<AlertKind, Alert> made) {
      Episode ep = episodes.get(kind);
      if (holds) {
        if (!ep.active) {
          ep.active = true;
          ep.since = now;
          ep.startSample = currentSample;
          ep.alerted = false;
          ep.silencedCounted = false;
          ep.plain = false;
        }
        // Only saturation waits: the others are due as soon as they hold.
        boolean dueNow = kind != AlertKind.SATURATED || now - ep.since >= saturatedFor.toNanos();
        if (!dueNow || ep.alerted) {
          return;
        }
        if (ep.everAlerted && now - ep.lastAlertAt < silence.toNanos()) {
          if (!ep.silencedCounted) {
            ep.silencedCounted = true;
            ep.silencedEpisodes++;
          }
          return;
        }
        // The held episode is sent now; it is not one of the silenced ones.
        long silenced = ep.silencedEpisodes - (ep.silencedCounted ? 1 : 0);
        made.put(kind, alert(kind, now, ep, stats, silenced));
        ep.alerted = true;
        ep.everAlerted = true;
        ep.lastAlertAt = now;
        ep.silencedEpisodes = 0;
      } else if (ep.active) {
        ep.active = false;
      }
    }

    /**
     * The lane's episode at one check: it opens with the first alert made for the lane, which is
     * sent naming every condition that holds; while it is open, an alert of a more severe kind is
     * sent as a follow-up, its headline saying {@code worse:}, and one of the same or a less
     * severe kind is folded in (not sent); it ends at the first check where no condition holds,
     * with one recovery message (when asked for) from the instance that sent its alerts.
     */
    private void laneEpisode(Map<AlertKind, Alert> made, long now, LaneStats stats,
        List<Alert> due) {
      // A SATURATED episode is named only when the lane was saturated itself (or it is the one
      // alerted): a REJECTING or DEADLOCKED lane is "SATURATED or worse" for the rule alone.
      EnumSet<AlertKind> holding = EnumSet.noneOf(AlertKind.class);
      episodes.forEach((k, ep) -> {
        if (ep.active && (k != AlertKind.SATURATED || ep.plain || made.containsKey(k))) {
          holding.add(k);
        }
      });
      if (laneOpen) {
        kindsInEpisode.addAll(holding);
        if (holding.isEmpty()) {
          laneOpen = false;
          if (sentInEpisode && recoveryMessages) {
            due.add(recovery(now, stats));
          }
          return;
        }
      }
      if (made.isEmpty()) {
        return;
      }
      AlertKind worst = EnumSet.copyOf(made.keySet()).stream().reduce((a, b) -> b).orElseThrow();
      boolean followUp = laneOpen;
      if (followUp && worst.compareTo(worstInEpisode) <= 0) {
        return; // folded into the alert already sent for this lane episode
      }
      if (!laneOpen) {
        laneOpen = true;
        laneSince = now;
        sentInEpisode = false;
        kindsInEpisode.clear();
        kindsInEpisode.addAll(holding);
      }
      episodes.forEach((k, ep) -> {
        if (ep.active) {
          laneSince = Math.min(laneSince, ep.since);
        }
      });
      worstInEpisode = worst;
      if (!claimed(lane.name(), worst)) {
        return; // another instance sends it, and its recovery
      }
      sentInEpisode = true;
      Alert a = made.get(worst);
      EnumSet<AlertKind> others = EnumSet.copyOf(holding);
      others.remove(worst);
      String prefix = "lane \"" + lane.name() + "\"";
      String headline = a.headline();
      if (followUp && headline.startsWith(prefix)) {
        headline = prefix + " worse:" + headline.substring(prefix.length()).replaceFirst("^:", "");
      }
      if (!others.isEmpty()) {
        headline += " (also: " + Alert.names(others) + ")";
      }
      due.add(new Alert(a.lane(), a.kind(), false, a.at(), headline, a.stats(), a.figures(),
          a.diagnostic(), a.workerStacks(), holding));
    }

    private Alert recovery(long now, LaneStats stats) {
      Map<String, Double> figures = new LinkedHashMap<>();
      figures.put("episodeMs", (now - laneSince) / 1e6);
      StringBuilder what = new StringBuilder();
      for (AlertKind kind : kindsInEpisode) {
        what.append(what.isEmpty() ? "" : ", ").append(switch (kind) {
          case SATURATED -> "no longer saturated";
          case REJECTING -> "refusing at or below " + perSecond(rejectionsPerSecond);
          case DEADLOCKED -> "out of the starvation deadlock";
          case DEADLOCK_SUSPECTED -> "no longer suspected of a starvation deadlock";
          case PINNING -> "no new pins of its carrier";
        });
      }
      return new Alert(lane.name(), worstInEpisode, true, Instant.now(), "lane \"" + lane.name()
          + "\" recovered: " + what + " (the episode lasted " + Durations.human(now - laneSince)
          + ")", stats, figures, "", "", kindsInEpisode);
    }

    private Alert alert(AlertKind kind, long now, Episode ep, LaneStats stats, long silenced) {
      Map<String, Double> figures = new LinkedHashMap<>();
      String headline;
      String diagnostic = "";
      String name = "lane \"" + lane.name() + "\"";
      switch (kind) {
        case SATURATED -> {
          figures.put("saturatedForMs", (now - ep.since) / 1e6);
          figures.put("thresholdMs", saturatedFor.toNanos() / 1e6);
          endedBetween(ep.startSample, currentSample, figures);
          headline = name + " has been " + stats.health() + " for "
              + Durations.human(now - ep.since) + " (alert after "
              + Durations.human(saturatedFor.toNanos()) + ")";
        }
        case REJECTING -> {
          figures.putAll(rateFigures);
          endedBetween(rateBase, currentSample, figures);
          StringBuilder reasons = new StringBuilder();
          rateFigures.forEach((k, v) -> {
            if (k.startsWith("rejectedInWindow.")) {
              reasons.append(reasons.isEmpty() ? "" : ", ")
                  .append(k.substring("rejectedInWindow.".length())).append(' ')
                  .append(number(v));
            }
          });
          Double watchedMs = rateFigures.get("watchedMs");
          double refused = rateFigures.get("rejectedInWindow");
          headline = name + " refused or dropped " + number(refused)
              + (refused == 1 ? " task " : " tasks ") + (watchedMs != null
                  ? "in the " + Durations.human(watchedMs * 1e6) + " watched so far ("
                      + perSecond(rateFigures.get("rejectedPerSecondWatched")) + "; "
                      + perSecond(rateFigures.get("rejectedPerSecond")) + " over the "
                      + Durations.human(rejectionWindow.toNanos()) + " window"
                  : "in the last " + Durations.human(rateFigures.get("windowMs") * 1e6) + " ("
                      + perSecond(rateFigures.get("rejectedPerSecond")))
              + ", alert above " + perSecond(rejectionsPerSecond) + "): " + reasons;
        }
        case DEADLOCKED -> {
          headline = name + " is in a starvation deadlock: every worker waits on a task queued"
              + " behind it";
          if (deadlockEvent != null) {
            diagnostic = deadlockEvent.diagnostic();
            figures.putAll(deadlockEvent.figures());
          }
        }
        case DEADLOCK_SUSPECTED -> {
          headline = name + ": starvation deadlock suspected (not proven: see the diagnostic)";
          if (suspicionEvent != null) {
            diagnostic = suspicionEvent.diagnostic();
            figures.putAll(suspicionEvent.figures());
          }
        }
        case PINNING -> {
          dev.lanes.Pinning p = stats.pinning();
          figures.put("pinsSinceCheck", (double) pinsSinceCheck);
          figures.put("pinnedMsSinceCheck", newPinNanos / 1e6);
          figures.put("pinsTotal", (double) p.count());
          figures.put("pinnedMsTotal", p.totalNanos() / 1e6);
          figures.put("longestPinMs", p.longestNanos() / 1e6);
          StringBuilder where = new StringBuilder();
          StringBuilder d = new StringBuilder();
          if (!p.sites().isEmpty()) {
            dev.lanes.Pinning.Site top = p.sites().get(0);
            where.append(": most in ").append(top.frame());
            if (!top.label().isEmpty()) {
              where.append(", label \"").append(top.label()).append('"');
            }
            for (dev.lanes.Pinning.Site site : p.sites()) {
              d.append(d.isEmpty() ? "" : "\n\n").append(site.count()).append(" pin")
                  .append(site.count() == 1 ? "" : "s").append(", ")
                  .append(Durations.human(site.totalNanos())).append(" in ").append(site.frame())
                  .append(site.label().isEmpty() ? "" : " (label \"" + site.label() + "\")")
                  .append(site.reason().isEmpty() ? "" : ": " + site.reason()).append('\n')
                  .append(site.stack());
            }
          }
          diagnostic = d.toString();
          headline = name + " pinned its carrier " + number(pinsSinceCheck)
              + (pinsSinceCheck == 1 ? " time for " : " times for ")
              + Durations.human(newPinNanos) + " since the last check (longest "
              + Durations.human(p.longestNanos()) + ")" + where
              + " — a pinned task holds one of the carrier threads every virtual thread shares";
        }
        default -> throw new AssertionError(kind);
      }
      figures.put("silencedEpisodes", (double) silenced);
      return new Alert(lane.name(), kind, false, Instant.now(), headline, stats, figures,
          diagnostic, workerStacks(lane));
    }
  }

  private static String number(double v) {
    return Alert.number(v);
  }

  /**
   * The tasks that ended between two samples, and their mean queue wait and run time, as figures
   * ({@code endedInWindow}, {@code queueWaitMeanMsInWindow}, {@code runMeanMsInWindow}, {@code
   * judgedWindowMs}): the evidence of the window an alert judged.
   */
  private static void endedBetween(long[] from, long[] to, Map<String, Double> figures) {
    if (from == null || to == null) {
      return;
    }
    int at = REJECTIONS.length + 1;
    long ended = to[at] - from[at];
    figures.put("judgedWindowMs", (to[0] - from[0]) / 1e6);
    figures.put("endedInWindow", (double) ended);
    if (ended > 0) {
      figures.put("queueWaitMeanMsInWindow", (to[at + 1] - from[at + 1]) / 1e6 / ended);
      figures.put("runMeanMsInWindow", (to[at + 2] - from[at + 2]) / 1e6 / ended);
    }
  }

  private static String perSecond(double rate) {
    return String.format(Locale.ROOT, "%.2f/s", rate);
  }

  private static long[] second(ArrayDeque<long[]> samples) {
    var it = samples.iterator();
    it.next();
    return it.next();
  }

  /**
   * {time, the refusal count of each outcome in REJECTIONS order, the tasks that ran and ended
   * since the lane started, their queue waits' sum and their run times' sum in nanoseconds}.
   */
  private static long[] sample(long now, LaneStats stats) {
    long[] s = new long[REJECTIONS.length + 4];
    s[0] = now;
    for (int i = 0; i < REJECTIONS.length; i++) {
      s[i + 1] = stats.count(REJECTIONS[i]);
    }
    int at = REJECTIONS.length + 1;
    s[at] = stats.sinceStart().queueWait().count();
    s[at + 1] = Math.round(stats.sinceStart().queueWait().mean() * s[at]);
    s[at + 2] = Math.round(stats.sinceStart().runTime().mean() * stats.sinceStart().runTime().count());
    return s;
  }

  /** Each of the lane's workers (name, state, frames) as text, once per alerted episode. */
  private static String workerStacks(Lane lane) {
    return lane.workerStacks();
  }

  /** A {@link Lanes} set watched whole: the listeners to remove on close. */
  private record SetWatch(Lanes lanes, Consumer<Lane> added, Consumer<Lane> removed) {}

  // ------------------------------------------------------------------------------ builder

  /**
   * Settings of a {@link LaneAlerts}; each may be given once (a second call is an {@code
   * IllegalStateException} naming the setting). Durations are at most {@link #MAX_DURATION}.
   */
  public static final class Builder {
    /** Longest duration of any setting. */
    public static final Duration MAX_DURATION = Duration.ofDays(1);
    /** Shortest check interval. */
    public static final Duration MIN_CHECK_INTERVAL = Duration.ofMillis(10);
    /**
     * Shortest time a dedupe claim is held (it is held for the silence window when that is
     * longer): instances whose episodes begin a few checks apart still share one alert.
     */
    public static final Duration MIN_CLAIM_HOLD = Duration.ofMinutes(1);

    private Duration saturatedFor = Duration.ofSeconds(30);
    private double rejectionsPerSecond = 1.0;
    private Duration rejectionWindow = Duration.ofMinutes(1);
    private Duration silence = Duration.ofMinutes(15);
    private boolean recoveryMessages;
    private Duration checkInterval = Duration.ofSeconds(1);
    private ScheduledExecutorService scheduler;
    private boolean manual;
    private Ticker ticker = Ticker.system();
    private Duration failureLogInterval = Duration.ofMinutes(1);
    private final List<AlertSink> sinks = new ArrayList<>();
    private AlertDedupe dedupe = AlertDedupe.none();

    private Builder() {}

    /**
     * Shares alerts with the other instances of the service: each firing alert is sent only by the
     * instance whose {@link AlertDedupe#claim} is granted, held for the silence window (at least
     * {@link #MIN_CLAIM_HOLD}); the recovery message comes from that instance (default {@link
     * AlertDedupe#none()}: every instance sends its own).
     *
     * @param dedupe the dedupe, e.g. lanes-redis's {@code RedisAlertDedupe}
     * @return this builder
     */
    public Builder dedupe(AlertDedupe dedupe) {
      Objects.requireNonNull(dedupe, "lanes alerts: dedupe must not be null");
      once("dedupe", dedupe);
      this.dedupe = dedupe;
      return this;
    }

    /**
     * Alert when a lane has been SATURATED or worse for this long (default 30 s).
     *
     * @param duration 0 (at the first check that sees it) to {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder saturatedFor(Duration duration) {
      range("saturatedFor", duration, Duration.ZERO);
      once("saturatedFor", duration);
      this.saturatedFor = duration;
      return this;
    }

    /**
     * Alert when a lane refuses or drops more than {@code perSecond} tasks a second, all reasons
     * together, counted over the last {@code window} (defaults 1/s over 1 min).
     *
     * @param perSecond a finite number, 0 or more (0: any refusal)
     * @param window from 1 ms to {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder rejectionsPerSecond(double perSecond, Duration window) {
      if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
        throw new IllegalArgumentException(
            "lanes alerts: rejectionsPerSecond must be a finite number ≥ 0, was " + perSecond);
      }
      range("rejection window", window, Duration.ofMillis(1));
      once("rejectionsPerSecond", perSecond + " over " + window);
      this.rejectionsPerSecond = perSecond;
      this.rejectionWindow = window;
      return this;
    }

    /**
     * No two alerts of one kind for one lane less than this apart (default 15 min).
     *
     * @param silence 0 to {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder silence(Duration silence) {
      range("silence", silence, Duration.ZERO);
      once("silence", silence);
      this.silence = silence;
      return this;
    }

    /**
     * Also send a {@linkplain Alert#resolved() resolved} alert when an alerted episode ends (off
     * by default).
     *
     * @return this builder
     */
    public Builder recoveryMessages() {
      once("recoveryMessages", true);
      this.recoveryMessages = true;
      return this;
    }

    /**
     * How often the lanes are checked (default 1 s).
     *
     * @param interval {@link #MIN_CHECK_INTERVAL} to {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder checkInterval(Duration interval) {
      range("checkInterval", interval, MIN_CHECK_INTERVAL);
      once("checkInterval", interval);
      this.checkInterval = interval;
      return this;
    }

    /**
     * Run the checks on the caller's scheduler instead of a {@code lanes-alerts} thread; {@link
     * LaneAlerts#close()} cancels them and leaves the scheduler running.
     *
     * @param scheduler the scheduler
     * @return this builder
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      Objects.requireNonNull(scheduler, "lanes alerts: scheduler must not be null");
      once("checks", "on " + scheduler);
      this.scheduler = scheduler;
      return this;
    }

    /**
     * No scheduled checks: lanes are checked only when {@link LaneAlerts#check()} is called.
     *
     * @return this builder
     */
    public Builder manualChecks() {
      once("checks", "manual");
      this.manual = true;
      return this;
    }

    /**
     * The clock of every duration: saturated-for, the rate window, the silence window (default
     * {@link Ticker#system()}).
     *
     * @param ticker the clock
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      Objects.requireNonNull(ticker, "lanes alerts: ticker must not be null");
      once("ticker", ticker);
      this.ticker = ticker;
      return this;
    }

    /**
     * A failing sink, a failing check, is logged at most once per this interval (default 1 min).
     *
     * @param interval 1 ms to {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder failureLogInterval(Duration interval) {
      range("failureLogInterval", interval, Duration.ofMillis(1));
      once("failureLogInterval", interval);
      this.failureLogInterval = interval;
      return this;
    }

    /**
     * Adds a sink; every alert goes to every sink, in the order added.
     *
     * @param sink the sink ({@link AlertSink#log}, a {@link WebhookSink}, or your own)
     * @return this builder
     */
    public Builder sink(AlertSink sink) {
      Objects.requireNonNull(sink, "lanes alerts: sink must not be null");
      sinks.add(sink);
      return this;
    }

    /**
     * {@return the watcher; its checks start now (unless manual)}
     *
     * @throws IllegalStateException if no sink was added
     */
    public LaneAlerts build() {
      if (sinks.isEmpty()) {
        throw new IllegalStateException("lanes alerts: no sink; add one, e.g."
            + " .sink(AlertSink.log(System.Logger.Level.WARNING))");
      }
      return new LaneAlerts(this);
    }

    private static void range(String setting, Duration d, Duration min) {
      Objects.requireNonNull(d, "lanes alerts: " + setting + " must not be null");
      if (d.compareTo(min) < 0 || d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException("lanes alerts: " + setting + " must be between " + min
            + " and " + MAX_DURATION + ", was " + d);
      }
    }

    private final Map<String, Object> values = new LinkedHashMap<>();

    private void once(String setting, Object value) {
      Object before = values.putIfAbsent(setting, value);
      if (before != null) {
        throw new IllegalStateException("lanes alerts: " + setting + " was already set to "
            + before + "; refused " + value);
      }
    }
  }
}
