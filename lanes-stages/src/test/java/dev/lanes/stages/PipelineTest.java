package dev.lanes.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.OverflowPolicy;
import dev.lanes.TaskOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PipelineTest {

  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final List<Lane> lanes = new ArrayList<>();
  private final List<CountDownLatch> gates = new ArrayList<>();

  private Lane lane(dev.lanes.LaneBuilder b) {
    Lane l = b.daemon(true).build();
    lanes.add(l);
    return l;
  }

  private CountDownLatch gate() {
    CountDownLatch g = new CountDownLatch(1);
    gates.add(g);
    return g;
  }

  @AfterEach
  void closeLanes() throws InterruptedException {
    gates.forEach(CountDownLatch::countDown);
    for (Lane l : lanes) {
      l.shutdownNow();
      assertThat(l.awaitTermination(10, TimeUnit.SECONDS)).as(l.name()).isTrue();
    }
  }

  private static void pass(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("gate not opened within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void itemsGoThroughEveryStageOnItsLaneAndTheFiguresArePerStage() throws Exception {
    Lane io = lane(Lane.virtual("io", 4));
    Lane cpu = lane(Lane.cpu("cpu").concurrency(2));
    Lane db = lane(Lane.blocking("db", 2));
    List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (Pipeline<Integer, String> p = Pipeline.<Integer>builder("ingest")
        .stage("fetch", io, i -> { threads.add("fetch:" + Thread.currentThread().isVirtual()); return "body" + i; })
        .stage("parse", cpu, String::length)
        .stage("store", db, n -> { threads.add("store:" + Thread.currentThread().getName()); return "saved " + n; })
        .build()) {
      List<CompletableFuture<String>> futures = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        futures.add(p.submit(i));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(futures.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("saved " + ("body" + i).length());
      }
      assertThat(threads).filteredOn(t -> t.startsWith("fetch:")).containsOnly("fetch:true");
      assertThat(threads).filteredOn(t -> t.startsWith("store:")).allMatch(t -> t.startsWith("store:db-"));
      PipelineStats s = awaitTimings(p, 20);
      assertThat(s.submitted()).isEqualTo(20);
      assertThat(s.completed()).isEqualTo(20);
      assertThat(s.failed()).isZero();
      assertThat(s.rejected()).isZero();
      assertThat(s.inFlight()).isZero();
      assertThat(s.endToEnd().count()).isEqualTo(20);
      assertThat(s.stages()).extracting(StageStats::stage).containsExactly("fetch", "parse", "store");
      assertThat(s.stages()).extracting(StageStats::lane).containsExactly("io", "cpu", "db");
      for (StageStats st : s.stages()) {
        assertThat(st.offered()).as(st.stage()).isEqualTo(20);
        assertThat(st.completed()).as(st.stage()).isEqualTo(20);
        assertThat(st.inStage()).as(st.stage()).isZero();
        assertThat(st.laneShared()).isFalse();
        assertThat(st.run().max()).isGreaterThanOrEqualTo(st.run().p99());
      }
      assertThat(s.stage("store").handoff().isEmpty()).isTrue();
      assertThat(s.stage("fetch").handoff().count()).isEqualTo(20);
      assertThat(s.bottleneck().stage()).isPresent();
      assertThat(s.table()).contains("fetch").contains("parse").contains("store").contains("bottleneck: ");
      assertThat(p.toString()).contains("fetch@io -> parse@cpu -> store@db").contains("completed 20");
    }
  }

  /** The figures come from the lanes' own records once they have all arrived (just after each future). */
  private static PipelineStats awaitTimings(Pipeline<?, ?> p, long perStage) {
    await().atMost(PATIENCE).until(() -> p.stats().stages().stream()
        .allMatch(s -> s.run().count() >= Math.min(perStage, s.completed() + s.failed())));
    return p.stats();
  }

  @Test
  void aStageThatThrowsFailsTheItemNamingTheStageAndKeepingTheCause() throws Exception {
    Lane a = lane(Lane.blocking("a", 1));
    Lane b = lane(Lane.blocking("b", 1));
    AtomicInteger storeCalls = new AtomicInteger();
    IllegalStateException boom = new IllegalStateException("bad json");
    try (Pipeline<String, Integer> p = Pipeline.<String>builder("p")
        .stage("parse", a, s -> { if (s.equals("x")) { throw boom; } return s.length(); })
        .stage("store", b, n -> storeCalls.incrementAndGet())
        .build()) {
      CompletableFuture<Integer> bad = p.submit("x");
      assertThatThrownBy(() -> bad.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOfSatisfying(StageException.class, e -> {
            assertThat(e.pipeline()).isEqualTo("p");
            assertThat(e.stage()).isEqualTo("parse");
            assertThat(e.stageIndex()).isZero();
            assertThat(e.rejected()).isFalse();
            assertThat(e.getCause()).isSameAs(boom);
            assertThat(e.getMessage()).isEqualTo(
                "pipeline \"p\", stage \"parse\" (1 of 2): failed: java.lang.IllegalStateException: bad json");
          });
      assertThatThrownBy(bad::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(StageException.class);
      assertThat(p.submit("ok").get(30, TimeUnit.SECONDS)).isEqualTo(1);
      PipelineStats s = p.stats();
      assertThat(s.failed()).isEqualTo(1);
      assertThat(s.completed()).isEqualTo(1);
      assertThat(s.stage("parse").failed()).isEqualTo(1);
      assertThat(s.stage("store").offered()).isEqualTo(1);
      assertThat(storeCalls).hasValue(1);
      // The lane counts the stage's task as failed too.
      await().atMost(PATIENCE).until(() -> a.stats().count(TaskOutcome.FAILED) == 1);
    }
  }

  @Test
  void aFullDownstreamWithTheRejectPolicyRejectsTheItemThereNamingThatStage() throws Exception {
    Lane up = lane(Lane.blocking("up", 1));
    Lane down = lane(Lane.blocking("down", 1).queueCapacity(1));
    CountDownLatch release = gate();
    CountDownLatch downBusy = new CountDownLatch(1);
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("p")
        .stage("a", up, i -> i)
        .stage("b", down, i -> { downBusy.countDown(); pass(release); return i; })
        .build()) {
      CompletableFuture<Integer> first = p.submit(1);   // runs in "b", held
      assertThat(downBusy.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> second = p.submit(2);  // queued in "b"
      await().atMost(PATIENCE).until(() -> down.stats().queued() == 1);
      CompletableFuture<Integer> third = p.submit(3);   // "b" is full: rejected there
      assertThatThrownBy(() -> third.get(30, TimeUnit.SECONDS)).cause()
          .isInstanceOfSatisfying(StageException.class, e -> {
            assertThat(e.stage()).isEqualTo("b");
            assertThat(e.stageIndex()).isEqualTo(1);
            assertThat(e.rejected()).isTrue();
            assertThat(e.getCause()).isInstanceOfSatisfying(LaneRejectedException.class,
                r -> assertThat(r.reason()).isEqualTo(TaskOutcome.QUEUE_FULL));
          });
      assertThat(down.stats().queued()).isLessThanOrEqualTo(down.queueCapacity());
      release.countDown();
      assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(2);
      PipelineStats s = p.stats();
      assertThat(s.stage("b").rejected()).isEqualTo(1);
      assertThat(s.stage("a").completed()).isEqualTo(3);
      assertThat(s.stage("b").offered()).isEqualTo(3);
      assertThat(s.rejected()).isEqualTo(1);
      assertThat(s.submitted()).isEqualTo(s.completed() + s.failed() + s.rejected());
      assertThat(s.bottleneck().stage()).contains("b");
      assertThat(s.bottleneck().reason()).isEqualTo(Bottleneck.Reason.REJECTING);
    }
  }

  @Test
  void aRefusalAtTheFirstStageDoesNotThrowTheFutureFails() throws Exception {
    Lane first = lane(Lane.blocking("first", 1).queueCapacity(1));
    CountDownLatch release = gate();
    CountDownLatch busy = new CountDownLatch(1);
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("p")
        .stage("only", first, i -> { busy.countDown(); pass(release); return i; })
        .build()) {
      CompletableFuture<Integer> a = p.submit(1);
      assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> b = p.submit(2);
      CompletableFuture<Integer> c = p.submit(3);
      assertThat(c).isCompletedExceptionally();
      assertThatThrownBy(c::join).cause().isInstanceOfSatisfying(StageException.class,
          e -> assertThat(e.rejected()).isTrue());
      release.countDown();
      assertThat(a.get(30, TimeUnit.SECONDS) + b.get(30, TimeUnit.SECONDS)).isEqualTo(3);
      assertThat(p.stats().stage("only").rejected()).isEqualTo(1);
    }
  }

  @Test
  void aFullBlockCallerDownstreamHoldsTheUpstreamThreadInsteadOfGrowingAQueue() throws Exception {
    Lane up = lane(Lane.blocking("up", 1).queueCapacity(2).overflow(OverflowPolicy.blockCaller(Duration.ofSeconds(30))));
    Lane down = lane(Lane.blocking("down", 1).queueCapacity(1).overflow(OverflowPolicy.blockCaller(Duration.ofSeconds(30))));
    CountDownLatch release = gate();
    AtomicInteger upRan = new AtomicInteger();
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("bp")
        .stage("a", up, i -> { upRan.incrementAndGet(); return i; })
        .stage("b", down, i -> { pass(release); return i; })
        .build()) {
      List<CompletableFuture<Integer>> fs = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        fs.add(p.submit(i)); // room: b runs 1, queues 1; a's thread holds 1 handing on; a queues 2
      }
      // Item 0 runs in b, item 1 waits in b's queue, item 2's a-task is blocked handing on, items 3, 4 wait in a.
      await().atMost(PATIENCE).until(() -> up.stats().queued() == 2 && upRan.get() == 3);
      assertThat(down.stats().queued()).isEqualTo(1);
      // A sixth submit would block this thread (a is full and blocks its caller): do it on another.
      CompletableFuture<CompletableFuture<Integer>> sixth = CompletableFuture.supplyAsync(() -> p.submit(5));
      await().atMost(PATIENCE).until(() -> p.stats().submitted() == 6);
      assertThat(sixth).isNotDone();
      PipelineStats held = p.stats();
      assertThat(held.stage("b").inStage()).isEqualTo(2);   // running + queued: its lane's room
      // Two queued in a; the third a-task finished its work (counted completed in a) and is blocked
      // handing its item on, which b does not count until it has room.
      assertThat(held.stage("a").inStage()).isEqualTo(2);
      assertThat(held.stage("a").completed()).isEqualTo(3);
      assertThat(held.stage("b").offered()).isEqualTo(2);
      release.countDown();
      fs.add(sixth.get(30, TimeUnit.SECONDS));
      for (int i = 0; i < 6; i++) {
        assertThat(fs.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i);
      }
      PipelineStats s = awaitTimings(p, 6);
      assertThat(s.completed()).isEqualTo(6);
      assertThat(s.rejected()).isZero();
      assertThat(s.stage("a").handoff().max()).isGreaterThan(0);
    }
  }

  @Test
  void aFullCallerRunsDownstreamRunsItsWorkOnTheThreadHandingItOn() throws Exception {
    Lane up = lane(Lane.blocking("cr-up", 1));
    Lane down = lane(Lane.blocking("cr-down", 1).queueCapacity(1).overflow(OverflowPolicy.callerRuns()));
    CountDownLatch release = gate();
    CountDownLatch downBusy = new CountDownLatch(1);
    try (Pipeline<Integer, String> p = Pipeline.<Integer>builder("cr")
        .stage("a", up, i -> i)
        .stage("b", down, i -> {
          if (i == 0) {
            downBusy.countDown();
            pass(release);
          }
          return Thread.currentThread().getName();
        })
        .build()) {
      CompletableFuture<String> held = p.submit(0);
      assertThat(downBusy.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<String> queued = p.submit(1);
      await().atMost(PATIENCE).until(() -> down.stats().queued() == 1);
      // "b" is full: item 2's "b" work runs on the thread of "a" that hands it on.
      assertThat(p.submit(2).get(30, TimeUnit.SECONDS)).startsWith("cr-up-");
      release.countDown();
      assertThat(held.get(30, TimeUnit.SECONDS)).startsWith("cr-down-");
      assertThat(queued.get(30, TimeUnit.SECONDS)).startsWith("cr-down-");
      PipelineStats s = awaitTimings(p, 3);
      assertThat(s.stage("b").completed()).isEqualTo(3);
      assertThat(s.stage("b").rejected()).isZero();
      assertThat(s.stage("a").handoff().max()).isGreaterThan(0);
    }
  }

  /**
   * On the last lane's thread as a rule; on the first's when the last task ended before the first
   * stage's thread had watched its future (a race the javadoc names; CI saw it once).
   */
  @Test
  void dependentsWithoutAnExecutorRunOnAThreadOfThePipelinesLanesAfterTheLastTask()
      throws Exception {
    Lane first = lane(Lane.blocking("dep-first", 1));
    Lane last = lane(Lane.blocking("dep-last", 1));
    CountDownLatch release = gate();
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("dep")
        .stage("a", first, i -> i).stage("b", last, i -> { pass(release); return i; }).build()) {
      CompletableFuture<String> where = p.submit(1).thenApply(i -> Thread.currentThread().getName());
      release.countDown();
      assertThat(where.get(30, TimeUnit.SECONDS)).matches("dep-(last|first)-.*");
    }
  }

  @Test
  void anItemDroppedFromAQueueIsRejectedAtItsStage() throws Exception {
    Lane only = lane(Lane.blocking("drop", 1).queueCapacity(1).overflow(OverflowPolicy.discardOldest()));
    CountDownLatch release = gate();
    CountDownLatch busy = new CountDownLatch(1);
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("d")
        .stage("s", only, i -> { busy.countDown(); pass(release); return i; })
        .build()) {
      CompletableFuture<Integer> a = p.submit(1);
      assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> b = p.submit(2);
      CompletableFuture<Integer> c = p.submit(3); // drops b
      assertThatThrownBy(() -> b.get(30, TimeUnit.SECONDS)).cause()
          .isInstanceOfSatisfying(StageException.class, e -> {
            assertThat(e.rejected()).isTrue();
            assertThat(e.getCause()).isInstanceOf(CancellationException.class);
          });
      release.countDown();
      assertThat(a.get(30, TimeUnit.SECONDS) + c.get(30, TimeUnit.SECONDS)).isEqualTo(4);
      PipelineStats s = p.stats();
      assertThat(s.stage("s").rejected()).isEqualTo(1);
      assertThat(s.stage("s").completed()).isEqualTo(2);
      assertThat(s.stage("s").offered()).isEqualTo(3);
    }
  }

  @Test
  void shutdownNowOfAStageLaneRejectsItsQueuedItemsAndLaterHandOffs() throws Exception {
    Lane a = lane(Lane.blocking("a2", 1));
    Lane b = lane(Lane.blocking("b2", 1));
    CountDownLatch release = gate();
    CountDownLatch busy = new CountDownLatch(1);
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("sd")
        .stage("a", a, i -> i)
        .stage("b", b, i -> { busy.countDown(); pass(release); return i; })
        .build()) {
      CompletableFuture<Integer> running = p.submit(1);
      assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> queued = p.submit(2);
      await().atMost(PATIENCE).until(() -> b.stats().queued() == 1);
      b.shutdownNow(); // interrupts item 1's wait, returns item 2
      CompletableFuture<Integer> late = p.submit(3);
      for (CompletableFuture<Integer> f : List.of(running, queued, late)) {
        assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(
            StageException.class, e -> assertThat(e.stage()).isEqualTo("b"));
      }
      PipelineStats s = p.stats();
      assertThat(s.stage("b").failed()).isEqualTo(1);   // its work was interrupted and threw
      assertThat(s.stage("b").rejected()).isEqualTo(2); // returned by shutdownNow; refused: shut down
      assertThat(s.submitted()).isEqualTo(s.completed() + s.failed() + s.rejected());
    }
  }

  @Test
  void aLaneSharedWithOtherWorkCountsOnlyThisPipelinesTasks() throws Exception {
    Lane shared = lane(Lane.blocking("shared", 2));
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("mine")
        .stage("one", shared, i -> i + 1)
        .stage("two", shared, i -> i * 2)
        .build()) {
      List<CompletableFuture<?>> others = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        others.add(shared.submit("other", () -> 0));
      }
      List<CompletableFuture<Integer>> mine = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        mine.add(p.submit(i));
      }
      CompletableFuture.allOf(others.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      for (int i = 0; i < 10; i++) {
        assertThat(mine.get(i).get(30, TimeUnit.SECONDS)).isEqualTo((i + 1) * 2);
      }
      PipelineStats s = awaitTimings(p, 10);
      assertThat(s.stage("one").run().count()).isEqualTo(10);
      assertThat(s.stage("two").run().count()).isEqualTo(10);
      assertThat(s.stage("one").laneShared()).isTrue();
      await().atMost(PATIENCE).until(() -> shared.stats().completed() == 50);
    }
  }

  @Test
  void itWorksInCompletableFutureChains() throws Exception {
    Lane l = lane(Lane.blocking("chain", 2));
    try (Pipeline<String, Integer> p = Pipeline.<String>builder("c")
        .stage("trim", l, String::strip).stage("length", l, String::length).build()) {
      CompletableFuture<Integer> total = p.submit("  abc ").thenCombine(p.submit("de"), Integer::sum)
          .thenCompose(n -> p.submit("x".repeat(n)));
      assertThat(total.get(30, TimeUnit.SECONDS)).isEqualTo(5);
    }
  }

  @Test
  void completingTheReturnedFutureYourselfDoesNotStopOrUncountTheItem() throws Exception {
    Lane l = lane(Lane.blocking("own", 1));
    CountDownLatch release = gate();
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("own")
        .stage("s", l, i -> { pass(release); return i; }).build()) {
      CompletableFuture<Integer> f = p.submit(1);
      f.complete(99);
      release.countDown();
      await().atMost(PATIENCE).until(() -> p.stats().completed() == 1);
      assertThat(f.join()).isEqualTo(99);
    }
  }

  @Test
  void theBuilderRefusesBadSettingsNamingThePipelineAndStage() {
    Lane l = lane(Lane.blocking("v", 1));
    Lane blocking = lane(Lane.blocking("bc", 1).overflow(OverflowPolicy.blockCaller(Duration.ofSeconds(1))));
    assertThatThrownBy(() -> Pipeline.builder(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pipeline name must be 1 to 100 printable characters without '/', was \" \"");
    assertThatThrownBy(() -> Pipeline.builder("a/b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Pipeline.builder("x".repeat(101))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Pipeline.<Integer>builder("p").build()).isInstanceOf(IllegalStateException.class)
        .hasMessage("pipeline \"p\": has no stages; add one with stage(name, lane, work)");
    PipelineBuilder<Integer, Integer> one = Pipeline.<Integer>builder("p").stage("s", l, i -> i);
    assertThatThrownBy(() -> one.stage("s", l, i -> i)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pipeline \"p\": stage \"s\" is given twice");
    assertThatThrownBy(() -> one.stage("", l, i -> i)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("pipeline \"p\": stage name must be 1 to 100");
    assertThatThrownBy(() -> one.stage("t", null, i -> i)).isInstanceOf(NullPointerException.class)
        .hasMessage("pipeline \"p\": stage \"t\": lane must not be null");
    assertThatThrownBy(() -> one.stage("t", l, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Pipeline.<Integer>builder("q").stage("a", blocking, i -> i)
        .stage("b", blocking, i -> i).build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lane \"bc\" runs stages \"a\" and \"b\"")
        .hasMessageContaining("block-caller(PT1S)");
    // A builder is immutable: `one` still has one stage.
    assertThat(one.names()).containsExactly("s");
  }

  @Test
  void twoOpenPipelinesOfOneNameCannotShareALaneButOneClosedFreesTheName() {
    Lane l = lane(Lane.blocking("n", 1));
    Pipeline<Integer, Integer> first = Pipeline.<Integer>builder("same").stage("s", l, i -> i).build();
    assertThatThrownBy(() -> Pipeline.<Integer>builder("same").stage("s", l, i -> i).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("already runs a pipeline named \"same\"");
    first.close();
    first.close(); // twice is harmless
    assertThatThrownBy(() -> first.submit(1)).isInstanceOf(IllegalStateException.class)
        .hasMessage("pipeline \"same\" is closed");
    try (Pipeline<Integer, Integer> second = Pipeline.<Integer>builder("same").stage("s", l, i -> i).build()) {
      assertThat(second.submit(2).join()).isEqualTo(2);
    }
  }

  @Test
  void theSlowStageIsNamedTheBottleneck() throws Exception {
    Lane fast = lane(Lane.blocking("fast", 4));
    Lane slow = lane(Lane.blocking("slow", 1));
    try (Pipeline<Integer, Integer> p = Pipeline.<Integer>builder("b")
        .stage("quick", fast, i -> i)
        .stage("sluggish", slow, i -> { sleep(5); return i; })
        .build()) {
      List<CompletableFuture<Integer>> fs = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        fs.add(p.submit(i));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      PipelineStats s = awaitTimings(p, 20);
      // 20 items at once into one thread sleeping 5 ms each: they wait there longer than they run.
      assertThat(s.bottleneck().stage()).contains("sluggish");
      assertThat(s.bottleneck().reason()).isEqualTo(Bottleneck.Reason.QUEUE_WAIT);
      assertThat(s.bottleneck().explanation()).startsWith("stage \"sluggish\" (lane \"slow\")");
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
