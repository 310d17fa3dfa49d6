package dev.lanes.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Many producers push items through three small lanes with different overflow policies, with
 * failures injected: every item ends exactly once (completed with the right value, failed with the
 * stage named, or rejected and counted there), the books add up, and back-pressure holds — no
 * lane ever holds more than its room (concurrency + queue capacity), no stage runs more items at
 * once than its lane's concurrency, and the items alive at once stay within the lanes' room (the pipeline keeps no
 * queue of its own).
 */
class PipelineStressTest {

  private static final int PRODUCERS = 4;
  private static final int ITEMS_PER_PRODUCER = 3_000;

  /** One stage's work: spins, counts how many run at once, fails the items {@code fails} picks. */
  private static Function<Integer, Integer> work(AtomicInteger running, AtomicInteger peak,
      long spinMicros, java.util.function.IntPredicate fails, String what) {
    return i -> {
      int now = running.incrementAndGet();
      peak.accumulateAndGet(now, Math::max);
      try {
        long end = System.nanoTime() + spinMicros * 1_000;
        while (System.nanoTime() < end) {
          Thread.onSpinWait();
        }
        if (fails.test(i)) {
          throw new IllegalArgumentException(what + " refuses " + i);
        }
        return i;
      } finally {
        running.decrementAndGet();
      }
    };
  }

  @Test
  void everyItemEndsOnceTheBooksBalanceAndNoStageOutgrowsItsLane() throws Exception {
    Lane fetch = Lane.virtual("s-fetch", 3).queueCapacity(6)
        .overflow(OverflowPolicy.blockCaller(Duration.ofSeconds(60))).build();
    Lane parse = Lane.blocking("s-parse", 2).queueCapacity(4)
        .overflow(OverflowPolicy.blockCaller(Duration.ofSeconds(60))).daemon(true).build();
    Lane store = Lane.blocking("s-store", 2).queueCapacity(3).daemon(true).build(); // reject
    List<Lane> lanes = List.of(fetch, parse, store);
    int room = lanes.stream().mapToInt(l -> l.concurrency() + l.queueCapacity()).sum();
    AtomicInteger[] running = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    AtomicInteger[] peak = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    AtomicInteger alive = new AtomicInteger();
    AtomicInteger peakAlive = new AtomicInteger();
    AtomicReference<String> overfull = new AtomicReference<>();
    AtomicBoolean done = new AtomicBoolean();
    Map<Integer, CompletableFuture<Integer>> futures = new ConcurrentHashMap<>();

    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("stress")
        .stage("fetch", fetch, work(running[0], peak[0], 20, i -> false, "fetch"))
        .stage("parse", parse, work(running[1], peak[1], 30, i -> i % 97 == 13, "parse"))
        .stage("store", store, work(running[2], peak[2], 60, i -> i % 89 == 5, "store"))
        .build()) {
      Thread monitor = new Thread(() -> {
        while (!done.get()) {
          for (Lane l : lanes) {
            // A lane admits at most concurrency + queueCapacity unfinished tasks; while its threads
            // are between tasks, all of them may sit in the queue at once.
            int queued = l.stats().queued();
            if (queued > l.concurrency() + l.queueCapacity()) {
              overfull.compareAndSet(null, l.name() + " queued " + queued + " > "
                  + (l.concurrency() + l.queueCapacity()));
            }
          }
          Thread.onSpinWait();
        }
      }, "stress-monitor");
      monitor.start();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> producers = new ArrayList<>();
      for (int t = 0; t < PRODUCERS; t++) {
        int base = t * ITEMS_PER_PRODUCER;
        Thread producer = new Thread(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
          for (int i = base; i < base + ITEMS_PER_PRODUCER; i++) {
            peakAlive.accumulateAndGet(alive.incrementAndGet(), Math::max);
            CompletableFuture<Integer> f = p.submit(i);
            f.whenComplete((v, x) -> alive.decrementAndGet());
            futures.put(i, f);
          }
        }, "stress-producer-" + t);
        producers.add(producer);
        producer.start();
      }
      start.countDown();
      for (Thread producer : producers) {
        producer.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(producer.isAlive()).as(producer.getName()).isFalse();
      }
      CompletableFuture.allOf(futures.values().toArray(CompletableFuture[]::new))
          .handle((v, x) -> null).get(60, TimeUnit.SECONDS);
      done.set(true);
      monitor.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(monitor.isAlive()).isFalse();

      // Every item ended once, as one of three outcomes, and the right way.
      int total = PRODUCERS * ITEMS_PER_PRODUCER;
      assertThat(futures).hasSize(total);
      long completed = 0;
      Map<String, Long> failedAt = new ConcurrentHashMap<>();
      Map<String, Long> rejectedAt = new ConcurrentHashMap<>();
      for (Map.Entry<Integer, CompletableFuture<Integer>> e : futures.entrySet()) {
        int i = e.getKey();
        CompletableFuture<Integer> f = e.getValue();
        assertThat(f).isDone();
        if (!f.isCompletedExceptionally()) {
          assertThat(f.join()).isEqualTo(i);
          assertThat(i % 97 == 13 || i % 89 == 5).isFalse();
          completed++;
          continue;
        }
        Throwable x = f.exceptionNow();
        assertThat(x).isInstanceOf(StageException.class);
        StageException se = (StageException) x;
        assertThat(se.pipeline()).isEqualTo("stress");
        if (se.rejected()) {
          assertThat(se.getCause()).isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
          rejectedAt.merge(se.stage(), 1L, Long::sum);
        } else {
          assertThat(se.getCause()).isInstanceOf(IllegalArgumentException.class)
              .hasMessage(se.stage() + " refuses " + i);
          failedAt.merge(se.stage(), 1L, Long::sum);
        }
      }
      // The failures injected are exactly the ones reported (an item may be rejected first).
      assertThat(failedAt.keySet()).isSubsetOf("parse", "store");
      assertThat(rejectedAt.keySet()).isSubsetOf("store"); // blockCaller stages wait instead

      // The books agree with what the futures said, and balance.
      PipelineStats s = p.stats();
      System.out.print(s.table()); // kept in the test's output file: what this run exercised
      assertThat(s.submitted()).isEqualTo(total);
      assertThat(s.completed()).isEqualTo(completed);
      assertThat(s.completed() + s.failed() + s.rejected()).isEqualTo(total);
      assertThat(s.inFlight()).isZero();
      for (StageStats st : s.stages()) {
        assertThat(st.failed()).as(st.stage()).isEqualTo(failedAt.getOrDefault(st.stage(), 0L));
        assertThat(st.rejected()).as(st.stage()).isEqualTo(rejectedAt.getOrDefault(st.stage(), 0L));
        assertThat(st.inStage()).as(st.stage()).isZero();
        assertThat(st.offered()).as(st.stage()).isEqualTo(st.completed() + st.failed() + st.rejected());
      }
      assertThat(s.stage("fetch").offered()).isEqualTo(total);
      assertThat(s.stage("parse").offered()).isEqualTo(s.stage("fetch").completed());
      assertThat(s.stage("store").offered()).isEqualTo(s.stage("parse").completed());
      assertThat(s.stage("store").completed()).isEqualTo(completed);
      assertThat(s.endToEnd().count()).isEqualTo(completed);
      // Every task that ran reaches the figures (its record arrives just after its future).
      await().atMost(Duration.ofSeconds(30)).until(() -> p.stats().stages().stream()
          .allMatch(st -> st.run().count() == st.completed() + st.failed()));

      // Back-pressure held.
      assertThat(overfull.get()).as("a lane queued beyond its capacity").isNull();
      for (int k = 0; k < 3; k++) {
        assertThat(peak[k].get()).as("stage %d ran at most its lane's concurrency", k)
            .isLessThanOrEqualTo(lanes.get(k).concurrency());
      }
      // Alive: in a lane (running or queued), held by a producer in submit, or a finished last
      // task whose future is being completed on its lane thread.
      assertThat(peakAlive.get()).as("items alive at once").isLessThanOrEqualTo(
          room + PRODUCERS + lanes.stream().mapToInt(Lane::concurrency).sum());
    } finally {
      done.set(true);
      for (Lane l : lanes) {
        l.shutdownNow();
        assertThat(l.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }
}
