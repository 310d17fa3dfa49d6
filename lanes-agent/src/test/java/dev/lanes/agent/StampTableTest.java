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

  @Test
  void aHandoverNotSampledLeavesABlankOnlyBehindItsTasksOwnEntries() {
    StampTable table = new StampTable(1 << 16);
    Object alone = new Object();
    table.blankIfHeld(alone); // nothing held for it: no entry, no lock
    assertThat(table.size()).isZero();
    assertThat(table.takeIfHeld(alone)).isEqualTo(StampTable.NONE);

    Object shared = new Object();
    table.put(shared, 5);
    table.blankIfHeld(shared);
    table.blankIfHeld(shared);
    table.put(shared, 9);
    assertThat(table.size()).isEqualTo(4);
    assertThat(table.heldEntries()).isEqualTo(4);
    // each run takes its own handover's entry, in order
    assertThat(table.takeIfHeld(shared)).isEqualTo(5);
    assertThat(table.takeIfHeld(shared)).isEqualTo(StampTable.BLANK);
    assertThat(table.take(shared)).isEqualTo(StampTable.BLANK);
    assertThat(table.takeIfHeld(shared)).isEqualTo(9);
    assertThat(table.takeIfHeld(shared)).isEqualTo(StampTable.NONE);
    assertThat(table.size()).isZero();
    assertThat(table.heldEntries()).isZero();
  }

  @Test
  void theSweepDropsBlanksOfTasksInNoQueueAndTheirCounts() {
    StampTable table = new StampTable(1 << 16);
    Object gone = new Object();
    Object queued = new Object();
    table.put(gone, 100);
    table.blankIfHeld(gone);
    table.take(gone); // its stamped run; the blank's task left its queue unseen
    table.put(queued, 100);
    table.blankIfHeld(queued);
    table.take(queued); // a blank at the head of a task still queued stays
    assertThat(table.sweep(50, t -> t == queued)).isEqualTo(1);
    assertThat(table.size()).isEqualTo(1);
    assertThat(table.heldEntries()).isEqualTo(1);
    assertThat(table.takeIfHeld(gone)).isEqualTo(StampTable.NONE);
    assertThat(table.takeIfHeld(queued)).isEqualTo(StampTable.BLANK);
  }

  /**
   * Producers hand tasks (new objects, and each producer's one shared object) to workers through
   * a queue, stamping about one in four and leaving blanks otherwise, as the sink does in sampled
   * mode; workers take with {@link StampTable#takeIfHeld}. A new object's worker finds exactly its
   * own stamp, or nothing; every stamp put is taken once; nothing is left.
   */
  @RepeatedTest(3)
  void sampledHandoversUnderConcurrencyFindTheirStampsAndLeaveNothing() throws Exception {
    StampTable table = new StampTable(1 << 20);
    int producers = 4;
    int workers = 4;
    int perProducer = 50_000;
    java.util.concurrent.BlockingQueue<Object[]> queue = new java.util.concurrent.LinkedBlockingQueue<>();
    java.util.concurrent.atomic.AtomicLong nextStamp = new java.util.concurrent.atomic.AtomicLong(1);
    java.util.concurrent.atomic.LongAdder stampsPut = new java.util.concurrent.atomic.LongAdder();
    java.util.concurrent.atomic.LongAdder stampsTaken = new java.util.concurrent.atomic.LongAdder();
    java.util.concurrent.atomic.LongAdder stampSum = new java.util.concurrent.atomic.LongAdder();
    java.util.concurrent.atomic.LongAdder takenSum = new java.util.concurrent.atomic.LongAdder();
    java.util.concurrent.ConcurrentLinkedQueue<String> wrong = new java.util.concurrent.ConcurrentLinkedQueue<>();
    Object end = new Object();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      threads.add(new Thread(() -> {
        Object shared = new SharedTask();
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int i = 0; i < perProducer; i++) {
          Object task = random.nextInt(8) == 0 ? shared : new Object();
          long stamp = StampTable.NONE;
          if (random.nextInt(4) == 0) {
            stamp = nextStamp.getAndIncrement();
            assertThat(table.put(task, stamp)).isTrue();
            stampsPut.increment();
            stampSum.add(stamp);
          } else {
            table.blankIfHeld(task);
          }
          queue.add(new Object[] {task, stamp});
        }
      }));
    }
    for (int w = 0; w < workers; w++) {
      threads.add(new Thread(() -> {
        try {
          for (Object[] h; (h = queue.take())[0] != end; ) {
            long got = table.takeIfHeld(h[0]);
            if (got != StampTable.NONE && got != StampTable.BLANK) {
              stampsTaken.increment();
              takenSum.add(got);
            }
            if (!(h[0] instanceof SharedTask) && got != (long) h[1]) {
              wrong.add("expected " + h[1] + ", took " + got); // a new object: its own, or none
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    threads.forEach(Thread::start);
    for (int p = 0; p < producers; p++) {
      threads.get(p).join();
    }
    for (int w = 0; w < workers; w++) {
      queue.add(new Object[] {end, 0L});
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(wrong).isEmpty();
    assertThat(stampsTaken.sum()).isEqualTo(stampsPut.sum());
    assertThat(takenSum.sum()).isEqualTo(stampSum.sum());
    assertThat(table.size()).isZero();
    assertThat(table.heldEntries()).isZero();
  }

  /** One producer's object handed over many times (its runs may take one another's entries). */
  private static final class SharedTask {}
}
