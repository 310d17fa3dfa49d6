package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The stamp table against a plain model: every answer of random operations is the model's. */
class StampTableTest {

  @RepeatedTest(5)
  void randomOperationsAgreeWithAnIdentityMapOfQueues() {
    Random random = new Random();
    StampTable table = new StampTable(1 << 20);
    Map<Object, ArrayDeque<Long>> model = new IdentityHashMap<>();
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add(new Object() {
        @Override public int hashCode() {
          return 7; // never called: the table must use identity
        }

        @Override public boolean equals(Object o) {
          return true; // never called
        }
      });
    }
    for (long op = 0; op < 200_000; op++) {
      Object k = keys.get(random.nextInt(keys.size()));
      switch (random.nextInt(3)) {
        case 0 -> {
          assertThat(table.put(k, op)).isTrue();
          model.computeIfAbsent(k, x -> new ArrayDeque<>()).addLast(op);
        }
        case 1 -> {
          ArrayDeque<Long> q = model.get(k);
          long expected = q == null || q.isEmpty() ? StampTable.NONE : q.removeFirst();
          assertThat(table.take(k)).isEqualTo(expected);
        }
        default -> {
          ArrayDeque<Long> q = model.get(k);
          assertThat(table.peek(k)).isEqualTo(q == null || q.isEmpty() ? StampTable.NONE : q.peekFirst());
        }
      }
    }
    assertThat(table.size()).isEqualTo(model.values().stream().mapToInt(ArrayDeque::size).sum());
  }

  @Test
  void oneObjectQueuedAHundredThousandTimesKeepsItsStampsInOrder() {
    // One Runnable handed over again and again (as the bench's batches do): each stamp and take
    // must not walk the object's earlier stamps (they did: 10^5 stamps took minutes).
    StampTable table = new StampTable(1 << 20);
    Object shared = new Object();
    for (long i = 0; i < 100_000; i++) {
      table.put(shared, i);
    }
    assertThat(table.size()).isEqualTo(100_000);
    for (long i = 0; i < 100_000; i++) {
      assertThat(table.take(shared)).isEqualTo(i);
    }
    assertThat(table.take(shared)).isEqualTo(StampTable.NONE);
    assertThat(table.size()).isZero();
  }

  @RepeatedTest(3)
  void underRandomUseTheBoundHoldsAndIsGivenBack() {
    Random random = new Random();
    StampTable table = new StampTable(2_048);
    Map<Object, ArrayDeque<Long>> model = new IdentityHashMap<>();
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      keys.add(new Object());
    }
    Object hot = keys.get(0); // a third of the stamps go to one object
    int held = 0;
    for (long op = 0; op < 100_000; op++) {
      Object k = random.nextInt(3) == 0 ? hot : keys.get(random.nextInt(keys.size()));
      if (random.nextInt(2) == 0) {
        boolean accepted = table.put(k, op);
        if (held < 1_024) {
          assertThat(accepted).as("below half the bound a stamp is always taken").isTrue();
        }
        if (accepted) {
          model.computeIfAbsent(k, x -> new ArrayDeque<>()).addLast(op);
          held++;
        }
      } else {
        ArrayDeque<Long> q = model.get(k);
        long expected = q == null || q.isEmpty() ? StampTable.NONE : q.removeFirst();
        assertThat(table.take(k)).isEqualTo(expected);
        if (expected != StampTable.NONE) {
          held--;
        }
      }
      assertThat(held).isLessThanOrEqualTo(2_048);
    }
    assertThat(table.size()).isEqualTo(held);
    for (Object k : keys) { // emptied, the whole bound is available again
      while (table.take(k) != StampTable.NONE) {
        held--;
      }
    }
    int accepted = 0;
    while (table.put(hot, accepted)) {
      accepted++;
    }
    assertThat(held).isZero();
    assertThat(accepted).isGreaterThanOrEqualTo(2_048 / 2 + 2_048 / 256); // lent half + own share
  }

  @Test
  void theTableNeverHoldsMoreThanItsBound() {
    StampTable table = new StampTable(1024);
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      if (table.put(new Object(), i)) {
        accepted++;
      }
    }
    assertThat(accepted).isEqualTo(table.size()).isEqualTo(1024);
  }

  @Test
  void aSweepDropsOnlyOldEntriesWhoseTaskLeftItsQueue() {
    StampTable table = new StampTable(1 << 16);
    List<Object> stillQueued = new ArrayList<>();
    List<Object> gone = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      Object task = new Object();
      table.put(task, i < 500 ? 10 : 1_000); // the first half is old
      (i % 2 == 0 ? stillQueued : gone).add(task);
    }
    java.util.Set<Object> queued = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    queued.addAll(stillQueued);
    int dropped = table.sweep(100, queued::contains);
    assertThat(dropped).isEqualTo(250); // old and gone
    assertThat(table.size()).isEqualTo(750);
    for (int i = 0; i < 1_000; i++) {
      Object task = (i % 2 == 0 ? stillQueued : gone).get(i / 2);
      boolean kept = i >= 500 || i % 2 == 0;
      assertThat(table.peek(task) != StampTable.NONE).as("task %d", i).isEqualTo(kept);
    }
  }
}
