package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The ring never refuses an admitted entry: what its array cannot take goes to its overflow, in
 * order, and is seen by every reader of the ring (size, hasClaimed, peek, the entries' scan).
 */
class RingOverflowTest {

  @Test
  void entriesBeyondTheArrayGoToTheOverflowAndComeOutInOrder() {
    TaskRing ring = new TaskRing(4);
    Set<Long> positions = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      positions.add(ring.append(i, 100 + i));
    }
    assertThat(positions).hasSize(10);
    assertThat(ring.spilled()).isEqualTo(6);
    assertThat(ring.size()).isEqualTo(10);
    assertThat(ring.appended()).isEqualTo(10);
    List<Object> seen = new ArrayList<>();
    ring.forEachEntry(seen::add);
    assertThat(seen).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

    Taken taken = new Taken();
    assertThat(ring.poll(taken)).isEqualTo(0);
    // The array has a free slot now, but the overflow is not empty: order comes first.
    ring.append(10, 110);
    for (int i = 1; i <= 10; i++) {
      assertThat(ring.peek(new Taken())).isEqualTo(i);
      assertThat(ring.hasClaimed()).isTrue();
      assertThat(ring.poll(taken)).isEqualTo(i);
      assertThat(taken.stamp).isEqualTo(100 + i);
    }
    assertThat(ring.hasClaimed()).isFalse();
    assertThat(ring.size()).isZero();
    assertThat(ring.spilled()).isZero();
    // Empty again: the array takes entries again.
    assertThat(ring.append(11, 111)).isLessThan(TaskRing.SPILL_BASE);
  }

  @Test
  void aSlotHeldByAnEntryOfTheLastLapSendsTheNextOneToTheOverflow() {
    TaskRing ring = new TaskRing(2);
    ring.append("a", 1);
    ring.append("b", 2);
    // "a" is still in its slot (its consumer has not taken it): the third entry cannot wait
    // for it, whatever room the lane has.
    long third = ring.append("c", 3);
    assertThat(third).isGreaterThanOrEqualTo(TaskRing.SPILL_BASE);
    Taken taken = new Taken();
    assertThat(ring.poll(taken)).isEqualTo("a");
    assertThat(ring.poll(taken)).isEqualTo("b");
    assertThat(ring.poll(taken)).isEqualTo("c");
    assertThat(taken.position).isEqualTo(third);
    assertThat(ring.poll(taken)).isNull();
  }
}
