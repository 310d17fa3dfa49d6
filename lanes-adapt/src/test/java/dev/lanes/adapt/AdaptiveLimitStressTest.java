package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many submitters, a downstream whose capacity moves, and an observer reading the lane while the
 * controller decides: the limit stays within its bounds at every read, the events form one chain
 * in order (each starts where the previous ended), growth happens only with tasks waiting and never
 * past them, listeners never run twice at once, and at the end the handle, the last event and the
 * lane agree.
 */
class AdaptiveLimitStressTest {

  @ParameterizedTest
  @ValueSource(strings = {"virtual", "blocking"})
  void invariantsHoldUnderConcurrentLoad(String kind) throws Exception {
    int min = 2;
    int max = 40;
    Semaphore downstream = new Semaphore(12, true);
    AdaptiveSettings settings = AdaptiveSettings.builder().minLimit(min).maxLimit(max)
        .samplesPerDecision(8).build();
    List<String> violations = new CopyOnWriteArrayList<>();
    List<LimitChange> changes = new CopyOnWriteArrayList<>();
    AtomicInteger inListener = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    try (Lane lane = ("virtual".equals(kind) ? Lane.virtual("stress", 4) : Lane.blocking("stress", 4))
            .queueCapacity(100_000).build();
        AdaptiveLimit limit = AdaptiveLimit.attach(lane, settings)) {
      limit.onChange(c -> {
        if (inListener.incrementAndGet() != 1) {
          violations.add("two listeners at once");
        }
        LimitChange previous = changes.isEmpty() ? null : changes.get(changes.size() - 1);
        if (previous != null && previous.to() != c.from()) {
          violations.add("chain broken: " + previous + " then " + c);
        }
        if (c.to() < min || c.to() > max) {
          violations.add("out of bounds: " + c);
        }
        if (c.reason() != LimitChange.Reason.CUT && (c.queued() == 0 || c.to() > c.running() + c.queued())) {
          violations.add("grew without waiting tasks or past them: " + c);
        }
        changes.add(c);
        inListener.decrementAndGet();
      });
      Thread observer = Thread.ofPlatform().name("observer").start(() -> {
        while (!stop.get()) {
          int c = lane.stats().concurrency();
          if (c < min || c > max) {
            violations.add("lane concurrency out of bounds: " + c);
          }
          Thread.onSpinWait();
        }
      });
      // The downstream's capacity moves between 4 and 12 while the load runs.
      Thread mover = Thread.ofPlatform().name("mover").start(() -> {
        SplittableRandom rnd = new SplittableRandom(7);
        int held = 0;
        while (!stop.get()) {
          int want = rnd.nextInt(0, 9);
          try {
            while (held < want) {
              downstream.acquire();
              held++;
            }
            while (held > want) {
              downstream.release();
              held--;
            }
            TimeUnit.MILLISECONDS.sleep(20);
          } catch (InterruptedException e) {
            break;
          }
        }
        downstream.release(held);
      });
      int submitters = 4;
      int perSubmitter = 1_500;
      CountDownLatch go = new CountDownLatch(1);
      ConcurrentLinkedQueue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
      List<Thread> threads = new ArrayList<>();
      for (int s = 0; s < submitters; s++) {
        int seed = s;
        threads.add(Thread.ofPlatform().name("submitter-" + s).start(() -> {
          SplittableRandom rnd = new SplittableRandom(seed);
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < perSubmitter; i++) {
            long ms = rnd.nextInt(0, 3);
            futures.add(lane.submit("call", () -> AdaptiveLimitTest.call(downstream, ms)));
          }
        }));
      }
      go.countDown();
      for (Thread t : threads) {
        t.join();
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
      stop.set(true);
      mover.join();
      observer.join();
      assertThat(violations).isEmpty();
      assertThat(futures).hasSize(submitters * perSubmitter);
      assertThat(changes).isNotEmpty();
      assertThat(limit.limit()).isEqualTo(changes.get(changes.size() - 1).to()).isEqualTo(lane.concurrency());
      assertThat(lane.stats().completed()).isEqualTo((long) submitters * perSubmitter);
    } finally {
      stop.set(true);
    }
  }
}
