package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.LaneBuilder;
import dev.lanes.LaneGate;
import dev.lanes.LaneKind;
import dev.lanes.Lanes;
import dev.lanes.OverflowPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Builds a {@link Lanes} set from {@link LanesProperties}, checking every value first. A bad value
 * throws {@link LanesPropertyException} with the full property name: lanes' own builder messages
 * name the lane and setting, this adds where in the configuration it came from.
 */
final class LanesFromProperties {
  static final String PREFIX = "lanes.instances.";

  private LanesFromProperties() {}

  static Lanes build(LanesProperties properties) {
    return build(properties, gate -> {
      throw new IllegalArgumentException("no bean factory to look gate beans up in");
    }, LanesShares.build(properties));
  }

  /**
   * As {@link #build(LanesProperties)}; {@code gates} finds the {@link LaneGate} bean of a name,
   * {@code shares} has the partition each lane with a {@code share} is served by.
   */
  static Lanes build(LanesProperties properties, Function<String, LaneGate> gates, LanesShares shares) {
    Map<String, LanesProperties.Instance> instances = properties.getInstances();
    List<LaneBuilder> lanes = new ArrayList<>();
    for (Map.Entry<String, LanesProperties.Instance> e : instances.entrySet()) {
      LaneBuilder b = builder(e.getKey(), e.getValue());
      String gate = e.getValue().getGate();
      if (gate != null) {
        String at = PREFIX + e.getKey() + ".gate";
        LaneGate g = check(at, gate, () -> gates.apply(gate));
        check(at, gate, () -> b.gate(g));
      }
      shares.servedBy(e.getKey()).ifPresent(served -> b.gate(served.gate()));
      lanes.add(b);
    }
    checkLaneSetSettings(properties);
    return Lanes.of(lanes.toArray(LaneBuilder[]::new));
  }

  /**
   * Every check {@link #build} makes, without building a lane (no thread is started): run before
   * the web server is created, so a bad value is the first failure of the start-up, not a cause
   * under "Unable to start web server". {@code beanType} gives the type of the bean of a name, or null
   * when there is none (or it cannot be told without making it).
   */
  static void check(LanesProperties properties, Function<String, Class<?>> beanType) {
    LanesShares.build(properties);
    for (Map.Entry<String, LanesProperties.Instance> e : properties.getInstances().entrySet()) {
      builder(e.getKey(), e.getValue());
      String gate = e.getValue().getGate();
      if (gate != null) {
        String at = PREFIX + e.getKey() + ".";
        Class<?> type = beanType.apply(gate);
        if (type == null || !LaneGate.class.isAssignableFrom(type)) {
          throw new LanesPropertyException(at + "gate", gate, type == null
              ? "no LaneGate bean named \"" + gate + "\" in the application"
              : "bean \"" + gate + "\" is a " + type.getName() + ", not a " + LaneGate.class.getName());
        }
        // LaneBuilder.build() refuses it too, but only once the web server is being made.
        if (e.getValue().getOverflow() == LanesProperties.Overflow.CALLER_RUNS) {
          throw new LanesPropertyException(at + "overflow", "caller-runs", "lane \"" + e.getKey()
              + "\": a gate cannot go with overflow caller-runs: the caller would run the task without"
              + " passing the gate (gate " + gate + ")");
        }
      }
    }
    checkLaneSetSettings(properties);
  }

  private static void checkLaneSetSettings(LanesProperties properties) {
    Map<String, LanesProperties.Instance> instances = properties.getInstances();
    requireDeclared("lanes.task-executor", properties.getTaskExecutor(), instances);
    requireDeclared("lanes.server.lane", properties.getServer().getLane(), instances);
    Duration await = properties.getShutdown().getAwaitTermination();
    if (await == null || await.isNegative()) {
      throw new LanesPropertyException(
          "lanes.shutdown.await-termination", await, "must be zero or positive");
    }
    if (instances.isEmpty()) {
      throw new LanesPropertyException("lanes.instances", null, "declare at least one lane");
    }
  }

  private static void requireDeclared(
      String property, String lane, Map<String, LanesProperties.Instance> instances) {
    if (lane != null && !instances.containsKey(lane)) {
      throw new LanesPropertyException(
          property,
          lane,
          "no lane of that name is declared under lanes.instances (declared: "
              + (instances.isEmpty() ? "none" : String.join(", ", instances.keySet()))
              + ")");
    }
  }

  static LaneBuilder builder(String name, LanesProperties.Instance p) {
    String at = PREFIX + name + ".";
    LaneKind kind = p.getKind();
    if (kind == null) {
      throw new LanesPropertyException(at + "kind", null, "required: cpu, blocking or virtual");
    }
    if (p.getThreads() != null) {
      throw new LanesPropertyException(
          at + "threads", p.getThreads(), "renamed: use " + at + "concurrency (for every kind of lane)");
    }
    Integer concurrency = p.getConcurrency();
    if (concurrency == null && kind != LaneKind.CPU) {
      throw new LanesPropertyException(
          at + "concurrency", null, "required for a " + kind.tag() + " lane");
    }
    // The factories of blocking and virtual lanes take the concurrency (and check the name first).
    LaneBuilder b =
        check(
            concurrency == null ? at + "kind" : at + "concurrency",
            concurrency == null ? kind.tag() : concurrency,
            () ->
                switch (kind) {
                  case CPU -> concurrency == null
                      ? Lane.cpu(name)
                      : Lane.cpu(name).concurrency(concurrency);
                  case BLOCKING -> Lane.blocking(name, concurrency);
                  case VIRTUAL -> Lane.virtual(name, concurrency);
                });
    if (p.getQueueCapacity() != null) {
      check(at + "queue-capacity", p.getQueueCapacity(), () -> b.queueCapacity(p.getQueueCapacity()));
    }
    LanesProperties.Overflow overflow = p.getOverflow() == null ? LanesProperties.Overflow.REJECT : p.getOverflow();
    Duration blockTimeout = p.getBlockTimeout();
    if (overflow != LanesProperties.Overflow.BLOCK_CALLER && blockTimeout != null) {
      throw new LanesPropertyException(
          at + "block-timeout", blockTimeout, "applies only with overflow=block-caller, overflow is "
              + overflow.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    }
    OverflowPolicy policy =
        switch (overflow) {
          case REJECT -> OverflowPolicy.reject();
          case CALLER_RUNS -> OverflowPolicy.callerRuns();
          case DISCARD_OLDEST -> OverflowPolicy.discardOldest();
          case BLOCK_CALLER -> {
            if (blockTimeout == null) {
              throw new LanesPropertyException(
                  at + "block-timeout", null, "required with overflow=block-caller");
            }
            yield OverflowPolicy.blockCaller(blockTimeout);
          }
        };
    check(at + (overflow == LanesProperties.Overflow.BLOCK_CALLER ? "block-timeout" : "overflow"),
        overflow == LanesProperties.Overflow.BLOCK_CALLER ? blockTimeout : overflow,
        () -> b.overflow(policy));
    b.daemon(p.isDaemon());
    health(at, p, b);
    return b;
  }

  /** The health settings: saturation, hysteresis, deadlock detection, log level, shedding. */
  private static void health(String at, LanesProperties.Instance p, LaneBuilder b) {
    if (p.getWaitToRunRatio() != null && p.getFixedWaitThreshold() != null) {
      throw new LanesPropertyException(at + "fixed-wait-threshold", p.getFixedWaitThreshold(),
          "set either " + at + "wait-to-run-ratio or " + at + "fixed-wait-threshold, not both (ratio is "
              + p.getWaitToRunRatio() + ")");
    }
    if (p.getWaitToRunRatio() != null) {
      check(at + "wait-to-run-ratio", p.getWaitToRunRatio(),
          () -> b.saturatedWhenWaitExceedsRun(p.getWaitToRunRatio()));
    }
    if (p.getFixedWaitThreshold() != null) {
      check(at + "fixed-wait-threshold", p.getFixedWaitThreshold(),
          () -> b.saturatedWhenWaitExceeds(p.getFixedWaitThreshold()));
    }
    if (p.getSaturationWindow() != null) {
      check(at + "saturation-window", p.getSaturationWindow(),
          () -> b.saturationWindow(p.getSaturationWindow()));
    }
    if (p.getSaturationMinWait() != null) {
      check(at + "saturation-min-wait", p.getSaturationMinWait(),
          () -> b.saturationMinWait(p.getSaturationMinWait()));
    }
    requireTogether(at, "enter-after", p.getEnterAfter(), "exit-after", p.getExitAfter());
    if (p.getEnterAfter() != null) {
      checkPair(at + "enter-after", p.getEnterAfter(), at + "exit-after", p.getExitAfter(), "exitAfter",
          () -> b.saturationHysteresis(p.getEnterAfter(), p.getExitAfter()));
    }
    if (p.getDeadlockDetection() != null) {
      check(at + "deadlock-detection", p.getDeadlockDetection(),
          () -> b.deadlockDetection(p.getDeadlockDetection()));
    }
    if (p.getHealthLogLevel() != null) {
      check(at + "health-log-level", p.getHealthLogLevel(), () -> b.healthLogLevel(p.getHealthLogLevel()));
    }
    requireTogether(at, "shed-target", p.getShedTarget(), "shed-interval", p.getShedInterval());
    if (p.getShedTarget() != null) {
      checkPair(at + "shed-target", p.getShedTarget(), at + "shed-interval", p.getShedInterval(),
          "shedding interval", () -> b.shedWhenQueuedLongerThan(p.getShedTarget(), p.getShedInterval()));
    }
  }

  /** Settings the builder takes in one call: both or neither. */
  private static void requireTogether(String at, String one, Object a, String other, Object c) {
    if ((a == null) != (c == null)) {
      String missing = a == null ? one : other;
      String given = a == null ? other : one;
      throw new LanesPropertyException(at + missing, null,
          "required with " + at + given + " (" + given + " is " + (a == null ? c : a) + ")");
    }
  }

  /**
   * Runs a builder step that takes two settings; its message names the second when it is the bad
   * one ({@code secondMarker} in the message), and the failure then names the second property.
   */
  private static void checkPair(String first, Object firstValue, String second, Object secondValue,
      String secondMarker, Supplier<?> step) {
    try {
      step.get();
    } catch (IllegalArgumentException e) {
      boolean secondIsBad = e.getMessage() != null && e.getMessage().contains(secondMarker);
      throw new LanesPropertyException(secondIsBad ? second : first, secondIsBad ? secondValue : firstValue,
          e.getMessage());
    }
  }

  /** Runs a builder step; its IllegalArgumentException becomes a LanesPropertyException. */
  private static <T> T check(String property, Object value, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new LanesPropertyException(property, value, e.getMessage());
    }
  }
}
