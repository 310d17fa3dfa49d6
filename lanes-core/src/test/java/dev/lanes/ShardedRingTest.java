package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ring of several shards ({@link TaskRing}, "Shards"; issue #27): where producers append, where
 * workers take, the rules that bound how long an entry waits in a shard other than a worker's
 * home, and the ring-wide readings (claimed, size, oldest head) over every shard.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardedRingTest {

  private static Taken worker(int home) {
    Taken tk = new Taken();
    tk.home(home);
    return tk;
  }

  @Test
  void aThreadAppendsToTheShardItsIdPicksSoItsEntriesKeepTheirOrder() throws Exception {
    TaskRing ring = new TaskRing(4, 64, false, 2);
    Thread producer = new Thread(() -> {
      for (int i = 0; i < 10; i++) {
        ring.append(i, i);
      }
    });
    producer.start();
    producer.join();
    int shard = (int) producer.threadId() & 1;
    List<Object> taken = new ArrayList<>();
    for (Object x; (x = ring.poll(worker(shard))) != null; ) {
      taken.add(x);
    }
    assertThat(taken).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void aWorkerTakesFromItsHomeShardFirstThenFromTheOthers() {
    TaskRing ring = new TaskRing(4, 64, false, 2);
    ring.appendTo(0, "a0", 1);
    ring.appendTo(1, "b0", 2);
    ring.appendTo(1, "b1", 3);
    Taken home1 = worker(1);

    assertThat(ring.poll(home1)).isEqualTo("b0");
    assertThat(ring.poll(home1)).isEqualTo("b1");
    assertThat(ring.poll(home1)).isEqualTo("a0"); // its home is empty: the other shard
    assertThat(ring.poll(home1)).isNull();
  }

  @Test
  void afterAStreakOfHomeTakesAWorkerLooksAtTheOtherShardsFirst() {
    TaskRing ring = new TaskRing(4, 1024, false, 2);
    for (int i = 0; i < TaskRing.STREAK + 5; i++) {
      ring.appendTo(0, "home" + i, i);
    }
    ring.appendTo(1, "other", 0);
    Taken w = worker(0);
    for (int i = 0; i < TaskRing.STREAK; i++) {
      assertThat(ring.poll(w)).isEqualTo("home" + i);
    }
    assertThat(ring.poll(w)).isEqualTo("other");
    assertThat(ring.poll(w)).isEqualTo("home" + TaskRing.STREAK); // and back home
  }

  @Test
  void afterALongTaskAWorkerLooksAtTheOtherShardsFirst() {
    TaskRing ring = new TaskRing(4, 64, false, 2);
    ring.appendTo(0, "home0", 1);
    ring.appendTo(0, "home1", 2);
    ring.appendTo(1, "other", 3);
    Taken w = worker(0);
    assertThat(ring.poll(w)).isEqualTo("home0");
    w.rotate();
    assertThat(ring.poll(w)).isEqualTo("other");
    assertThat(ring.poll(w)).isEqualTo("home1");
  }

  @Test
  void underLongTasksALanesWorkerTakesFromEachShardInTurn() throws Exception {
    // One worker of two is held by a task; two threads whose ids pick different shards append 4
    // tasks each, every one longer than ROTATE_AFTER_NANOS. The free worker must alternate between
    // the shards, not drain its home first (which it would do with tiny tasks, up to STREAK).
    CountDownLatch release = new CountDownLatch(1);
    try (Lane lane = Lane.blocking("rotate", 2).queueCapacity(64).build()) {
      try {
        TaskRing ring = ((LaneExecutor) lane).ring;
        if (ring.shardCount() != 2) {
          return; // a 1-core machine has one shard (the rule itself: the tests above)
        }
        CountDownLatch held = new CountDownLatch(1);
        lane.execute(() -> {
          held.countDown();
          await(release);
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(8);
        for (int parity = 0; parity < 2; parity++) {
          Thread producer = threadWithIdParity(parity, () -> {
            String shard = "s" + ((int) Thread.currentThread().threadId() & 1);
            for (int i = 0; i < 4; i++) {
              String name = shard + "-" + i;
              lane.execute(() -> {
                await(start);
                spin(TaskRing.ROTATE_AFTER_NANOS * 2);
                order.add(name);
                done.countDown();
              });
            }
          });
          producer.start();
          producer.join();
        }
        start.countDown();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i < order.size(); i++) {
          assertThat(order.get(i).charAt(1)).as("two in a row from one shard: " + order)
              .isNotEqualTo(order.get(i - 1).charAt(1));
        }
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void ringWideReadingsCoverEveryShard() {
    TaskRing ring = new TaskRing(4, 64, false, 2);
    assertThat(ring.hasClaimed()).isFalse();
    assertThat(ring.headPublished()).isFalse();
    assertThat(ring.holdsOneAtMost()).isTrue();
    ring.appendTo(1, "late", 500);
    assertThat(ring.hasClaimed()).isTrue();
    assertThat(ring.headPublished()).isTrue();
    assertThat(ring.holdsOneAtMost()).isTrue();
    ring.appendTo(0, "early", 100);
    assertThat(ring.holdsOneAtMost()).isFalse();
    assertThat(ring.size()).isEqualTo(2);
    assertThat(ring.appended()).isEqualTo(2);
    assertThat(ring.headWaitNanos(1_000)).isEqualTo(900); // the oldest head's
    List<Object> all = new ArrayList<>();
    ring.forEachEntry(all::add);
    assertThat(all).containsExactlyInAnyOrder("early", "late");

    Taken tk = new Taken();
    assertThat(ring.peek(tk)).isEqualTo("early");
    assertThat(tk.stamp).isEqualTo(100);
    assertThat(ring.pollOldest(worker(1))).isEqualTo("early"); // not its home's "late"
    assertThat(ring.pollClaimed(new Taken())).isEqualTo("late");
    assertThat(ring.pollClaimed(new Taken())).isNull();
    assertThat(ring.size()).isZero();
  }

  @Test
  void takingTheOldestBehindAnEntryStillBeingPublishedReturnsNullAtOnce() {
    // Shard 0's head is claimed but not published (its producer descheduled) and an entry waits
    // behind it in the overflow: pollOldest sees that entry by peek, cannot take it, and must say
    // "nothing now" (its callers back off) — it once spun here until the producer published.
    TaskRing ring = new TaskRing(2, 2, false, 2);
    long claimed = ring.claimForTest();
    ring.spill("behind", 5);
    Taken tk = new Taken();
    assertThat(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(10), () -> ring.pollOldest(tk))).isNull();
    ring.publishForTest(claimed, "first", 1);
    assertThat(ring.pollClaimed(tk)).isEqualTo("first");
    assertThat(ring.pollClaimed(tk)).isEqualTo("behind");
  }

  @Test
  void entriesOfDifferentShardsGetDifferentNumbers() {
    TaskRing ring = new TaskRing(4, 64, false, 4);
    Set<Long> numbers = new HashSet<>();
    for (int shard = 0; shard < 4; shard++) {
      for (int i = 0; i < 3; i++) {
        ring.appendTo(shard, "x", 0);
      }
    }
    Taken tk = new Taken();
    while (ring.poll(tk) != null) {
      assertThat(numbers.add(tk.position)).as("number " + tk.position + " twice").isTrue();
    }
    assertThat(numbers).hasSize(12);
  }

  @Test
  void workersAreGivenHomesInTurn() {
    TaskRing ring = new TaskRing(4, 64, false, 2);
    assertThat(List.of(ring.nextHome(), ring.nextHome(), ring.nextHome())).containsExactly(0, 1, 0);
    assertThat(new TaskRing(4, 64, false, 1).nextHome()).isZero();
  }

  @Test
  void shardsMustBeAPowerOfTwoUpToTheMost() {
    assertThatThrownBy(() -> new TaskRing(4, 64, false, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("power of two").hasMessageContaining("was 3");
    assertThatThrownBy(() -> new TaskRing(4, 64, false, TaskRing.MAX_SHARDS * 2))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void onlyPlatformLanesWithoutAGateAndMoreThanOneWorkerAreSharded() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(LaneExecutor.ringShards(1, false, false)).isOne();
    assertThat(LaneExecutor.ringShards(64, true, false)).isOne(); // virtual
    assertThat(LaneExecutor.ringShards(64, false, true)).isOne(); // gated
    int many = LaneExecutor.ringShards(64, false, false);
    assertThat(Integer.bitCount(many)).isOne();
    assertThat(many).isLessThanOrEqualTo(Math.min(cores, LaneExecutor.MAX_RING_SHARDS));
    assertThat(many * 2).isGreaterThan(Math.min(cores, LaneExecutor.MAX_RING_SHARDS));
    assertThat(LaneExecutor.ringShards(3, false, false))
        .isEqualTo(Integer.highestOneBit(Math.min(3, Math.min(cores, LaneExecutor.MAX_RING_SHARDS))));
  }

  /** An unstarted thread whose id is even (parity 0) or odd (1): it appends to that shard. */
  private static Thread threadWithIdParity(int parity, Runnable body) {
    for (; ; ) {
      Thread t = new Thread(body);
      if ((t.threadId() & 1) == parity) {
        return t;
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() - end < 0) {
      Thread.onSpinWait();
    }
  }
}
