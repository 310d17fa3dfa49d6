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
    });
  }

  /** As {@link #build(LanesProperties)}; {@code gates} finds the {@link LaneGate} bean of a name. */
  static Lanes build(LanesProperties properties, Function<String, LaneGate> gates) {
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
      lanes.add(b);
    }
    requireDeclared("lanes.task-executor", properties.getTaskExecutor(), instances);
    requireDeclared("lanes.server.lane", properties.getServer().getLane(), instances);
    Duration await = properties.getShutdown().getAwaitTermination();
    if (await == null || await.isNegative()) {
      throw new LanesPropertyException(
          "lanes.shutdown.await-termination", await, "must be zero or positive");
    }
    if (lanes.isEmpty()) {
      throw new LanesPropertyException("lanes.instances", null, "declare at least one lane");
    }
    return Lanes.of(lanes.toArray(LaneBuilder[]::new));
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
    return b;
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
