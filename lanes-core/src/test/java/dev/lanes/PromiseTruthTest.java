package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every accepted task ends visibly and is counted once, whoever made its future; a dying worker
 * loses nothing; a lane holds exactly what its settings say. One test per case that used to lie.
 */
class PromiseTruthTest {

  private static LaneBuilder lane(String kind, String name, int concurrency) {
    return kind.equals("virtual") ? Lane.virtual(name, concurrency) : Lane.blocking(name, concurrency);
  }

  // ------------------------------------------------------------------ no silent ends

  @Test
  void aDiscardedTaskOfSupplyAsyncFailsItsFuture() throws Exception {
    try (Lane lane = Lane.blocking("drop", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest()).build()) {
      CountDownLatch release = Work.occupy(lane);
      CompletableFuture<String> victim = CompletableFuture.supplyAsync(() -> "victim", lane);
      CompletableFuture<String> kept = CompletableFuture.supplyAsync(() -> "kept", lane);
      assertThatThrownBy(() -> victim.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LaneRejectedException.class);
      release.countDown();
      assertThat(kept.get()).isEqualTo("kept");
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void anUnstartableTaskOfSupplyAsyncFailsItsFuture() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory refusing = r -> {
      if (calls.incrementAndGet() == 2) { // call 1 is build()'s check
        throw new IllegalStateException("no thread for you (simulated)");
      }
      return Thread.ofVirtual().unstarted(r);
    };
    try (Lane lane = Lane.virtual("unstartable", 1).threadFactory(refusing).build()) {
      CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> "never", lane);
      assertThatThrownBy(() -> f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasCauseInstanceOf(LaneRejectedException.class);
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.THREAD_START_FAILED)).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownNowReturnsTheUsersRunnablesAndCancelledFutures(String kind) throws Exception {
    Lane lane = lane(kind, "now", 1).build();
    CountDownLatch release = Work.occupy(lane);
    Runnable mine = () -> {};
    lane.execute(mine);
    CompletableFuture<String> submitted = lane.submit(() -> "never");
    CompletableFuture<String> foreign = CompletableFuture.supplyAsync(() -> "never", lane);
    List<Runnable> never = lane.shutdownNow();
    release.countDown();
    assertThat(never).hasSize(3);
    assertThat(never.get(0)).isSameAs(mine);
    assertThat(never.get(1)).isSameAs(submitted);
    // Spring's idiom on shutdown: cancel whatever is a Future. Here they are cancelled already.
    for (Runnable r : never) {
      if (r instanceof Future<?> f) {
        f.cancel(true);
      }
    }
    assertThat(submitted).isCancelled();
    assertThatThrownBy(() -> foreign.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(CancellationException.class);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(lane.stats().returned()).isEqualTo(3);
    assertThat(lane.stats().cancelled()).isZero(); // counted once, as returned
    Work.assertBooksBalance(lane.stats());
  }

  // ------------------------------------------------------------------ decorators

  @Test
  void aDecoratorThatThrowsAtRunFailsTheFutureNotCompletesItWithNull() throws Exception {
    TaskDecorator broken = task -> () -> {
      throw new IllegalStateException("context restore failed");
    };
    try (Lane lane = Lane.blocking("broken-dec", 1).taskDecorator(broken).build()) {
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<String> f = lane.submit(() -> {
        ran.set(true);
        return "value";
      });
      assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("context restore failed");
      lane.close();
      assertThat(ran).isFalse();
      assertThat(lane.stats().completed()).isZero();
      assertThat(lane.stats().failed()).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void aDecoratorThatSkipsTheTaskFailsTheFuture() throws Exception {
    TaskDecorator skipping = task -> () -> {};
    try (Lane lane = Lane.blocking("skip-dec", 1).taskDecorator(skipping).build()) {
      CompletableFuture<String> f = lane.submit(() -> "value");
      assertThatThrownBy(f::get).hasCauseInstanceOf(IllegalStateException.class)
          .hasMessageContaining("the task decorator returned without running");
      lane.close();
      assertThat(lane.stats().failed()).isEqualTo(1);
    }
  }

  @Test
  void aDecoratorThatReturnsNullIsRefusedAtSubmissionAndNothingIsCounted() {
    try (Lane lane = Lane.blocking("null-dec", 1).taskDecorator(task -> null).build()) {
      assertThatThrownBy(() -> lane.submit(() -> "value"))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("lane \"null-dec\": the task decorator returned null; nothing was accepted");
      lane.close();
      assertThat(lane.stats().submitted()).isZero();
    }
  }

  // ------------------------------------------------------------------ dying workers

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void aWorkerKilledByAFailingLoggerGivesBackItsPermitAndIsReplaced(String kind) throws Exception {
    Handler h = Work.throwOnLog("task listener failed"); // a worker then dies logging it
    List<Throwable> died = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler recorder = (t, e) -> died.add(e);
    ThreadFactory factory = kind.equals("virtual")
        ? Thread.ofVirtual().name("dying-", 1).uncaughtExceptionHandler(recorder).factory()
        : Thread.ofPlatform().name("dying-", 1).uncaughtExceptionHandler(recorder).factory();
    try {
      Lane lane = lane(kind, "dying-" + kind, 2).threadFactory(factory).build();
      AtomicBoolean failListener = new AtomicBoolean(true);
      lane.onTask(r -> {
        if (failListener.getAndSet(false)) {
          throw new RuntimeException("listener bug");
        }
      });
      CompletableFuture<String> first = lane.submit(() -> "first");
      assertThat(first.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("first");
      // the worker that ran it died in the listener's log line; the lane goes on at full size
      List<CompletableFuture<Integer>> more = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int v = i;
        more.add(lane.submit(() -> v));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(more.get(i).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(i);
      }
      if (kind.equals("platform")) {
        Awaitility.await().until(() -> lane.stats().workers() == 2);
      } else {
        Awaitility.await().until(() -> ((LaneExecutor) lane).permitsInUse() == 0);
      }
      lane.shutdown();
      assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(lane.stats().completed()).isEqualTo(21);
      Work.assertBooksBalance(lane.stats());
      assertThat(died).singleElement().asString().contains("logger failure (simulated)");
    } finally {
      Logger.getLogger("dev.lanes").removeHandler(h);
    }
  }

  @Test
  void aThreadThatDiesBeforeRunningLanesCodeGivesBackItsPermit() throws Exception {
    AtomicInteger made = new AtomicInteger();
    ThreadFactory wrapperThatThrows = r -> Thread.ofVirtual().unstarted(() -> {
      if (made.incrementAndGet() == 1) {
        throw new IllegalStateException("wrapper failed before running the task (simulated)");
      }
      r.run();
    });
    try (Lane lane = Lane.virtual("wrapped", 1).threadFactory(wrapperThatThrows).build()) {
      CompletableFuture<String> f = lane.submit(() -> "ran");
      assertThat(f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
      Awaitility.await().until(() -> ((LaneExecutor) lane).permitsInUse() == 0);
      lane.close();
      assertThat(lane.isTerminated()).isTrue();
    }
  }

  // ------------------------------------------------------------------ interrupts

  @Test
  void callerRunsKeepsTheSubmittingThreadsInterrupt() throws Exception {
    try (Lane lane = Lane.blocking("cr-int", 1).queueCapacity(1)
        .overflow(OverflowPolicy.callerRuns()).build()) {
      CountDownLatch release = Work.occupy(lane);
      lane.execute(() -> {}); // fills the queue
      Thread.currentThread().interrupt();
      try {
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        lane.execute(() -> sawInterrupt.set(Thread.currentThread().isInterrupted()));
        assertThat(sawInterrupt).as("the caller-run task sees the caller's interrupt").isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
        release.countDown();
      }
    }
  }

  @Test
  void aNestedCallerRunKeepsTheOuterTasksInterrupt() throws Exception {
    try (Lane lane = Lane.blocking("cr-nested", 1).queueCapacity(1)
        .overflow(OverflowPolicy.callerRuns()).build()) {
      CountDownLatch queued = new CountDownLatch(1);
      CompletableFuture<Boolean> outer = lane.submit(() -> {
        lane.execute(() -> Work.block(queued)); // fills the queue behind us
        Thread.currentThread().interrupt(); // e.g. a cancel(true) aimed at this task
        lane.execute(() -> {}); // runs here, on the worker
        boolean stillInterrupted = Thread.interrupted();
        queued.countDown();
        return stillInterrupted;
      });
      assertThat(outer.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  // ------------------------------------------------------------------ counting

  @Test
  void invokeAllTasksCancelledByItsTimeoutAreCountedCancelled() throws Exception {
    try (Lane lane = Lane.blocking("invoke", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      List<Callable<String>> tasks = List.of(() -> "a", () -> "b", () -> "c");
      List<Future<String>> fs = lane.invokeAll(tasks, 50, TimeUnit.MILLISECONDS);
      assertThat(fs).allMatch(Future::isCancelled);
      release.countDown();
      lane.close();
      assertThat(lane.stats().cancelled()).isEqualTo(3);
      assertThat(lane.stats().completed()).isEqualTo(1); // the occupying task
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void invokeAnyReturnsTheFirstResultAndCountsEveryTask() throws Exception {
    try (Lane lane = Lane.blocking("any", 2).build()) {
      CountDownLatch never = new CountDownLatch(1);
      String r = lane.invokeAny(List.of(() -> {
        never.await();
        return "slow";
      }, () -> "fast"));
      assertThat(r).isEqualTo("fast");
      lane.close(); // the slow one was cancelled (interrupted): the lane terminates
      assertThat(lane.stats().completed()).isEqualTo(1);
      assertThat(lane.stats().cancelled()).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void aFutureTaskCancelledBeforeItRanIsCountedCancelled() throws Exception {
    try (Lane lane = Lane.blocking("ft", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      FutureTask<String> task = new FutureTask<>(() -> "x");
      lane.execute(task);
      task.cancel(false);
      release.countDown();
      lane.close();
      assertThat(lane.stats().cancelled()).isEqualTo(1);
      assertThat(lane.stats().completed()).isEqualTo(1);
    }
  }

  // ------------------------------------------------------------------ capacity and labels

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void aOneThreadCapacityOneLaneAcceptsTwoBackToBackSubmissionsEveryTime(String kind)
      throws Exception {
    int tries = 10_000;
    try (Lane lane = lane(kind, "two", 1).queueCapacity(1).build()) {
      for (int i = 0; i < tries; i++) {
        CompletableFuture<?> a = lane.submit(() -> {});
        CompletableFuture<?> b = lane.submit(() -> {}); // the idle worker's slot counts
        a.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
        b.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      }
      assertThat(lane.stats().rejected()).isZero();
      CountDownLatch release = Work.occupy(lane);
      lane.submit(() -> {}); // one may wait
      assertThatThrownBy(() -> lane.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      release.countDown();
    }
  }

  // ------------------------------------------------------------------ configuration

  @Test
  void namesArePrintableAndTrimmed() {
    assertThatThrownBy(() -> Lane.blocking("db\nprod", 1))
        .hasMessage("lane name must be printable, was \"db?prod\" with U+000A at index 2");
    try (Lane lane = Lane.blocking("  db  ", 1).build()) {
      assertThat(lane.name()).isEqualTo("db");
    }
  }

  @Test
  void compensateWithNoCompensationThreadsIsRefused() {
    assertThatThrownBy(() -> Lane.blocking("db", 2).compensateOnDeadlock(0))
        .hasMessage("lane \"db\": compensateOnDeadlock maxExtraThreads must be between 1 and"
            + " 32767, was 0");
  }

  @Test
  void aPlatformThreadFactoryOnAVirtualLaneFailsAtBuildTime() {
    ThreadFactory platform = Thread.ofPlatform().name("plat-", 1).factory();
    assertThatThrownBy(() -> Lane.virtual("api", 4).threadFactory(platform).build())
        .hasMessage("lane \"api\": threadFactory must make virtual threads for a virtual lane,"
            + " made platform thread \"plat-1\"");
  }
}
