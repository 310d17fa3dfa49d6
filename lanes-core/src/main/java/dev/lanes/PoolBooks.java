package dev.lanes;

/**
 * What a lane's worker pool writes in the lane's books when it handles a task outside a worker's
 * run: a queued task failed for want of a thread, one taken for a compensation thread or given
 * back, and entries appended after {@code shutdownNow}. {@link LaneBooks} keeps them; the pool
 * names only this.
 */
interface PoolBooks {

  /**
   * The envelope of an entry just taken from the ring with {@code tk}, owned by the caller; null
   * (and the dead entry dropped) if its task had left the queue another way.
   */
  LaneFuture<?> ownedEnvelope(Object entry, Taken tk);

  /** A queued task that will never run ends with {@code outcome}: slot back, future ended. */
  void endUnrun(LaneFuture<?> task, TaskOutcome outcome);

  /** A task left the queue while its ring entry stays there, dead, for whoever takes it. */
  void entryLeftDead();

  /** A task taken from the ring was appended again (called after the append). */
  void reappended();

  /**
   * Ends what was appended to a stopped lane's ring after {@code shutdownNow} drained it; true if
   * {@code entry} (the caller's own, or null) was among them.
   */
  boolean endLateEntries(Object entry);
}
