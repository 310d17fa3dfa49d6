package dev.lanes.shares;

import java.util.List;
import java.util.NoSuchElementException;

/**
 * A snapshot of a {@link PriorityShares}, read under its one lock, so its books balance: {@code
 * held + reserved + free = total}, and for each partition {@code granted − exited = held}.
 *
 * @param name the shares' name
 * @param total the most passes out at once, over every partition
 * @param held passes out now, over every partition
 * @param reserved permits reserved and not yet claimed, over every partition
 * @param free permits neither held nor reserved
 * @param guaranteeBreaches permits lent to a partition beyond its guarantee at a moment when the
 *     free permits left could no longer cover the guaranteed permits still missing from the
 *     partitions that were not lendable: the rule says never, so this stays 0
 * @param partitions each partition, highest priority first
 */
public record SharesStats(
    String name,
    int total,
    int held,
    int reserved,
    int free,
    long guaranteeBreaches,
    List<PartitionStats> partitions) {

  public SharesStats {
    partitions = List.copyOf(partitions);
  }

  /**
   * {@return the figures of the partition named {@code partition}}
   *
   * @throws NoSuchElementException if there is no such partition
   */
  public PartitionStats partition(String partition) {
    for (PartitionStats p : partitions) {
      if (p.partition().equals(partition)) {
        return p;
      }
    }
    throw new NoSuchElementException("priority shares \"" + name + "\" has no partition \""
        + partition + "\"; it has " + partitions.stream().map(PartitionStats::partition).toList());
  }
}
