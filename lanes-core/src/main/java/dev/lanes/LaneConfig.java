package dev.lanes;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

/**
 * A lane's validated, immutable settings. Made by {@link LaneBuilder#config()}; a lane copies
 * nothing out of it later, so it can be shared and compared.
 *
 * @param name the lane's name (threads are named {@code <name>-<n>})
 * @param kind what the lane is for
 * @param concurrency platform threads for CPU and BLOCKING lanes; {@code maxConcurrency} for
 *     VIRTUAL lanes (its initial value: it can be changed while running)
 * @param queueCapacity how many tasks may wait; never unbounded
 * @param overflow what happens when the queue is full
 * @param cpuTiming how often CPU time is read
 * @param daemon whether platform threads are daemons (virtual threads always are)
 * @param taskDecorator wraps every task at submission
 * @param exceptionHandler receives exceptions thrown by tasks given to {@code execute()}; {@code
 *     null} means the running thread's own {@link Thread.UncaughtExceptionHandler}
 * @param threadFactory makes the lane's threads; {@code null} means lanes' own naming factory
 * @param ticker the clock for all timestamps, in nanoseconds
 * @param statsInterval length of the "recent" window in {@link LaneStats}
 * @param health saturation and deadlock settings
 */
public record LaneConfig(
    String name,
    LaneKind kind,
    int concurrency,
    int queueCapacity,
    OverflowPolicy overflow,
    CpuTiming cpuTiming,
    boolean daemon,
    TaskDecorator taskDecorator,
    Thread.UncaughtExceptionHandler exceptionHandler,
    ThreadFactory threadFactory,
    LongSupplier ticker,
    Duration statsInterval,
    HealthConfig health) {

  public LaneConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(overflow, "overflow");
    Objects.requireNonNull(cpuTiming, "cpuTiming");
    Objects.requireNonNull(taskDecorator, "taskDecorator");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(statsInterval, "statsInterval");
    Objects.requireNonNull(health, "health");
  }

  /** A builder that starts from these settings (copies them; changes do not reach this config). */
  public LaneBuilder toBuilder() {
    return LaneBuilder.from(this);
  }
}
