package dev.lanes;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Builds a {@link Lane}. Start from {@link Lane#cpu}, {@link Lane#blocking} or {@link
 * Lane#virtual}. Every setting is checked when set, may be given once (a second call is an error,
 * so two pieces of configuration cannot silently override each other), and the combination is
 * checked when built; a message names the lane, the setting, the bound and the value: {@code lane
 * "db": concurrency must be between 1 and 32767, was 0}.
 */
public final class LaneBuilder {

  /** Largest queue a lane accepts (the queue's array may grow to hold it all). */
  public static final int MAX_QUEUE_CAPACITY = SettingChecks.MAX_QUEUE_CAPACITY;

  /** Most platform threads one lane may have (its largest concurrency). */
  public static final int MAX_PLATFORM_CONCURRENCY = SettingChecks.MAX_PLATFORM_CONCURRENCY;

  /** Largest concurrency of a virtual lane. */
  public static final int MAX_VIRTUAL_CONCURRENCY = SettingChecks.MAX_VIRTUAL_CONCURRENCY;

  /** Default queue capacity of every lane kind. */
  public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

  /** Default interval between CPU-time readings of one worker ({@link #cpuTimeSampled}). */
  public static final Duration DEFAULT_CPU_SAMPLE_INTERVAL = Duration.ofMillis(1);

  /** Longest lane name. */
  public static final int MAX_NAME_LENGTH = 200;

  final String name;
  final LaneKind kind;
  int concurrency;
  int queueCapacity = DEFAULT_QUEUE_CAPACITY;
  OverflowPolicy overflow = OverflowPolicy.reject();
  /** -1 off, 0 every task, else nanoseconds between one worker's CPU readings. */
  long cpuSampleNanos = DEFAULT_CPU_SAMPLE_INTERVAL.toNanos();
  boolean daemon = false;
  boolean reportPinning = false;
  TaskDecorator taskDecorator = TaskDecorator.NONE;
  Thread.UncaughtExceptionHandler exceptionHandler;
  ThreadFactory threadFactory;
  Ticker ticker = Ticker.system();
  Duration statsInterval = Duration.ofSeconds(10);
  Duration saturationWindow = HealthSettings.DEFAULT_WINDOW;
  double waitToRunRatio = HealthSettings.DEFAULT_WAIT_TO_RUN_RATIO;
  Duration fixedWaitThreshold;
  Duration saturationMinWait = HealthSettings.DEFAULT_MIN_WAIT;
  Duration enterAfter = HealthSettings.DEFAULT_ENTER_AFTER;
  Duration exitAfter = HealthSettings.DEFAULT_EXIT_AFTER;
  HealthSettings.DeadlockAction deadlockAction = HealthSettings.DeadlockAction.REPORT;
  Duration deadlockDetection = HealthSettings.DEFAULT_DEADLOCK_DETECTION;
  int maxCompensationThreads = 0;
  System.Logger.Level healthLogLevel = HealthSettings.DEFAULT_LOG_LEVEL;
  /** Shedding target and interval in nanoseconds; 0 when shedding is off. */
  long shedTargetNanos = 0;
  long shedIntervalNanos = 0;
  /** The lane's gate ({@link #gate}), or null. */
  LaneGate gate;

  /** Settings given so far, with the value shown when one is given again. */
  private final Map<String, Object> given = new HashMap<>();

  private LaneBuilder(String name, LaneKind kind) {
    this.name = checkName(name);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** Marks "as many as available processors" for {@link Lane#cpu} (a settable default). */
  static final int CORES = Integer.MIN_VALUE;

  static LaneBuilder start(String name, LaneKind kind, int concurrency) {
    LaneBuilder b = new LaneBuilder(name, kind);
    if (concurrency == CORES) {
      b.concurrency = Runtime.getRuntime().availableProcessors();
    } else {
      b.concurrency(concurrency);
    }
    return b;
  }

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

  /** {@return the lane's name, trimmed} */
  public String name() {
    return name;
  }

  /** {@return the lane's kind} */
  public LaneKind kind() {
    return kind;
  }

  /**
   * How many tasks may run at once: platform threads for CPU and BLOCKING lanes (a CPU lane's
   * default is the available processors), virtual threads at once for VIRTUAL lanes. Given by
   * {@link Lane#blocking} and {@link Lane#virtual}, so set here only for a CPU lane.
   *
   * @param concurrency 1 to {@value #MAX_PLATFORM_CONCURRENCY} for a platform lane, 1 to {@value
   *     #MAX_VIRTUAL_CONCURRENCY} for a virtual lane
   * @return this builder
   * @throws IllegalArgumentException if {@code concurrency} is out of range
   * @throws IllegalStateException if it was already set (always, on a BLOCKING or VIRTUAL lane's
   *     builder)
   */
  public LaneBuilder concurrency(int concurrency) {
    requireRange("concurrency", concurrency, 1, maxConcurrency(kind));
    once("concurrency", concurrency);
    this.concurrency = concurrency;
    return this;
  }

  static int maxConcurrency(LaneKind kind) {
    return SettingChecks.maxConcurrency(kind);
  }

  /**
   * How many tasks may wait beyond the ones running (default {@value #DEFAULT_QUEUE_CAPACITY}): the
   * lane holds at most {@code concurrency} + {@code queueCapacity} unfinished tasks, whatever its
   * workers are doing at the instant of a submission. The queue's array starts small and grows
   * with what waits, up to this bound (a lane whose bound the heap could not hold fails to build).
   *
   * @param queueCapacity 1 to {@value #MAX_QUEUE_CAPACITY}
   * @return this builder
   * @throws IllegalArgumentException if {@code queueCapacity} is out of range
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder queueCapacity(int queueCapacity) {
    requireRange("queueCapacity", queueCapacity, 1, MAX_QUEUE_CAPACITY);
    once("queueCapacity", queueCapacity);
    this.queueCapacity = queueCapacity;
    return this;
  }

  /**
   * What to do when the lane is full (default {@link OverflowPolicy#reject()}).
   *
   * @param overflow the policy
   * @return this builder
   * @throws NullPointerException if {@code overflow} is null
   * @throws IllegalArgumentException if a block-caller timeout is not between 1 ns and 24 h
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder overflow(OverflowPolicy overflow) {
    SettingChecks.overflow(name, overflow);
    once("overflow", overflow);
    this.overflow = overflow;
    return this;
  }

  /**
   * Reads a worker's CPU time around one of its tasks at most once per {@code interval} (default
   * {@link #DEFAULT_CPU_SAMPLE_INTERVAL}): the first task a worker starts after the interval has
   * passed since its last reading is measured. A reading costs a system call (about 0.6–0.7 µs
   * on the machines lanes is developed on), so this bounds its cost by time, whatever the task
   * rate. Virtual threads have no CPU time in the JDK, so virtual lanes report none. One of
   * {@code cpuTimeSampled}, {@link #cpuTimeEveryTask()} and {@link #cpuTimeOff()} may be given.
   *
   * @param interval the least time between two readings by one worker: 1 ns to 1 h
   * @return this builder
   * @throws NullPointerException if {@code interval} is null
   * @throws IllegalArgumentException if {@code interval} is out of range
   * @throws IllegalStateException if a CPU-time setting was already given
   */
  public LaneBuilder cpuTimeSampled(Duration interval) {
    SettingChecks.between(name, "cpuTimeSampled interval", interval, Duration.ofNanos(1),
        Duration.ofHours(1));
    once("cpuTime", "sampled every " + interval);
    this.cpuSampleNanos = interval.toNanos();
    return this;
  }

  /**
   * Reads the CPU time around every task. On platform lanes a worker's reading at the end of one
   * task is the start of the next when nothing ran in between, so a task's figure also includes
   * the worker's own dequeue work (well under a microsecond of CPU). Virtual lanes report no CPU
   * time whatever this setting.
   *
   * @return this builder
   * @throws IllegalStateException if a CPU-time setting was already given
   */
  public LaneBuilder cpuTimeEveryTask() {
    once("cpuTime", "every task");
    this.cpuSampleNanos = 0;
    return this;
  }

  /**
   * Never reads CPU time: the lane's CPU distributions stay empty and each {@link TaskRecord}'s
   * {@code cpuNanos} is -1.
   *
   * @return this builder
   * @throws IllegalStateException if a CPU-time setting was already given
   */
  public LaneBuilder cpuTimeOff() {
    once("cpuTime", "off");
    this.cpuSampleNanos = -1;
    return this;
  }

  /**
   * Whether the lane's platform threads are daemon threads. Default {@code false}, as in the JDK's
   * executors: the JVM waits for a lane that was not closed. Virtual threads are always daemons.
   * Applies to the default thread factory only; a factory given to {@link #threadFactory} decides
   * for itself.
   *
   * @param daemon true for daemon threads
   * @return this builder
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder daemon(boolean daemon) {
    once("daemon", daemon);
    this.daemon = daemon;
    return this;
  }

  /**
   * Reports when this virtual lane's tasks pin their carrier thread ({@link LaneStats#pinning()}):
   * how often, how long, where and under which task label. lanes reads the JDK's {@code
   * jdk.VirtualThreadPinned} events (pins of 20 ms or more, the JDK's default threshold) from an
   * in-process Flight Recorder stream, one for the JVM, open while a lane that reports pinning
   * runs; the stream also records lanes' task events of 20 ms or more, which name the lane and
   * label of each pin. That recording costs every task of every lane an event object while it
   * runs, so it is off unless asked for. Pins are seen after they end, when the stream next
   * flushes. Lanes are told apart by name: give lanes that report pinning names of their own.
   *
   * @return this builder
   * @throws IllegalStateException if it was already set, or the lane is not virtual (a platform
   *     thread has no carrier to pin)
   */
  public LaneBuilder reportPinning() {
    if (kind != LaneKind.VIRTUAL) {
      throw new IllegalStateException(prefix() + "reportPinning() is for virtual lanes: a "
          + kind.tag() + " lane's threads have no carrier to pin");
    }
    once("reportPinning", true);
    this.reportPinning = true;
    return this;
  }

  /**
   * Wraps every task at submission (context propagation); see {@link TaskDecorator}. Default
   * {@link TaskDecorator#NONE}.
   *
   * @param taskDecorator the decorator
   * @return this builder
   * @throws NullPointerException if {@code taskDecorator} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder taskDecorator(TaskDecorator taskDecorator) {
    Objects.requireNonNull(taskDecorator, prefix() + "taskDecorator must not be null");
    once("taskDecorator", taskDecorator);
    this.taskDecorator = taskDecorator;
    return this;
  }

  /**
   * Receives what tasks given to {@code execute()} throw, and the {@link LaneRejectedException}
   * of such a task dropped after it was accepted (discard-oldest, a gate that refuses it, no
   * thread to run it) when no future made for it can be reached — then on the
   * thread that dropped it, which may be a submitter's. Default: what a task throws goes to the
   * current thread's own uncaught-exception handler; a dropped task is counted (in {@code
   * stats()} under its outcome) and logged — the first at once in one line, the rest summarised in
   * one line per 10 s at most — because a stack trace per drop would flood the log under the
   * overload discard-oldest is for. (Tasks given to {@code submit()} fail or cancel their future
   * instead.)
   *
   * @param handler the handler; what it throws is logged
   * @return this builder
   * @throws NullPointerException if {@code handler} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder exceptionHandler(Thread.UncaughtExceptionHandler handler) {
    Objects.requireNonNull(handler, prefix() + "exceptionHandler must not be null");
    once("exceptionHandler", handler);
    this.exceptionHandler = handler;
    return this;
  }

  /**
   * Makes the lane's threads. Default: platform threads named {@code <lane>-<n>} with the {@link
   * #daemon} setting, or virtual threads named the same way for a virtual lane. A factory given
   * here must make virtual threads for a virtual lane ({@link #build()} asks it for one unstarted
   * thread to check); it may return {@code null} or throw to refuse, which lanes handles.
   *
   * @param threadFactory the factory
   * @return this builder
   * @throws NullPointerException if {@code threadFactory} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder threadFactory(ThreadFactory threadFactory) {
    Objects.requireNonNull(threadFactory, prefix() + "threadFactory must not be null");
    once("threadFactory", threadFactory);
    this.threadFactory = threadFactory;
    return this;
  }

  /**
   * The clock for every timestamp (default {@link Ticker#system()}); for tests and the lab.
   *
   * @param ticker the clock
   * @return this builder
   * @throws NullPointerException if {@code ticker} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder ticker(Ticker ticker) {
    Objects.requireNonNull(ticker, prefix() + "ticker must not be null");
    once("ticker", ticker);
    this.ticker = ticker;
    return this;
  }

  /**
   * Length of the "recent" window in {@link LaneStats} (default 10 s, from 100 ms to 1 h).
   *
   * @param statsInterval the window's length
   * @return this builder
   * @throws NullPointerException if {@code statsInterval} is null
   * @throws IllegalArgumentException if {@code statsInterval} is out of range
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder statsInterval(Duration statsInterval) {
    SettingChecks.between(name, "statsInterval", statsInterval, Duration.ofMillis(100),
        Duration.ofHours(1));
    once("statsInterval", statsInterval);
    this.statsInterval = statsInterval;
    return this;
  }

  /**
   * The lane is SATURATED when its queue wait exceeds {@code ratio} × the mean run time over the
   * saturation window (default 1: tasks wait in line longer than they run). The queue wait judged
   * is the larger of the mean wait of the tasks that started in the window and the age of the
   * oldest task still queued, so a queue that stopped moving shows before its tasks start. One of
   * this and {@link #saturatedWhenWaitExceeds} may be given.
   *
   * @param ratio a finite number above 0 and at most 1 000 000
   * @return this builder
   * @throws IllegalArgumentException if {@code ratio} is not above 0 (NaN included) or above
   *     1 000 000
   * @throws IllegalStateException if a saturation threshold was already given
   */
  public LaneBuilder saturatedWhenWaitExceedsRun(double ratio) {
    SettingChecks.waitToRunRatio(name, ratio);
    once("saturation threshold", "wait > " + ratio + " × run");
    this.waitToRunRatio = ratio;
    return this;
  }

  /**
   * The lane is SATURATED when its queue wait over the window (the larger of the mean wait and the
   * oldest queued task's age, as for {@link #saturatedWhenWaitExceedsRun}) exceeds {@code wait},
   * whatever the run time. One of this and {@link #saturatedWhenWaitExceedsRun} may be given.
   *
   * @param wait the threshold, above 0 and at most 1 hour
   * @return this builder
   * @throws NullPointerException if {@code wait} is null
   * @throws IllegalArgumentException if {@code wait} is 0, negative or above 1 hour
   * @throws IllegalStateException if a saturation threshold was already given
   */
  public LaneBuilder saturatedWhenWaitExceeds(Duration wait) {
    Objects.requireNonNull(wait, prefix() + "saturation wait must not be null");
    requirePositive("saturation wait", wait);
    once("saturation threshold", "wait > " + wait);
    this.fixedWaitThreshold = wait;
    return this;
  }

  /** Longest shedding target or interval ({@link #shedWhenQueuedLongerThan}). */
  public static final Duration MAX_SHED_DURATION = SettingChecks.MAX_SHED_DURATION;

  /**
   * Fails new tasks fast while the queue has held a standing line: once the oldest queued task has
   * waited longer than {@code target}, and queued tasks have kept waiting longer than that for a
   * whole {@code interval}, each new task is refused with {@link TaskOutcome#SHED} (counted, a
   * {@link LaneRejectedException} to the caller, whatever the overflow policy), until a task
   * starts, or is found at the head of the queue, having waited {@code target} or less, or the
   * queue is empty. The idea is CoDel's (a standing queue, not a burst, is what to refuse);
   * {@code target} 5 ms and {@code interval} 100 ms are its classic values. Off by default. The
   * check reads the head of the queue on every submission; it is approximate under concurrency
   * (a task taken while it is read), never a lock.
   *
   * @param target the queue wait a task may have without counting toward shedding, above 0 and
   *     at most {@link #MAX_SHED_DURATION}
   * @param interval how long waits must stay above {@code target} before new tasks are refused,
   *     above 0 and at most {@link #MAX_SHED_DURATION}
   * @return this builder
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if either is out of its range
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder shedWhenQueuedLongerThan(Duration target, Duration interval) {
    Objects.requireNonNull(target, prefix() + "shedding target must not be null");
    Objects.requireNonNull(interval, prefix() + "shedding interval must not be null");
    requireShedRange("shedding target", target);
    requireShedRange("shedding interval", interval);
    once("shedWhenQueuedLongerThan", target + ", " + interval);
    this.shedTargetNanos = target.toNanos();
    this.shedIntervalNanos = interval.toNanos();
    return this;
  }

  private void requireShedRange(String setting, Duration d) {
    SettingChecks.shedRange(name, setting, d);
  }

  /**
   * Sliding window of the saturation figures (default 5 s). The health thread keeps a sample of
   * the lane's counts per check (10 a second) within the window, and at most 1000 of them: a
   * window longer than 100 s is judged from samples one thousandth of it apart, so its start is
   * exact to within a thousandth of its length.
   *
   * @param window the window's length, above 0 and at most 1 hour
   * @return this builder
   * @throws NullPointerException if {@code window} is null
   * @throws IllegalArgumentException if {@code window} is 0, negative or above 1 hour
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder saturationWindow(Duration window) {
    Objects.requireNonNull(window, prefix() + "saturationWindow must not be null");
    requirePositive("saturationWindow", window);
    once("saturationWindow", window);
    this.saturationWindow = window;
    return this;
  }

  /**
   * Waits below this never make the lane saturated (default 1 ms: a 3 µs wait behind a 1 µs task
   * is no problem).
   *
   * @param minWait the floor of the wait threshold, 0 to 1 hour
   * @return this builder
   * @throws NullPointerException if {@code minWait} is null
   * @throws IllegalArgumentException if {@code minWait} is negative or above 1 hour
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder saturationMinWait(Duration minWait) {
    Objects.requireNonNull(minWait, prefix() + "saturationMinWait must not be null");
    requireNotNegative("saturationMinWait", minWait);
    once("saturationMinWait", minWait);
    this.saturationMinWait = minWait;
    return this;
  }

  /**
   * How long the saturation (or rejection) condition must hold before the state worsens, and stop
   * holding before it goes back to OK (defaults 1 s and 2 s).
   *
   * @param enterAfter how long the condition must hold before the state worsens, 0 to 1 hour
   * @param exitAfter how long the condition must stop holding before the state is OK again, 0 to
   *     1 hour
   * @return this builder
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if either is negative or above 1 hour
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder saturationHysteresis(Duration enterAfter, Duration exitAfter) {
    Objects.requireNonNull(enterAfter, prefix() + "saturationHysteresis enterAfter must not be null");
    Objects.requireNonNull(exitAfter, prefix() + "saturationHysteresis exitAfter must not be null");
    requireNotNegative("saturationHysteresis enterAfter", enterAfter);
    requireNotNegative("saturationHysteresis exitAfter", exitAfter);
    once("saturationHysteresis", enterAfter + ", " + exitAfter);
    this.enterAfter = enterAfter;
    this.exitAfter = exitAfter;
    return this;
  }

  /**
   * How long a starvation deadlock seen only through futures lanes did not make ({@code
   * CompletableFuture.supplyAsync(.., lane).join()}) must hold before it is reported (default 200
   * ms); one seen through lanes' own futures is reported the moment it forms. Every deadlock is
   * reported (state DEADLOCKED, a health event, a logged diagnostic); {@link #failOnDeadlock()}
   * and {@link #compensateOnDeadlock(int)} also act on it.
   *
   * @param detection how long, above 0 and at most 1 hour
   * @return this builder
   * @throws NullPointerException if {@code detection} is null
   * @throws IllegalArgumentException if {@code detection} is 0, negative or above 1 hour
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder deadlockDetection(Duration detection) {
    Objects.requireNonNull(detection, prefix() + "deadlockDetection must not be null");
    requirePositive("deadlockDetection", detection);
    once("deadlockDetection", detection);
    this.deadlockDetection = detection;
    return this;
  }

  /**
   * On a proven starvation deadlock, fails the queued tasks every worker waits on (their futures
   * complete with a {@link LaneRejectedException}, outcome {@link TaskOutcome#DEADLOCK}), which
   * releases the waiters instead of hanging them. One of this and {@link #compensateOnDeadlock}
   * may be given.
   *
   * @return this builder
   * @throws IllegalStateException if a deadlock action was already given
   */
  public LaneBuilder failOnDeadlock() {
    once("deadlock action", "fail");
    this.deadlockAction = HealthSettings.DeadlockAction.FAIL;
    return this;
  }

  /**
   * On a proven starvation deadlock, runs the queued tasks every worker waits on, each on a
   * temporary extra thread that ends after it, at most {@code maxExtraThreads} at once. One of this
   * and {@link #failOnDeadlock()} may be given.
   *
   * @param maxExtraThreads 1 to {@value #MAX_PLATFORM_CONCURRENCY}
   * @return this builder
   * @throws IllegalArgumentException if {@code maxExtraThreads} is out of range
   * @throws IllegalStateException if a deadlock action was already given
   */
  public LaneBuilder compensateOnDeadlock(int maxExtraThreads) {
    requireRange("compensateOnDeadlock maxExtraThreads", maxExtraThreads, 1,
        MAX_PLATFORM_CONCURRENCY);
    once("deadlock action", "compensate with up to " + maxExtraThreads + " threads");
    this.deadlockAction = HealthSettings.DeadlockAction.COMPENSATE;
    this.maxCompensationThreads = maxExtraThreads;
    return this;
  }

  /**
   * The level at which the lane logs its health changes between OK, SATURATED and REJECTING
   * (default {@code INFO}: a lane saturates under a load that was planned, and a warning for it
   * cries wolf; choose {@code WARNING} where saturation should page, {@code OFF} to log none). A
   * starvation deadlock (DEADLOCKED, or a suspected one) is a bug, not a load: it is always logged
   * at {@code WARNING}.
   *
   * @param level the level; {@code ALL} is taken as {@code TRACE}
   * @return this builder
   * @throws NullPointerException if {@code level} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder healthLogLevel(System.Logger.Level level) {
    Objects.requireNonNull(level, prefix() + "healthLogLevel must not be null");
    once("healthLogLevel", level);
    this.healthLogLevel = level == System.Logger.Level.ALL ? System.Logger.Level.TRACE : level;
    return this;
  }

  /**
   * A gate every queued task passes before it starts ({@link LaneGate}: a limit beyond the lane's
   * own concurrency that the lane does not own, such as a cap shared across processes). Default:
   * none. A lane with a gate cannot run tasks outside it, so {@link #build()} refuses it with
   * {@link OverflowPolicy#callerRuns()} (the caller would run the task without a pass) and with
   * {@link #compensateOnDeadlock} (an extra thread would too).
   *
   * @param gate the gate
   * @return this builder
   * @throws NullPointerException if {@code gate} is null
   * @throws IllegalStateException if it was already set
   */
  public LaneBuilder gate(LaneGate gate) {
    Objects.requireNonNull(gate, prefix() + "gate must not be null");
    once("gate", gate);
    this.gate = gate;
    return this;
  }

  HealthSettings health() {
    return new HealthSettings(saturationWindow, waitToRunRatio, fixedWaitThreshold,
        saturationMinWait, enterAfter, exitAfter, deadlockAction, deadlockDetection,
        maxCompensationThreads, healthLogLevel);
  }

  /** CPU readings are off for virtual lanes: the JDK has no CPU time for virtual threads. */
  long effectiveCpuSampleNanos() {
    return kind == LaneKind.VIRTUAL ? -1 : cpuSampleNanos;
  }

  /**
   * Builds and starts the lane (a platform lane starts its threads now). Checks the combination of
   * settings first: a thread factory must make virtual threads for a virtual lane (it is asked
   * for one unstarted thread to see), and the queue's up-front memory must fit the heap.
   *
   * @return the running lane
   * @throws IllegalArgumentException if the combination of settings is refused; the message names
   *     the lane and the setting
   * @throws IllegalStateException if a platform lane could not start one of its threads (the
   *     threads it started are stopped)
   */
  public Lane build() {
    return build(TaskDecorator.NONE);
  }

  /** Builds with {@code outer} around this builder's own decorator (for {@link Lanes}). */
  Lane build(TaskDecorator outer) {
    SettingChecks.gateAllows(name, gate, overflow);
    if (gate != null && deadlockAction == HealthSettings.DeadlockAction.COMPENSATE) {
      throw new IllegalArgumentException(prefix() + "a gate cannot go with compensateOnDeadlock:"
          + " a compensation thread would run the task without passing the gate");
    }
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
    return new LaneExecutor(spec(), outer.andThen(taskDecorator));
  }

  /** What the lane is built from. */
  LaneSpec spec() {
    return new LaneSpec(name, kind, ticker, gate,
        new Settings(concurrency, queueCapacity, overflow, shedTargetNanos, shedIntervalNanos,
            health()),
        threadFactory != null ? threadFactory : defaultThreadFactory(),
        exceptionHandler, statsInterval.toNanos(), effectiveCpuSampleNanos(), reportPinning);
  }

  private ThreadFactory defaultThreadFactory() {
    if (kind == LaneKind.VIRTUAL) {
      return Thread.ofVirtual().name(name + "-", 1).factory();
    }
    return Thread.ofPlatform().name(name + "-", 1).daemon(daemon).factory();
  }

  /** The settings given, for people. */
  @Override
  public String toString() {
    return "LaneBuilder[" + name + ", " + kind.tag() + ", concurrency " + concurrency
        + ", queueCapacity " + queueCapacity + ", given " + given.keySet() + "]";
  }

  private void once(String setting, Object value) {
    Object before = given.putIfAbsent(setting, value);
    if (before != null) {
      throw new IllegalStateException(prefix() + setting + " was already set to " + before
          + "; cannot set it to " + value);
    }
  }

  private String prefix() {
    return SettingChecks.prefix(name);
  }

  private void requireRange(String setting, int value, int min, int max) {
    SettingChecks.range(name, setting, value, min, max);
  }

  private void requirePositive(String setting, Duration d) {
    SettingChecks.positive(name, setting, d);
  }

  private void requireNotNegative(String setting, Duration d) {
    SettingChecks.notNegative(name, setting, d);
  }

  static String quote(String s) {
    return SettingChecks.quote(s);
  }
}
