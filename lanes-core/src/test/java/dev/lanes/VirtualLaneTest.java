package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class VirtualLaneTest {
  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();


  /** Counts the lane's threads alive (from the first to the last instruction of their runnable). */
  static final class CountingFactory implements ThreadFactory {
    final AtomicInteger alive = new AtomicInteger();
    final AtomicInteger peak = new AtomicInteger();
    final AtomicInteger made = new AtomicInteger();
    private final ThreadFactory base = Thread.ofVirtual().name("counted-", 1).factory();

    @Override
    public Thread newThread(Runnable r) {
      made.incrementAndGet();
      return base.newThread(() -> {
        peak.accumulateAndGet(alive.incrementAndGet(), Math::max);
        try {
          r.run();
        } finally {
          alive.decrementAndGet();
        }
      });
    }
  }

  private static int permits(Lane lane) {
    return ((LaneExecutor) lane).permitsInUse();
  }

  @Test
  void neverMoreThreadsThanTheCapAndWaitingTasksHoldNoThread() throws Exception {
    CountingFactory threads = new CountingFactory();
    try (Lane lane = books.track(Lane.virtual("capped", 5).queueCapacity(2_000).threadFactory(threads).build())) {
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger peakRunning = new AtomicInteger();
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        fs.add(lane.submit(() -> {
          peakRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
          Work.block(release);
          running.decrementAndGet();
        }));
      }
      Awaitility.await().until(() -> running.get() == 5);
      // A thread that found no task gives its permit back as its last act and may still be
      // ending for a moment, so the count of live threads settles to the cap, not at once.
      Awaitility.await().until(() -> threads.alive.get() == 5);
      assertThat(lane.stats().queued()).isEqualTo(995);
      assertThat(lane.stats().workers()).isEqualTo(5);
      release.countDown();
      CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get();
      assertThat(peakRunning.get()).as("tasks running at once").isLessThanOrEqualTo(5);
    }
  }

  @Test
  void everyPermitComesBackFromThrowsCancelsAndInterrupts() throws Exception {
    try (Lane lane = books.track(Lane.virtual("permits", 2).build())) {
      // a task that throws
      CompletableFuture<Object> boom = lane.submit(() -> {
        throw new IllegalStateException("boom");
      });
      assertThatThrownBy(boom::get).isInstanceOf(ExecutionException.class);
      // a task cancelled while queued, and one cancelled (interrupted) while running
      CountDownLatch started = new CountDownLatch(2);
      CountDownLatch never = new CountDownLatch(1);
      CompletableFuture<?> r1 = lane.submit(() -> {
        started.countDown();
        Work.block(never);
      });
      CompletableFuture<?> r2 = lane.submit(() -> {
        started.countDown();
        Work.block(never);
      });
      Work.await(started);
      CompletableFuture<?> queued = lane.submit(() -> {});
      assertThat(queued.cancel(false)).isTrue();
      assertThat(r1.cancel(true)).isTrue();
      assertThat(r2.cancel(true)).isTrue();
      Awaitility.await().until(() -> permits(lane) == 0);
      assertThat(lane.stats().cancelled()).isEqualTo(3);
      assertThat(lane.stats().failed()).isEqualTo(1);
    }
  }

  @Test
  void aThreadThatFailsToStartGivesItsPermitBackAndFailsTheTask() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory flaky = r -> {
      if (calls.incrementAndGet() == 2) { // call 1 is build()'s check that it makes virtual threads
        throw new OutOfMemoryError("unable to create native thread (simulated)");
      }
      return Thread.ofVirtual().unstarted(r);
    };
    try (Lane lane = books.track(Lane.virtual("flaky", 1).threadFactory(flaky).build())) {
      CompletableFuture<Integer> first = lane.submit(() -> 1);
      assertThatThrownBy(first::get)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(LaneRejectedException.class)
          .hasMessageContaining("could not start a thread");
      assertThat(permits(lane)).isZero();
      assertThat(lane.submit(() -> 2).get()).isEqualTo(2); // the next start works
      assertThat(lane.stats().count(TaskOutcome.THREAD_START_FAILED)).isEqualTo(1);
      lane.close();
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void raisingTheCapStartsQueuedTasksAndLoweringItHoldsForNewOnes() throws Exception {
    CountingFactory threads = new CountingFactory();
    try (Lane lane = books.track(Lane.virtual("resize", 2).threadFactory(threads).build())) {
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger peak = new AtomicInteger();
      Runnable task = () -> {
        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
        Work.block(release);
        running.decrementAndGet();
      };
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        fs.add(lane.submit(task));
      }
      Awaitility.await().until(() -> running.get() == 2);
      lane.setConcurrency(6); // up: four more start now
      Awaitility.await().until(() -> running.get() == 6);
      assertThat(lane.concurrency()).isEqualTo(6);
      lane.setConcurrency(1); // down: running tasks finish, then one at a time
      release.countDown();
      CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get();
      // After the six running ones, the remaining four ran one at a time.
      AtomicInteger running2 = new AtomicInteger();
      AtomicInteger peak2 = new AtomicInteger();
      List<CompletableFuture<?>> more = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        more.add(lane.submit(() -> {
          peak2.accumulateAndGet(running2.incrementAndGet(), Math::max);
          Work.spinMillis(2);
          running2.decrementAndGet();
        }));
      }
      CompletableFuture.allOf(more.toArray(new CompletableFuture[0])).get();
      assertThat(peak2.get()).isEqualTo(1);
      Awaitility.await().until(() -> permits(lane) == 0);
    }
    assertThat(threads.peak.get()).isLessThanOrEqualTo(6);
  }

  @Test
  void awaitTerminationWaitsForRunningVirtualThreads() throws Exception {
    Lane lane = books.track(Lane.virtual("await", 3).build());
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(3);
    for (int i = 0; i < 3; i++) {
      lane.execute(() -> {
        started.countDown();
        Work.block(release);
      });
    }
    Work.await(started);
    lane.shutdown();
    assertThat(lane.awaitTermination(50, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(lane.isTerminated()).isFalse();
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(permits(lane)).isZero();
  }

  @Test
  void virtualThreadsAreNamedAfterTheLane() throws Exception {
    try (Lane lane = books.track(Lane.virtual("named", 1).build())) {
      assertThat(lane.submit(() -> Thread.currentThread().getName()).get()).startsWith("named-");
      assertThat(lane.submit(() -> Thread.currentThread().isVirtual()).get()).isTrue();
    }
  }

  @Test
  void noSynchronizedOnTheVirtualThreadPaths() throws Exception {
    // Monitors pin virtual threads on JDK 21-23; lanes' machinery uses java.util.concurrent locks.
    java.nio.file.Path src = java.nio.file.Path.of("src/main/java/dev/lanes");
    try (var files = java.nio.file.Files.walk(src)) {
      List<String> offenders = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> {
            try {
              return java.nio.file.Files.readAllLines(p).stream()
                  .map(String::strip)
                  .filter(l -> !l.startsWith("*") && !l.startsWith("//"))
                  .anyMatch(l -> l.matches(".*\\bsynchronized\\b.*"));
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .map(Object::toString).toList();
      assertThat(offenders).isEmpty();
    }
  }

  @Test
  void aVirtualWorkerKeepsItsPermitBetweenTasksThatFollowEachOther() throws Exception {
    CountingFactory factory = new CountingFactory();
    try (Lane lane = books.track(Lane.virtual("reuse", 4).threadFactory(factory).build())) {
      for (int i = 0; i < 200; i++) {
        lane.submit(() -> 1).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS); // one at a time
      }
      // Without the keep-alive every task starts a thread; with it, the next task usually finds
      // the previous one's thread still holding its permit (a loaded machine may let some gaps
      // outlast it, so only "fewer than one per task" is asserted).
      assertThat(factory.made.get()).isLessThan(200); // (one of them is the build-time probe)
      assertThat(lane.stats().completed()).isEqualTo(200);
    }
  }
}
