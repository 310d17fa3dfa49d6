package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker in {@link TaskRing#await} that finds the head claimed but not yet published (its
 * producer between its claim and its release store, perhaps descheduled there) stays in {@code
 * await}, yielding its core, until the entry is published (issue #27): it neither returns to poll
 * at once, over and over (which kept two workers spinning on the producer's lines while it could
 * not run), nor parks (the producer may have read the idle count before the worker announced
 * itself, and would wake nobody).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingAwaitTest {

  @Test
  void aWorkerWaitsOutAClaimedEntryWithoutParkingAndTakesItOncePublished() throws Exception {
    TaskRing ring = new TaskRing(8);
    long position = ring.claimForTest();
    Worker worker = new Worker(null, null, null, null, PoolWorker.Kind.CORE);
    CompletableFuture<Boolean> returned = new CompletableFuture<>();
    Thread t = Thread.ofPlatform().name("ring-await-test").start(() -> {
      worker.thread = Thread.currentThread();
      returned.complete(ring.await(worker.idler, -1, ring.epoch()));
    });
    try {
      Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
          .until(() -> !returned.isDone() && t.getState() != Thread.State.WAITING);
      assertThat(ring.idleWorkers()).isZero(); // never announced itself idle
      ring.publishForTest(position, "task", 42);
      assertThat(returned.get(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      ring.publishForTest(position, "task", 42); // idempotent here: lets the thread out if failing
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(t.isAlive()).isFalse();
    Taken taken = new Taken();
    assertThat(ring.poll(taken)).isEqualTo("task");
    assertThat(taken.stamp).isEqualTo(42);
    assertThat(taken.position).isEqualTo(position);
  }

  @Test
  void aWorkerThatFindsNothingClaimedStillParksAndIsWokenByTheProducer() throws Exception {
    TaskRing ring = new TaskRing(8);
    Worker worker = new Worker(null, null, null, null, PoolWorker.Kind.CORE);
    CompletableFuture<Boolean> returned = new CompletableFuture<>();
    Thread t = Thread.ofPlatform().name("ring-park-test").start(() -> {
      worker.thread = Thread.currentThread();
      returned.complete(ring.await(worker.idler, -1, ring.epoch()));
    });
    Awaitility.await().atMost(Duration.ofSeconds(30))
        .until(() -> ring.idleWorkers() == 1 && t.getState() == Thread.State.WAITING);
    ring.offer("task", 7);
    assertThat(ring.wakeIdle()).isTrue();
    assertThat(returned.get(30, TimeUnit.SECONDS)).isTrue();
    t.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(t.isAlive()).isFalse();
  }
}
