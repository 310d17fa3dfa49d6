package dev.lanes;

import dev.lanes.internal.LaneExecutor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

/**
 * Builds a {@link Lane}. Start from {@link Lane#cpu}, {@link Lane#blocking} or {@link
 * Lane#virtual}. Every setting is checked when set and the combination when built; a message names
 * the lane, the setting, the bound and the value: {@code lane "db": threads must be between 1 and
 * 32767, was 0}.
 */
public final class LaneBuilder {

  /** Largest queue a lane accepts (the queue's array is allocated up front). */
  public static final int MAX_QUEUE_CAPACITY = 1 << 24;

  /** Most platform threads one lane may have. */
  public static final int MAX_THREADS = 32_767;

  /** Largest {@code maxConcurrency} of a virtual lane. */
  public static final int MAX_VIRTUAL_CONCURRENCY = 1_000_000;

  /** Default queue capacity of every lane kind. */
  public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

  private final String name;
  private final LaneKind kind;
  private int concurrency;
  private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
  private OverflowPolicy overflow = OverflowPolicy.reject();
  private CpuTiming cpuTiming = CpuTiming.defaults();
  private boolean daemon = false;
  private TaskDecorator taskDecorator = TaskDecorator.NONE;
  private Thread.UncaughtExceptionHandler exceptionHandler;
  private ThreadFactory threadFactory;
  private LongSupplier ticker = System::nanoTime;
  private Duration statsInterval = Duration.ofSeconds(10);
  private HealthConfig health = HealthConfig.defaults();

  LaneBuilder(String name, LaneKind kind, int concurrency) {
    this.name = checkName(name);
    this.kind = Objects.requireNonNull(kind, "kind");
    if (kind == LaneKind.VIRTUAL) {
      maxConcurrency(concurrency);
    } else {
      threads(concurrency);
    }
  }

  /** Longest lane name. */
  public static final int MAX_NAME_LENGTH = 200;

  /** A lane's name, trimmed; printable characters only, 1 to {@value #MAX_NAME_LENGTH} of them. */
  static String checkName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("lane name must not be blank, was " + quote(name));
    }
    String trimmed = name.strip();
    if (trimmed.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("lane name must be at most " + MAX_NAME_LENGTH
          + " characters, was " + trimmed.length() + " (" + quote(trimmed.substring(0, 40)) + "…)");
    }
    for (int i = 0; i < trimmed.length(); ) {
      int cp = trimmed.codePointAt(i);
      if (Character.isISOControl(cp) || !Character.isDefined(cp)
          || Character.getType(cp) == Character.FORMAT) {
        throw new IllegalArgumentException(String.format(
            "lane name must be printable, was %s with U+%04X at index %d",
            quote(trimmed.replaceAll("\\p{Cntrl}", "?")), cp, i));
      }
      i += Character.charCount(cp);
    }
    return trimmed;
  }

  static LaneBuilder from(LaneConfig c) {
    LaneBuilder b = new LaneBuilder(c.name(), c.kind(), c.concurrency());
    b.queueCapacity = c.queueCapacity();
    b.overflow = c.overflow();
    b.cpuTiming = c.cpuTiming();
    b.daemon = c.daemon();
    b.taskDecorator = c.taskDecorator();
    b.exceptionHandler = c.exceptionHandler();
    b.threadFactory = c.threadFactory();
    b.ticker = c.ticker();
    b.statsInterval = c.statsInterval();
    b.health = c.health();
    return b;
  }

  /** The lane's name. */
  public String name() {
    return name;
  }

  /** Platform threads (CPU and BLOCKING lanes). */
  public LaneBuilder threads(int threads) {
    if (kind == LaneKind.VIRTUAL) {
      throw new IllegalArgumentException(
          prefix() + "threads does not apply to a virtual lane; use maxConcurrency");
    }
    requireRange("threads", threads, 1, MAX_THREADS);
    this.concurrency = threads;
    return this;
  }

  /** Virtual threads running at once (VIRTUAL lanes). */
  public LaneBuilder maxConcurrency(int maxConcurrency) {
    if (kind != LaneKind.VIRTUAL) {
      throw new IllegalArgumentException(
          prefix() + "maxConcurrency applies to virtual lanes only; use threads");
    }
    requireRange("maxConcurrency", maxConcurrency, 1, MAX_VIRTUAL_CONCURRENCY);
    this.concurrency = maxConcurrency;
    return this;
  }

  /**
   * How many tasks may wait beyond the ones running (default {@value #DEFAULT_QUEUE_CAPACITY}): the
   * lane holds at most {@code threads} (or {@code maxConcurrency}) + {@code queueCapacity}
   * unfinished tasks, whatever its workers are doing at the instant of a submission. The queue's
   * slots are allocated up front.
   */
  public LaneBuilder queueCapacity(int queueCapacity) {
    requireRange("queueCapacity", queueCapacity, 1, MAX_QUEUE_CAPACITY);
    this.queueCapacity = queueCapacity;
    return this;
  }

  /** What to do when the queue is full (default {@link OverflowPolicy#reject()}). */
  public LaneBuilder overflow(OverflowPolicy overflow) {
    this.overflow = Objects.requireNonNull(overflow, prefix() + "overflow must not be null");
    if (overflow instanceof OverflowPolicy.BlockCaller b) {
      Duration t = b.timeout();
      if (t.isNegative() || t.isZero() || t.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            prefix() + "overflow block-caller timeout must be between 1ns and PT24H, was " + t);
      }
    }
    return this;
  }

  /** How often to read CPU time (default {@link CpuTiming#defaults()}: 1 task in 64). */
  public LaneBuilder cpuTiming(CpuTiming cpuTiming) {
    this.cpuTiming = Objects.requireNonNull(cpuTiming, prefix() + "cpuTiming must not be null");
    return this;
  }

  /**
   * Whether the lane's platform threads are daemon threads. Default {@code false}, as in the JDK's
   * executors: the JVM waits for a lane that was not closed. Virtual threads are always daemons.
   */
  public LaneBuilder daemon(boolean daemon) {
    this.daemon = daemon;
    return this;
  }

  /** Wraps every task at submission (context propagation); see {@link TaskDecorator}. */
  public LaneBuilder taskDecorator(TaskDecorator taskDecorator) {
    this.taskDecorator =
        Objects.requireNonNull(taskDecorator, prefix() + "taskDecorator must not be null");
    return this;
  }

  /**
   * Receives what tasks given to {@code execute()} throw. Default: the running thread's own
   * uncaught-exception handler. (Tasks given to {@code submit()} fail their future instead.)
   */
  public LaneBuilder exceptionHandler(Thread.UncaughtExceptionHandler handler) {
    this.exceptionHandler = handler;
    return this;
  }

  /**
   * Makes the lane's threads. Default: platform threads named {@code <lane>-<n>} with the {@link
   * #daemon} setting, or virtual threads named the same way for a virtual lane. A factory given
   * here must make virtual threads for a virtual lane ({@link #build()} asks it for one unstarted
   * thread to check); it may return {@code null} or throw to refuse, which lanes handles.
   */
  public LaneBuilder threadFactory(ThreadFactory threadFactory) {
    this.threadFactory = threadFactory;
    return this;
  }

  /** The clock for every timestamp (default {@link System#nanoTime()}); for tests and the lab. */
  public LaneBuilder ticker(LongSupplier ticker) {
    this.ticker = Objects.requireNonNull(ticker, prefix() + "ticker must not be null");
    return this;
  }

  /** Length of the "recent" window in {@link LaneStats} (default 10 s, from 100 ms to 1 h). */
  public LaneBuilder statsInterval(Duration statsInterval) {
    Objects.requireNonNull(statsInterval, prefix() + "statsInterval must not be null");
    if (statsInterval.compareTo(Duration.ofMillis(100)) < 0
        || statsInterval.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          prefix() + "statsInterval must be between PT0.1S and PT1H, was " + statsInterval);
    }
    this.statsInterval = statsInterval;
    return this;
  }

  /**
   * Saturation and deadlock-detection settings (default {@link HealthConfig#defaults()}); checked
   * here, with this lane's name in the message.
   */
  public LaneBuilder health(HealthConfig health) {
    Objects.requireNonNull(health, prefix() + "health must not be null");
    health.validate(name);
    this.health = health;
    return this;
  }

  /** The validated settings, without starting anything. */
  public LaneConfig config() {
    // Not an error: the JDK has no CPU time for virtual threads, so a virtual lane's config says off.
    CpuTiming effectiveCpuTiming = kind == LaneKind.VIRTUAL ? CpuTiming.off() : cpuTiming;
    return new LaneConfig(
        name,
        kind,
        concurrency,
        queueCapacity,
        overflow,
        effectiveCpuTiming,
        daemon,
        taskDecorator,
        exceptionHandler,
        threadFactory,
        ticker,
        statsInterval,
        health);
  }

  /**
   * Builds and starts the lane (a platform lane starts its threads now). Checks the combination of
   * settings first: a thread factory must make virtual threads for a virtual lane (it is asked
   * for one unstarted thread to see), and the queue's up-front memory must fit the heap.
   */
  public Lane build() {
    if (threadFactory != null && kind == LaneKind.VIRTUAL) {
      Thread probe;
      try {
        probe = threadFactory.newThread(() -> {});
      } catch (RuntimeException | Error refused) {
        probe = null; // a factory that refuses now is handled when a thread is needed
      }
      if (probe != null && !probe.isVirtual()) {
        throw new IllegalArgumentException(prefix() + "threadFactory must make virtual threads for"
            + " a virtual lane, made platform thread " + quote(probe.getName()));
      }
    }
    return new LaneExecutor(config());
  }

  private String prefix() {
    return "lane " + quote(name) + ": ";
  }

  private void requireRange(String setting, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          prefix() + setting + " must be between " + min + " and " + max + ", was " + value);
    }
  }

  static String quote(String s) {
    return s == null ? "null" : '"' + s + '"';
  }
}
