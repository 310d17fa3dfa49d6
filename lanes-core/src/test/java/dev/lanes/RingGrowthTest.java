package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ring's array starts small and grows with what waits, up to its bound (issue #27), keeping
 * FIFO order, every entry's stamp, unique positions and the count of appends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingGrowthTest {

  @Test
  void theArrayGrowsAsEntriesComeAndKeepsTheOrder() {
    TaskRing ring = new TaskRing(4, 64);
    assertThat(ring.capacity()).isEqualTo(4);
    assertThat(ring.maxCapacity()).isEqualTo(64);
    Set<Long> positions = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      positions.add(ring.append(i, 100 + i));
    }
    // 4 slots for positions 0-3, a new array of 8 from position 4 (4-11), one of 16 from 12: the
    // old arrays keep what they hold, and nothing went to the overflow.
    assertThat(ring.capacity()).isEqualTo(16);
    assertThat(ring.spilled()).isZero();
    assertThat(positions).containsExactlyInAnyOrder(
        0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
    assertThat(ring.size()).isEqualTo(20);
    assertThat(ring.appended()).isEqualTo(20);
    List<Object> seen = new ArrayList<>();
    ring.forEachEntry(seen::add);
    assertThat(seen).hasSize(20).startsWith(0, 1, 2, 3, 4).endsWith(18, 19);
    Taken taken = new Taken();
    for (int i = 0; i < 10; i++) { // the oldest first, from the old arrays
      assertThat(ring.peek(new Taken())).isEqualTo(i);
      assertThat(ring.poll(taken)).isEqualTo(i);
      assertThat(taken.stamp).isEqualTo(100 + i);
      assertThat(taken.position).isEqualTo(i);
    }
    for (int i = 20; i < 30; i++) { // appends go on into the newest array meanwhile
      positions.add(ring.append(i, 100 + i));
    }
    for (int i = 10; i < 30; i++) {
      assertThat(ring.poll(taken)).isEqualTo(i);
      assertThat(taken.stamp).isEqualTo(100 + i);
    }
    assertThat(ring.poll(taken)).isNull();
    assertThat(ring.hasClaimed()).isFalse();
    assertThat(ring.capacity()).isEqualTo(32); // position 28 found 12 still in its slot of 16
    assertThat(positions).hasSize(30);
  }

  @Test
  void theArrayNeverGrowsPastItsBoundAndTheOverflowTakesTheRest() {
    TaskRing ring = new TaskRing(2, 8);
    Taken taken = new Taken();
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 100; i++) {
        ring.append(i, i);
      }
      assertThat(ring.capacity()).isEqualTo(8);
      // The first round's arrays of 2, 4 and 8 hold 14; later the one array of 8 holds 8.
      assertThat(ring.spilled()).isEqualTo(round == 0 ? 100 - 14 : 100 - 8);
      for (int i = 0; i < 100; i++) {
        assertThat(ring.poll(taken)).isEqualTo(i);
        assertThat(taken.stamp).isEqualTo(i);
      }
      assertThat(ring.hasClaimed()).isFalse();
    }
  }

  @Test
  void aFreshLaneHoldsASmallArrayThatGrowsWithABurstAndRunsItInOrder() throws Exception {
    try (Lane lane = Lane.blocking("burst", 1).build()) {
      LaneExecutor l = (LaneExecutor) lane;
      assertThat(l.ring.capacity()).isEqualTo(TaskRing.INITIAL_CAPACITY);
      assertThat(l.ring.maxCapacity()).isEqualTo(16_384); // 10,000 + 1, rounded up
      CountDownLatch release = Work.occupy(lane);
      List<Integer> order = new CopyOnWriteArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        int n = i;
        lane.execute(() -> order.add(n));
      }
      release.countDown();
      lane.shutdown();
      assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(order).hasSize(10_000);
      for (int i = 0; i < 10_000; i++) {
        assertThat(order.get(i)).isEqualTo(i);
      }
      // Grown with the burst: arrays of 64, 128, ... 8,192 from successive positions hold it.
      assertThat(l.ring.capacity()).isEqualTo(8_192);
      assertThat(l.ring.spilled()).isZero();
      assertThat(lane.stats().submitted()).isEqualTo(10_001);
    }
  }
}
