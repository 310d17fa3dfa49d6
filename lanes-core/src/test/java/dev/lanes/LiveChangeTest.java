package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Live changes ({@link Lane#change()}): every changeable setting takes effect on a running lane,
 * is checked like the builder (same message; the lane keeps its settings), loses and re-orders
 * no task, is logged once and told to listeners; changes made at once under load keep the books.
 */
@Timeout(60)
class LiveChangeTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @RegisterExtension final Books books = new Books();

  @Test
  void settingsShowWhatTheBuilderGave() {
    Lane lane = books.track(Lane.blocking("s", 3).queueCapacity(7)
        .overflow(OverflowPolicy.discardOldest())
        .shedWhenQueuedLongerThan(Duration.ofMillis(5), Duration.ofMillis(100))
        .saturatedWhenWaitExceeds(Duration.ofMillis(50)).saturationWindow(Duration.ofSeconds(3))
        .saturationMinWait(Duration.ofMillis(2))
        .saturationHysteresis(Duration.ofMillis(300), Duration.ofMillis(400)).build());
    assertThat(lane.settings()).isEqualTo(new LaneSettings(3, 7, OverflowPolicy.discardOldest(),
        Duration.ofMillis(5), Duration.ofMillis(100), 1.0, Duration.ofMillis(50),
        Duration.ofSeconds(3), Duration.ofMillis(2), Duration.ofMillis(300),
        Duration.ofMillis(400)));
    assertThat(lane.settings().shedding()).isTrue();
  }

  @Test
  void raisingTheQueueCapacityMakesRoomAtOnce() {
    Lane lane = books.track(Lane.blocking("grow", 1).queueCapacity(2).build());
    CountDownLatch release = Work.occupy(lane);
    lane.execute(() -> {});
    lane.execute(() -> {});
    assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(LaneRejectedException.class);
    lane.change().queueCapacity(5).apply();
    for (int i = 0; i < 3; i++) {
      lane.execute(() -> {});
    }
    assertThat(lane.queueCapacity()).isEqualTo(5);
    assertThat(lane.stats().queued()).isEqualTo(5);
    LaneRejectedException full = catchThrowableOfType(LaneRejectedException.class,
        () -> lane.execute(() -> {}));
    assertThat(full.queueCapacity()).isEqualTo(5);
    release.countDown();
    Awaitility.await().until(() -> lane.stats().completed() == 6);
  }

  @Test
  void loweringItBelowWhatWaitsKeepsEveryQueuedTaskInOrderAndRefusesNewOnesUntilBelow() {
    Lane lane = books.track(Lane.blocking("shrink", 1).queueCapacity(10).build());
    CountDownLatch release = Work.occupy(lane);
    List<Integer> ran = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 8; i++) {
      int n = i;
      lane.execute(() -> ran.add(n));
    }
    lane.change().queueCapacity(3).apply();
    assertThat(lane.stats().queued()).isEqualTo(8);
    assertThat(catchThrowableOfType(LaneRejectedException.class, () -> lane.execute(() -> {}))
        .reason()).isEqualTo(TaskOutcome.QUEUE_FULL);
    release.countDown();
    Awaitility.await().until(() -> ran.size() == 8);
    assertThat(ran).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    lane.execute(() -> ran.add(8)); // below the new figure again
    Awaitility.await().until(() -> ran.size() == 9);
    LaneStats s = lane.stats();
    assertThat(s.count(TaskOutcome.QUEUE_FULL)).isEqualTo(1);
    assertThat(s.completed()).isEqualTo(10); // the blocker, 8, and the last
  }

  @Test
  void theOverflowPolicyDecidesForTasksThatArriveAfterTheChange() {
    Lane lane = books.track(Lane.blocking("policy", 1).queueCapacity(1).build());
    CountDownLatch release = Work.occupy(lane);
    CompletableFuture<?> first = lane.submit(() -> {});
    assertThatThrownBy(() -> lane.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
    lane.change().overflow(OverflowPolicy.discardOldest()).apply();
    CompletableFuture<?> second = lane.submit(() -> {});
    assertThat(first).isCancelled();
    release.countDown();
    Awaitility.await().until(second::isDone);
    assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1);
    assertThat(lane.stats().count(TaskOutcome.QUEUE_FULL)).isEqualTo(1);
  }

  @Test
  void sheddingTurnsOnAndOffLive() {
    AtomicLong clock = new AtomicLong();
    Lane lane = books.track(Lane.blocking("shed", 1).queueCapacity(100).ticker(clock::get).build());
    CountDownLatch release = Work.occupy(lane);
    lane.execute(() -> {}); // queued at 0
    clock.set(500 * MS);
    lane.execute(() -> {}); // no shedding yet: accepted
    lane.change().shedWhenQueuedLongerThan(Duration.ofMillis(5), Duration.ofMillis(100)).apply();
    // The head has waited 500 ms: above the 5 ms target since 5 ms, longer than the interval.
    assertThat(catchThrowableOfType(LaneRejectedException.class, () -> lane.execute(() -> {}))
        .reason()).isEqualTo(TaskOutcome.SHED);
    lane.change().noShedding().apply();
    lane.execute(() -> {});
    assertThat(lane.settings().shedding()).isFalse();
    release.countDown();
    Awaitility.await().until(() -> lane.stats().completed() == 4);
    assertThat(lane.stats().count(TaskOutcome.SHED)).isEqualTo(1);
  }

  @Test
  void saturationThresholdsJudgeFromTheNextCheck() {
    AtomicLong clock = new AtomicLong();
    LaneExecutor lane = books.track((LaneExecutor) Lane.blocking("sat", 1).queueCapacity(10)
        .ticker(clock::get).saturatedWhenWaitExceeds(Duration.ofSeconds(10)).build());
    CountDownLatch release = Work.occupy(lane);
    lane.execute(() -> {});
    clock.set(3_000 * MS);
    lane.checkHealth();
    assertThat(lane.health()).isEqualTo(LaneHealth.OK); // 3 s < 10 s
    lane.change().saturatedWhenWaitExceeds(Duration.ofSeconds(1))
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).apply();
    lane.checkHealth();
    assertThat(lane.health()).isEqualTo(LaneHealth.SATURATED);
    lane.change().saturatedWhenWaitExceedsRun(2.0).apply();
    assertThat(lane.settings().fixedWaitThreshold()).isNull();
    assertThat(lane.settings().waitToRunRatio()).isEqualTo(2.0);
    release.countDown();
  }

  @Test
  void aBadValueIsRefusedWithTheBuildersMessageAndTheLaneKeepsItsSettings() {
    Lane lane = books.track(Lane.blocking("bad", 2).queueCapacity(5).build());
    LaneSettings before = lane.settings();
    assertSameMessage(() -> Lane.blocking("bad", 2).queueCapacity(0),
        () -> lane.change().queueCapacity(0));
    assertSameMessage(() -> Lane.blocking("bad", 2).concurrency(40_000),
        () -> lane.change().concurrency(40_000));
    assertSameMessage(() -> Lane.blocking("bad", 2).overflow(OverflowPolicy.blockCaller(Duration.ZERO)),
        () -> lane.change().overflow(OverflowPolicy.blockCaller(Duration.ZERO)));
    assertSameMessage(() -> Lane.blocking("bad", 2).saturatedWhenWaitExceedsRun(Double.NaN),
        () -> lane.change().saturatedWhenWaitExceedsRun(Double.NaN));
    assertSameMessage(() -> Lane.blocking("bad", 2).saturationWindow(Duration.ZERO),
        () -> lane.change().saturationWindow(Duration.ZERO));
    assertSameMessage(
        () -> Lane.blocking("bad", 2).shedWhenQueuedLongerThan(Duration.ofHours(2), Duration.ofMillis(1)),
        () -> lane.change().shedWhenQueuedLongerThan(Duration.ofHours(2), Duration.ofMillis(1)));
    assertSameMessage(() -> Lane.blocking("bad", 2).saturationMinWait(Duration.ofMillis(-1)),
        () -> lane.change().saturationMinWait(Duration.ofMillis(-1)));
    // a good value beside a bad one in one change: nothing of it applies
    assertThatThrownBy(() -> lane.change().concurrency(4).queueCapacity(-3).apply())
        .hasMessage("lane \"bad\": queueCapacity must be between 1 and 16777216, was -3");
    assertThat(lane.settings()).isEqualTo(before);
  }

  private static void assertSameMessage(Runnable builder, Runnable change) {
    Throwable a = catchThrowableOfType(IllegalArgumentException.class, builder::run);
    Throwable b = catchThrowableOfType(IllegalArgumentException.class, change::run);
    assertThat(a).as("the builder refuses").isNotNull();
    assertThat(b).as("the change refuses").isNotNull();
    assertThat(b.getMessage()).isEqualTo(a.getMessage());
  }

  @Test
  void aGatedLaneRefusesCallerRunsLikeItsBuilder() {
    LaneGate open = ready -> outcome -> { };
    Lane lane = books.track(Lane.blocking("gated", 1).gate(open).build());
    Throwable built = catchThrowableOfType(IllegalArgumentException.class,
        () -> Lane.blocking("gated", 1).gate(open).overflow(OverflowPolicy.callerRuns()).build());
    assertThatThrownBy(() -> lane.change().overflow(OverflowPolicy.callerRuns()).apply())
        .isInstanceOf(IllegalArgumentException.class).hasMessage(built.getMessage());
    assertThat(lane.overflow()).isEqualTo(OverflowPolicy.reject());
  }

  @Test
  void aShutDownLaneNoLongerChanges() {
    Lane lane = books.track(Lane.blocking("gone", 1).build());
    lane.shutdown();
    assertThatThrownBy(() -> lane.change().queueCapacity(3).apply())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("lane \"gone\": is shut down; its settings no longer change");
  }

  @Test
  void aChangeIsLoggedOnceAndToldToListenersAndOneThatChangesNothingIsNeither() {
    Lane lane = books.track(Lane.blocking("told", 1).queueCapacity(5).build());
    List<SettingsChange> heard = new CopyOnWriteArrayList<>();
    Consumer<SettingsChange> listener = heard::add;
    lane.onSettings(listener);
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler h = Work.captureLog(logged);
    try {
      lane.change().queueCapacity(5).apply(); // the same: nothing
      assertThat(heard).isEmpty();
      LaneSettings now = lane.change().queueCapacity(9).overflow(OverflowPolicy.discardOldest()).apply();
      assertThat(heard).hasSize(1);
      SettingsChange c = heard.get(0);
      assertThat(c.lane()).isEqualTo("told");
      assertThat(c.before().queueCapacity()).isEqualTo(5);
      assertThat(c.after()).isEqualTo(now);
      assertThat(c.describe()).isEqualTo("queueCapacity 5 → 9, overflow reject → discard-oldest");
      assertThat(logged).filteredOn(r -> r.getMessage().contains("settings changed"))
          .singleElement()
          .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.INFO))
          .satisfies(r -> assertThat(r.getMessage()).isEqualTo(
              "lane \"told\": settings changed: queueCapacity 5 → 9, overflow reject → discard-oldest"));
      assertThat(lane.removeListener(listener)).isTrue();
      lane.change().queueCapacity(4).apply();
      assertThat(heard).hasSize(1);
    } finally {
      Logger.getLogger("dev.lanes").removeHandler(h);
    }
  }


  @Test
  void saturationIsLoggedAtTheChosenLevelAndInfoByDefault() {
    for (System.Logger.Level chosen : new System.Logger.Level[] {null, System.Logger.Level.WARNING,
        System.Logger.Level.OFF}) {
      AtomicLong clock = new AtomicLong();
      LaneBuilder b = Lane.blocking("loud", 1).ticker(clock::get)
          .saturationHysteresis(Duration.ZERO, Duration.ZERO);
      if (chosen != null) {
        b.healthLogLevel(chosen);
      }
      LaneExecutor lane = books.track((LaneExecutor) b.build());
      List<LogRecord> logged = new CopyOnWriteArrayList<>();
      Handler h = Work.captureLog(logged);
      try {
        CountDownLatch release = Work.occupy(lane);
        lane.execute(() -> {});
        clock.set(2_000 * MS);
        lane.checkHealth();
        assertThat(lane.health()).isEqualTo(LaneHealth.SATURATED);
        List<LogRecord> lines = logged.stream()
            .filter(r -> r.getMessage().contains("\"loud\": OK → SATURATED")).toList();
        if (chosen == System.Logger.Level.OFF) {
          assertThat(lines).isEmpty();
        } else {
          assertThat(lines).singleElement().satisfies(r -> assertThat(r.getLevel())
              .isEqualTo(chosen == null ? Level.INFO : Level.WARNING));
        }
        release.countDown();
      } finally {
        Logger.getLogger("dev.lanes").removeHandler(h);
      }
      lane.close();
    }
  }

  @Test
  void workerStacksShowWhatEachWorkerRunsOnEitherKindOfThread() {
    for (Lane lane : List.of(books.track(Lane.blocking("stacks", 2).build()),
        books.track(Lane.virtual("vstacks", 2).build()))) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch in = new CountDownLatch(1);
      lane.execute(() -> parkedInAMethodWithAName(in, release));
      Work.await(in);
      String stacks = lane.workerStacks();
      assertThat(stacks).contains("parkedInAMethodWithAName");
      if (lane.kind() == LaneKind.VIRTUAL) {
        assertThat(stacks).contains(" virtual ");
      }
      release.countDown();
    }
  }

  private static void parkedInAMethodWithAName(CountDownLatch in, CountDownLatch release) {
    in.countDown();
    Work.await(release);
  }

  /**
   * Four threads change concurrency, queue capacity and the overflow policy at random while four
   * submit: every accepted task runs exactly once, every refusal is counted, the books balance.
   */
  @Test
  void changesMadeAtOnceUnderLoadLoseNothing() throws Exception {
    for (Lane lane : List.of(books.track(Lane.blocking("busy", 4).queueCapacity(50).build()),
        books.track(Lane.virtual("vbusy", 4).queueCapacity(50).build()))) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong accepted = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      AtomicLong ran = new AtomicLong();
      ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
      List<Thread> changers = Work.start(4, "changer", () -> {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (!stop.get()) {
          LaneChange c = lane.change().concurrency(1 + r.nextInt(8)).queueCapacity(1 + r.nextInt(100));
          if (r.nextBoolean()) {
            c.overflow(r.nextBoolean() ? OverflowPolicy.reject()
                : OverflowPolicy.blockCaller(Duration.ofMillis(1)));
          }
          c.apply();
          Thread.yield();
        }
      });
      List<Thread> submitters = Work.start(4, "submitter", () -> {
        for (int i = 0; i < 20_000; i++) {
          try {
            lane.execute(ran::incrementAndGet);
            accepted.incrementAndGet();
          } catch (LaneRejectedException e) {
            refused.incrementAndGet();
          } catch (Throwable t) {
            unexpected.add(t);
          }
        }
      });
      Work.join(submitters);
      stop.set(true);
      Work.join(changers);
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> lane.stats().queued() == 0 && lane.stats().running() == 0);
      assertThat(unexpected).isEmpty();
      assertThat(ran.get()).isEqualTo(accepted.get());
      LaneStats s = lane.stats();
      Work.assertBooksBalance(s);
      assertThat(s.submitted()).isEqualTo(80_000);
      assertThat(s.completed()).isEqualTo(accepted.get());
      assertThat(s.rejected()).isEqualTo(refused.get());
    }
  }
}
