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
  void theArrayGrowsWhenItEmptiesWithEntriesInTheOverflowAndKeepsTheOrder() {
    TaskRing ring = new TaskRing(4, 64);
    assertThat(ring.capacity()).isEqualTo(4);
    assertThat(ring.maxCapacity()).isEqualTo(64);
    Set<Long> positions = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      positions.add(ring.append(i, 100 + i));
    }
    assertThat(ring.spilled()).isEqualTo(16); // the array took 4
    TaskRing.Taken taken = new TaskRing.Taken();
    for (int i = 0; i < 10; i++) { // the array's 4, then the overflow's: the switch on the way
      assertThat(ring.poll(taken)).isEqualTo(i);
      assertThat(taken.stamp).isEqualTo(100 + i);
    }
    // Sized to fit what the overflow held when the array emptied (16, doubled), within the bound.
    assertThat(ring.capacity()).isEqualTo(32);
    for (int i = 20; i < 30; i++) { // the overflow is not empty: these still go there, in order
      positions.add(ring.append(i, 100 + i));
    }
    for (int i = 10; i < 30; i++) {
      assertThat(ring.poll(taken)).isEqualTo(i);
      assertThat(taken.stamp).isEqualTo(100 + i);
    }
    assertThat(ring.poll(taken)).isNull();
    // Empty again: the new array takes entries, at the positions that follow the old array's.
    long next = ring.append(30, 130);
    assertThat(next).isEqualTo(4).isLessThan(TaskRing.SPILL_BASE);
    positions.add(next);
    for (int i = 31; i < 62; i++) {
      positions.add(ring.append(i, 100 + i));
    }
    assertThat(ring.spilled()).isZero(); // 32 entries: the grown array holds them all
    assertThat(positions).hasSize(62);
    assertThat(ring.appended()).isEqualTo(62);
    List<Object> seen = new ArrayList<>();
    ring.forEachEntry(seen::add);
    assertThat(seen).hasSize(32).startsWith(30, 31).endsWith(61);
    assertThat(ring.peek(new TaskRing.Taken())).isEqualTo(30);
  }

  @Test
  void theArrayNeverGrowsPastItsBound() {
    TaskRing ring = new TaskRing(2, 8);
    TaskRing.Taken taken = new TaskRing.Taken();
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 100; i++) {
        ring.append(i, i);
      }
      for (int i = 0; i < 100; i++) {
        assertThat(ring.poll(taken)).isEqualTo(i);
      }
      assertThat(ring.capacity()).isLessThanOrEqualTo(8);
    }
    assertThat(ring.capacity()).isEqualTo(8);
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
      assertThat(l.ring.capacity()).isGreaterThanOrEqualTo(8_192).isLessThanOrEqualTo(16_384);
      assertThat(lane.stats().submitted()).isEqualTo(10_001);
    }
  }
}
