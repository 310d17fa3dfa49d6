package dev.lanes.spring.boot;

import dev.lanes.LaneGate;
import dev.lanes.shares.PriorityShares;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The priority shares declared under {@code lanes.shares} (lanes-shares' {@link PriorityShares}),
 * and which lane each partition's gate serves ({@code lanes.instances.<lane>.share=<share>/<partition>}).
 * Bean {@code lanesShares}; empty when no share is declared.
 *
 * <pre>
 * lanes.shares.db.total=10
 * lanes.shares.db.partitions.checkout.share=0.7   # first declared: highest priority
 * lanes.shares.db.partitions.reports.share=0.3
 * lanes.instances.checkout-db.share=db/checkout
 * lanes.instances.reports-db.share=db/reports
 * </pre>
 *
 * Every value is checked when built; a bad one throws {@link LanesPropertyException} naming the
 * property, the value and the reason. Immutable once built.
 */
public final class LanesShares {
  static final String PREFIX = "lanes.shares.";

  /** The partition a lane is served by. */
  public record Served(PriorityShares shares, String partition) {
    /** {@return the partition's gate} */
    public LaneGate gate() {
      return shares.gate(partition);
    }
  }

  private final Map<String, PriorityShares> shares;
  private final Map<String, Served> byLane;

  private LanesShares(Map<String, PriorityShares> shares, Map<String, Served> byLane) {
    this.shares = Collections.unmodifiableMap(shares);
    this.byLane = Collections.unmodifiableMap(byLane);
  }

  /** {@return no share at all} */
  public static LanesShares none() {
    return new LanesShares(Map.of(), Map.of());
  }

  /** {@return every share by name, in declaration order} */
  public Map<String, PriorityShares> all() {
    return shares;
  }

  /** {@return the share of that name, if declared} */
  public Optional<PriorityShares> get(String name) {
    return Optional.ofNullable(shares.get(name));
  }

  /** {@return the partition lane {@code lane} is served by, if it is served by one} */
  public Optional<Served> servedBy(String lane) {
    return Optional.ofNullable(byLane.get(lane));
  }

  /** Builds the shares of {@code properties} and checks the lanes that name them. */
  static LanesShares build(LanesProperties properties) {
    Map<String, PriorityShares> shares = new LinkedHashMap<>();
    properties.getShares().forEach((name, share) -> shares.put(name, share(name, share)));
    Map<String, Served> byLane = new LinkedHashMap<>();
    Map<String, String> laneOfPartition = new LinkedHashMap<>();
    properties.getInstances().forEach((lane, instance) -> {
      if (instance.getShare() == null) {
        return;
      }
      String at = LanesFromProperties.PREFIX + lane + ".share";
      String value = instance.getShare();
      if (instance.getGate() != null) {
        throw new LanesPropertyException(at, value, "lane \"" + lane + "\" has a gate already ("
            + LanesFromProperties.PREFIX + lane + ".gate=" + instance.getGate() + "); a lane passes one gate:"
            + " set either gate or share");
      }
      int slash = value.indexOf('/');
      if (slash <= 0 || slash == value.length() - 1 || value.indexOf('/', slash + 1) >= 0) {
        throw new LanesPropertyException(at, value, "expected <share>/<partition>, e.g. db/checkout"
            + declared(shares));
      }
      String name = value.substring(0, slash).strip();
      String partition = value.substring(slash + 1).strip();
      PriorityShares s = shares.get(name);
      if (s == null) {
        throw new LanesPropertyException(at, value, "no share \"" + name + "\" is declared under lanes.shares"
            + declared(shares));
      }
      if (!s.partitions().contains(partition)) {
        throw new LanesPropertyException(at, value, "share \"" + name + "\" has no partition \"" + partition
            + "\" (its partitions: " + String.join(", ", s.partitions()) + ")");
      }
      if (instance.getOverflow() == LanesProperties.Overflow.CALLER_RUNS) {
        throw new LanesPropertyException(LanesFromProperties.PREFIX + lane + ".overflow", "caller-runs",
            "lane \"" + lane + "\": a share cannot go with overflow caller-runs: the caller would run the task"
                + " without passing the partition's gate (share " + value + ")");
      }
      String key = name + "/" + partition;
      String other = laneOfPartition.putIfAbsent(key, lane);
      if (other != null) {
        throw new LanesPropertyException(at, value, "partition " + key + " is served by lane \"" + other
            + "\" already; each partition has its own lane (declare another partition)");
      }
      byLane.put(lane, new Served(s, partition));
    });
    shares.forEach((name, s) -> {
      for (String partition : s.partitions()) {
        if (!laneOfPartition.containsKey(name + "/" + partition)) {
          throw new LanesPropertyException(PREFIX + name + ".partitions." + partition, null,
              "no lane serves partition " + name + "/" + partition + ": set lanes.instances.<lane>.share="
                  + name + "/" + partition + " on the lane that runs its tasks");
        }
      }
    });
    return new LanesShares(shares, byLane);
  }

  private static String declared(Map<String, PriorityShares> shares) {
    return " (declared shares: " + (shares.isEmpty() ? "none" : String.join(", ", shares.keySet())) + ")";
  }

  private static PriorityShares share(String name, LanesProperties.Share p) {
    String at = PREFIX + name + ".";
    if (p.getTotal() == null) {
      throw new LanesPropertyException(at + "total", null, "required: the most tasks of all its partitions"
          + " running at once, 1 to " + PriorityShares.Builder.MAX_TOTAL);
    }
    PriorityShares.Builder b = check(at + "total", p.getTotal(), () -> PriorityShares.builder(name, p.getTotal()));
    if (p.getLendAfterIdle() != null) {
      check(at + "lend-after-idle", p.getLendAfterIdle(), () -> b.lendAfterIdle(p.getLendAfterIdle()));
    }
    if (p.getClaimTimeout() != null) {
      check(at + "claim-timeout", p.getClaimTimeout(), () -> b.claimTimeout(p.getClaimTimeout()));
    }
    if (p.getPartitions().isEmpty()) {
      throw new LanesPropertyException(at + "partitions", null, "declare at least one partition, e.g. "
          + at + "partitions.checkout.share=0.7");
    }
    p.getPartitions().forEach((partition, part) -> {
      String key = at + "partitions." + partition + ".share";
      if (part == null || part.getShare() == null) {
        throw new LanesPropertyException(key, null, "required: the partition's guaranteed part of the total,"
            + " > 0 and ≤ 1");
      }
      check(key, part.getShare(), () -> b.partition(partition, part.getShare()));
    });
    return check(at + "partitions", String.join(", ", p.getPartitions().keySet()), b::build);
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
