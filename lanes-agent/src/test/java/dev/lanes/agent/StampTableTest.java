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
  void theTableNeverHoldsMoreThanItsBound() {
    StampTable table = new StampTable(1024);
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      if (table.put(new Object(), i)) {
        accepted++;
      }
    }
    assertThat(accepted).isEqualTo(table.size()).isLessThanOrEqualTo(1024).isGreaterThan(512);
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
