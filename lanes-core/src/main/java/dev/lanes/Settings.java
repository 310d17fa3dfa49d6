package dev.lanes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * The settings a running lane acts on, as one immutable value: concurrency, queue capacity,
 * overflow, shedding and the health thresholds. Every decision — admit a task, start or retire a
 * worker, take a task, judge health — reads the lane's {@link Current} once and acts on that one
 * value; a live change replaces it whole, so no decision ever mixes two sets, and {@link
 * Lane#settings()} returns exactly a set that was applied.
 */
final class Settings {
  final int concurrency;
  final int queueCapacity;
  final OverflowPolicy overflow;
  /** Shedding's target queue wait, 0 when shedding is off. */
  final long shedTargetNanos;
  /** How long waits must stay above the target before tasks are shed, 0 when off. */
  final long shedIntervalNanos;
  final HealthSettings health;

  Settings(int concurrency, int queueCapacity, OverflowPolicy overflow, long shedTargetNanos,
      long shedIntervalNanos, HealthSettings health) {
    this.concurrency = concurrency;
    this.queueCapacity = queueCapacity;
    this.overflow = overflow;
    this.shedTargetNanos = shedTargetNanos;
    this.shedIntervalNanos = shedIntervalNanos;
    this.health = health;
  }

  /** How many unfinished tasks (queued or running) a lane under these settings holds at most. */
  int room() {
    return concurrency + queueCapacity;
  }

  /** These settings with the changeable ones taken from {@code s}. */
  Settings with(LaneSettings s) {
    return new Settings(s.concurrency(), s.queueCapacity(), s.overflow(),
        s.shedTarget().toNanos(), s.shedInterval().toNanos(),
        new HealthSettings(s.saturationWindow(), s.waitToRunRatio(), s.fixedWaitThreshold(),
            s.saturationMinWait(), s.enterAfter(), s.exitAfter(), health.deadlockAction(),
            health.deadlockDetection(), health.maxCompensationThreads(), health.logLevel()));
  }

  /** The public view. */
  LaneSettings view() {
    return new LaneSettings(concurrency, queueCapacity, overflow,
        Duration.ofNanos(shedTargetNanos), Duration.ofNanos(shedIntervalNanos),
        health.waitToRunRatio(), health.fixedWaitThreshold(), health.window(), health.minWait(),
        health.enterAfter(), health.exitAfter());
  }

  /**
   * A lane's settings now: one field, replaced whole by compare-and-set.
   *
   * <p><b>Concurrency design.</b> {@link #get} is one volatile read; {@link #replace} a CAS from
   * the value the changer read, so of two changes made at once the second starts from what the
   * first left (the lane also makes its changes one at a time, for their side effects).
   */
  static final class Current {
    private static final VarHandle VALUE;

    static {
      try {
        VALUE = MethodHandles.lookup().findVarHandle(Current.class, "value", Settings.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    @SuppressWarnings("unused") // through VALUE
    private volatile Settings value;

    Current(Settings initial) {
      this.value = initial;
    }

    Settings get() {
      return value;
    }

    /** Replaces {@code expected} with {@code next}; false if another change came first. */
    boolean replace(Settings expected, Settings next) {
      return VALUE.compareAndSet(this, expected, next);
    }
  }
}
