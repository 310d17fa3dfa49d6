package dev.lanes.shares;

/**
 * One partition of a {@link PriorityShares}, as its gate books it. The tasks' own figures — queue
 * wait (which includes the wait at the gate), run time, refusals — are the partition lane's
 * ({@code lane.stats()}).
 *
 * @param partition the partition's name
 * @param priority 0 for the highest (the first declared), then 1, 2, …
 * @param guaranteed permits this partition may always have while it is active: floor(share ×
 *     total), at least 1
 * @param held passes out now (tasks of this partition running, or about to)
 * @param borrowed of {@code held}, those above {@code guaranteed}: {@code max(0, held −
 *     guaranteed)}
 * @param reserved permits set aside for this partition whose worker has not come for them yet (a
 *     woken worker takes one at once; one left for the claim timeout is given back)
 * @param waiting workers of the partition's lane told "not now" and not woken since (may include
 *     a worker that went away, until a permit reserved for it is given back)
 * @param lendable true if the partition has been idle (nothing held, reserved or waiting) for at
 *     least the shares' {@code lendAfterIdle}, so that others may borrow its guaranteed permits
 * @param granted passes handed out since the start
 * @param exited passes given back since the start: {@code granted − exited = held}
 * @param borrowedTotal passes handed out that took {@code held} above {@code guaranteed}
 * @param releasesOwed permits released (by any partition) while this partition had workers waiting
 *     and held fewer than its guaranteed permits
 * @param releasesOwedGranted of {@code releasesOwed}, those given to this partition (rule: all of
 *     them, if no higher-priority partition was owed the same permit)
 * @param reservationsExpired permits reserved for this partition that no worker came for within
 *     the claim timeout, and were given back
 */
public record PartitionStats(
    String partition,
    int priority,
    int guaranteed,
    int held,
    int borrowed,
    int reserved,
    int waiting,
    boolean lendable,
    long granted,
    long exited,
    long borrowedTotal,
    long releasesOwed,
    long releasesOwedGranted,
    long reservationsExpired) {

  /** {@return true if nothing is held, reserved or waiting now} */
  public boolean idle() {
    return held == 0 && reserved == 0 && waiting == 0;
  }
}
