package dev.lanes;

import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ring of two shards ({@link TaskRing}, "Shards"; issue #27), model-checked by Lincheck. Each
 * shard is the ring {@link TaskRingLincheckTest} checks for order; what sharding adds is the
 * ring-wide part, checked here against a model that counts entries: a take that looks at every
 * shard ({@link TaskRing#pollClaimed}, and a worker's {@link TaskRing#poll} from its home,
 * retried while {@link TaskRing#hasClaimed} says something is there, as a worker does before it
 * parks) never reports "empty" while an entry is queued in any shard, never takes one twice, and
 * {@code hasClaimed} never misses an entry that stays, and {@code size()} never reads more than
 * the ring held (it may read less while producers append). Which entry a take returns is not compared:
 * across shards entries have no order (see "Shards").
 */
class ShardedRingLincheckTest {

  /**
   * The ring under test: two shards of two slots each, so appends also spill; shard 1 holds an
   * entry at the start, so that a take there can race an append to shard 0.
   */
  public static class TwoShards {
    private final TaskRing ring = new TaskRing(2, 2, false, 2);

    public TwoShards() {
      ring.appendTo(1, 7, 7);
    }

    @Operation
    public int append(
        @Param(gen = IntGen.class, conf = "0:1") int shard,
        @Param(gen = IntGen.class, conf = "1:9") int item) {
      ring.appendTo(shard, item, item);
      return 0;
    }

    /** A take that compares the shards' heads (shutdown's drain, discard-oldest). */
    @Operation
    public boolean pollClaimed() {
      return ring.pollClaimed(new Taken()) != null;
    }

    /** A worker's take from its home shard, re-checked as a worker re-checks before it parks. */
    @Operation
    public boolean workerTake(@Param(gen = IntGen.class, conf = "0:1") int home) {
      Taken tk = new Taken();
      tk.home(home);
      for (; ; ) {
        if (ring.poll(tk) != null) {
          return true;
        }
        if (!ring.hasClaimed()) {
          return false;
        }
      }
    }

    @Operation
    public boolean hasClaimed() {
      return ring.hasClaimed();
    }

    @Operation
    public TaskRingLincheckTest.Bound size() {
      return new TaskRingLincheckTest.Bound(ring.size(), false);
    }
  }

  /** The model: how many entries are queued (one at the start). */
  public static class Count {
    private int queued = 1;

    public int append(int shard, int item) {
      queued++;
      return 0;
    }

    public boolean pollClaimed() {
      return take();
    }

    public boolean workerTake(int home) {
      return take();
    }

    public boolean hasClaimed() {
      return queued > 0;
    }

    public TaskRingLincheckTest.Bound size() {
      return new TaskRingLincheckTest.Bound(queued, true);
    }

    private boolean take() {
      if (queued == 0) {
        return false;
      }
      queued--;
      return true;
    }
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void noTakeMissesAnEntryInAnotherShardAndNoneIsTakenTwiceAndSizeNeverOverstates() {
    new ModelCheckingOptions()
        .iterations(TaskRingLincheckTest.ITERATIONS)
        .invocationsPerIteration(500)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .sequentialSpecification(Count.class)
        .check(TwoShards.class);
  }
}
