package dev.lanes.shares.micrometer;

import dev.lanes.shares.PartitionStats;
import dev.lanes.shares.PriorityShares;
import dev.lanes.shares.SharesStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters of one {@link PriorityShares}, tagged {@code share=<name>}, and per partition
 * also {@code partition=<name>} (micrometer-core is an optional dependency of lanes-shares: add it
 * to use this class). Each reading takes a fresh {@link PriorityShares#stats()}, a snapshot whose
 * books balance.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code lanes.shares.permits}</td><td>gauge</td><td>the shares' total: the most tasks of all partitions running at once</td></tr>
 *   <tr><td>{@code lanes.shares.permits.free}</td><td>gauge</td><td>permits neither held nor reserved</td></tr>
 *   <tr><td>{@code lanes.shares.guarantee.breaches}</td><td>counter</td><td>permits lent while the free ones could not cover an active partition's missing guarantee (the rules say never)</td></tr>
 *   <tr><td>{@code lanes.shares.partition.guaranteed}</td><td>gauge</td><td>floor(share × total), at least 1</td></tr>
 *   <tr><td>{@code lanes.shares.partition.held}</td><td>gauge</td><td>passes out now</td></tr>
 *   <tr><td>{@code lanes.shares.partition.borrowed}</td><td>gauge</td><td>of those held, the ones above the guarantee</td></tr>
 *   <tr><td>{@code lanes.shares.partition.reserved}</td><td>gauge</td><td>permits reserved for a woken worker, not yet taken</td></tr>
 *   <tr><td>{@code lanes.shares.partition.waiting}</td><td>gauge</td><td>workers parked at the partition's gate</td></tr>
 *   <tr><td>{@code lanes.shares.partition.lendable}</td><td>gauge</td><td>1 while the partition has been idle for lendAfterIdle (others may borrow its guarantee), else 0</td></tr>
 *   <tr><td>{@code lanes.shares.partition.granted}</td><td>counter</td><td>passes handed out</td></tr>
 *   <tr><td>{@code lanes.shares.partition.borrows}</td><td>counter</td><td>passes handed out above the guarantee</td></tr>
 *   <tr><td>{@code lanes.shares.partition.releases.owed}</td><td>counter</td><td>permits freed while the partition waited below its guarantee</td></tr>
 *   <tr><td>{@code lanes.shares.partition.releases.owed.granted}</td><td>counter</td><td>of those, the ones it got</td></tr>
 *   <tr><td>{@code lanes.shares.partition.reservations.expired}</td><td>counter</td><td>reservations nobody came for</td></tr>
 * </table>
 */
public final class PrioritySharesMetrics implements MeterBinder {

  private final PriorityShares shares;
  private final Tags tags;

  public PrioritySharesMetrics(PriorityShares shares, Iterable<Tag> extraTags) {
    this.shares = Objects.requireNonNull(shares, "shares");
    this.tags = Tags.of(extraTags).and("share", shares.name());
  }

  public PrioritySharesMetrics(PriorityShares shares) {
    this(shares, Tags.empty());
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("lanes.shares.permits", shares, s -> s.total()).tags(tags)
        .description("the most tasks of all the partitions running at once").register(registry);
    Gauge.builder("lanes.shares.permits.free", shares, s -> s.stats().free()).tags(tags)
        .description("permits neither held nor reserved").register(registry);
    FunctionCounter.builder("lanes.shares.guarantee.breaches", shares, s -> s.stats().guaranteeBreaches())
        .tags(tags).description("permits lent while the free ones could not cover an active partition's"
            + " missing guarantee (the rules say never)").register(registry);
    for (String partition : shares.partitions()) {
      Tags p = tags.and("partition", partition);
      gauge(registry, p, partition, "lanes.shares.partition.guaranteed",
          "permits the partition may always have while active", PartitionStats::guaranteed);
      gauge(registry, p, partition, "lanes.shares.partition.held", "passes out now", PartitionStats::held);
      gauge(registry, p, partition, "lanes.shares.partition.borrowed",
          "passes out now above the guarantee", PartitionStats::borrowed);
      gauge(registry, p, partition, "lanes.shares.partition.reserved",
          "permits reserved for a woken worker, not yet taken", PartitionStats::reserved);
      gauge(registry, p, partition, "lanes.shares.partition.waiting",
          "workers parked at the partition's gate", PartitionStats::waiting);
      gauge(registry, p, partition, "lanes.shares.partition.lendable",
          "1 while the partition has been idle for lendAfterIdle, else 0", s -> s.lendable() ? 1 : 0);
      counter(registry, p, partition, "lanes.shares.partition.granted", "passes handed out",
          PartitionStats::granted);
      counter(registry, p, partition, "lanes.shares.partition.borrows",
          "passes handed out above the guarantee", PartitionStats::borrowedTotal);
      counter(registry, p, partition, "lanes.shares.partition.releases.owed",
          "permits freed while the partition waited below its guarantee", PartitionStats::releasesOwed);
      counter(registry, p, partition, "lanes.shares.partition.releases.owed.granted",
          "permits freed while the partition waited below its guarantee that it got",
          PartitionStats::releasesOwedGranted);
      counter(registry, p, partition, "lanes.shares.partition.reservations.expired",
          "permits reserved for the partition that no worker came for", PartitionStats::reservationsExpired);
    }
  }

  private void gauge(MeterRegistry registry, Tags tags, String partition, String name, String description,
      ToDoubleFunction<PartitionStats> value) {
    Gauge.builder(name, shares, s -> value.applyAsDouble(of(s.stats(), partition))).tags(tags)
        .description(description).register(registry);
  }

  private void counter(MeterRegistry registry, Tags tags, String partition, String name, String description,
      ToDoubleFunction<PartitionStats> value) {
    FunctionCounter.builder(name, shares, s -> value.applyAsDouble(of(s.stats(), partition))).tags(tags)
        .description(description).register(registry);
  }

  private static PartitionStats of(SharesStats stats, String partition) {
    return stats.partition(partition);
  }
}
