package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LifecycleTest {
  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();


  private static LaneBuilder lane(String kind, String name, int n) {
    return kind.equals("virtual") ? Lane.virtual(name, n) : Lane.blocking(name, n);
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownRunsEverythingAccepted(String kind) throws Exception {
    Lane lane = books.track(lane(kind, "sd", 1).build());
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    lane.execute(() -> Work.block(release));
    for (int i = 0; i < 10; i++) {
      lane.execute(ran::incrementAndGet);
    }
    lane.shutdown();
    assertThat(lane.isShutdown()).isTrue();
    assertThat(lane.awaitTermination(10, TimeUnit.MILLISECONDS)).isFalse(); // honest: still busy
    assertThatThrownBy(() -> lane.execute(() -> {}))
        .isInstanceOf(LaneRejectedException.class)
        .hasMessageContaining("lane is shut down");
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(ran.get()).isEqualTo(10);
    assertThat(lane.isTerminated()).isTrue();
    assertThat(lane.stats().terminated()).isTrue();
    assertThat(lane.stats().shutdown()).isTrue();
    assertThat(lane.stats().count(TaskOutcome.SHUTDOWN)).isEqualTo(1);
    Work.assertBooksBalance(lane.stats());
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownNowReturnsNeverStartedTasksAndInterruptsRunningOnes(String kind) throws Exception {
    Lane lane = books.track(lane(kind, "sdn", 1).build());
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    lane.execute(() -> {
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
    });
    Work.await(started);
    List<CompletableFuture<Integer>> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int v = i;
      queued.add(lane.submit(() -> v));
    }
    List<Runnable> never = lane.shutdownNow();
    assertThat(never).hasSize(5);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(interrupted).isTrue();
    assertThat(lane.stats().returned()).isEqualTo(5);
    Work.assertBooksBalance(lane.stats());
    // Nothing is left hanging: what comes back are the submit futures themselves, cancelled.
    assertThat(new ArrayList<Object>(never)).containsExactlyElementsOf(queued);
    for (CompletableFuture<Integer> f : queued) {
      assertThat(f).isCancelled();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void cancellingAQueuedTaskRemovesAndCountsIt(String kind) throws Exception {
    try (Lane lane = books.track(lane(kind, "cq", 1).build())) {
      CountDownLatch release = Work.occupy(lane);
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<?> f = lane.submit(() -> ran.set(true));
      assertThat(lane.stats().queued()).isEqualTo(1);
      assertThat(f.cancel(false)).isTrue();
      assertThat(lane.stats().queued()).isZero();
      assertThatThrownBy(f::get).isInstanceOf(CancellationException.class);
      release.countDown();
      lane.close();
      assertThat(ran).isFalse();
      assertThat(lane.stats().cancelled()).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void cancellingARunningTaskInterruptsOnlyThatTask(String kind) throws Exception {
    try (Lane lane = books.track(lane(kind, "cr", 1).build())) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch sawInterrupt = new CountDownLatch(1);
      CompletableFuture<?> f = lane.submit(() -> {
        started.countDown();
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          sawInterrupt.countDown();
        }
      });
      Work.await(started);
      assertThat(f.cancel(true)).isTrue();
      Work.await(sawInterrupt);
      // The next task on the same thread starts with a clear interrupt flag.
      assertThat(lane.submit(() -> Thread.currentThread().isInterrupted()).get()).isFalse();
      lane.close();
      assertThat(lane.stats().cancelled()).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void closeWaitsForAcceptedWork(String kind) {
    Lane lane = books.track(lane(kind, "close", 2).build());
    AtomicInteger done = new AtomicInteger();
    for (int i = 0; i < 20; i++) {
      lane.execute(() -> {
        Work.spinMillis(1);
        done.incrementAndGet();
      });
    }
    lane.close();
    assertThat(lane.isTerminated()).isTrue();
    assertThat(done.get()).isEqualTo(20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownWhileOthersSubmitLosesNothing(String kind) throws Exception {
    Lane lane = books.track(lane(kind, "race", 2).queueCapacity(64).build());
    List<CompletableFuture<?>> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger rejectedSeen = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> producers = Work.start(4, "producer", () -> {
      Work.block(go);
      for (int i = 0; i < 5_000; i++) {
        try {
          accepted.add(lane.submit(() -> {}));
        } catch (LaneRejectedException e) {
          rejectedSeen.incrementAndGet();
        }
      }
    });
    go.countDown();
    while (lane.stats().completed() < 100) {
      Thread.onSpinWait(); // let some work through before shutting down
    }
    lane.shutdown();
    Work.join(producers);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    synchronized (accepted) {
      assertThat(accepted).allSatisfy(f -> assertThat(f).isDone());
    }
    LaneStats s = lane.stats();
    assertThat(s.rejected()).isEqualTo(rejectedSeen.get());
    assertThat(s.completed()).isEqualTo(accepted.size());
    Work.assertBooksBalance(s);
  }
}
