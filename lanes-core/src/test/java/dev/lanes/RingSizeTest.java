package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The ring's size, which a lane reports as its {@code queued} gauge, never exceeds what the ring
 * held at some instant, however fast entries pass through it while it is read. (A read of head
 * then tail once reported up to a full ring for a ring that never held more than one entry, and a
 * lane then showed more queued tasks than it admits.)
 */
class RingSizeTest {
  private static final int PASSES = Integer.getInteger("lanes.stress.repeats", 50) * 40_000;

  @Test
  void sizeNeverOverstatesARingThatHoldsAtMostOneEntry() throws Exception {
    TaskRing ring = new TaskRing(16);
    AtomicBoolean done = new AtomicBoolean();
    int[] largest = new int[1];
    long[] reads = new long[1];
    Thread reader = new Thread(() -> {
      while (!done.get()) {
        largest[0] = Math.max(largest[0], ring.size());
        reads[0]++;
      }
    }, "ring-size-reader");
    reader.start();
    Taken taken = new Taken();
    Object entry = new Object();
    try {
      for (int i = 0; i < PASSES; i++) {
        assertThat(ring.offer(entry, i)).isNotNegative();
        assertThat(ring.poll(taken)).isSameAs(entry);
      }
    } finally {
      done.set(true);
      reader.join(TimeUnit.SECONDS.toMillis(Work.PATIENCE_SECONDS));
    }
    assertThat(reader.isAlive()).isFalse();
    assertThat(reads[0]).as("the reader read while entries passed").isPositive();
    assertThat(largest[0]).as("largest size read of a ring holding at most one entry")
        .isLessThanOrEqualTo(1);
  }

  @Test
  void sizeCountsWhatIsThereWhenNothingMoves() {
    TaskRing ring = new TaskRing(8);
    Taken taken = new Taken();
    for (int i = 0; i < 5; i++) {
      ring.offer(i, i);
    }
    ring.poll(taken);
    assertThat(ring.size()).isEqualTo(4);
  }
}
