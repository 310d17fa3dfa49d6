package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What the public API is: its size, its module, and the promises of its futures. */
class ApiShapeTest {

  /** Every public type of dev.lanes, top-level or nested, from the compiled classes. */
  private static List<String> publicTypes() throws IOException, ClassNotFoundException {
    Path classes = Path.of("target/classes/dev/lanes");
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(classes)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = f.getFileName().toString().replace(".class", "");
        Class<?> c = Class.forName("dev.lanes." + name, false, ApiShapeTest.class.getClassLoader());
        boolean visible = Modifier.isPublic(c.getModifiers());
        for (Class<?> outer = c.getEnclosingClass(); outer != null; outer = outer.getEnclosingClass()) {
          visible &= Modifier.isPublic(outer.getModifiers());
        }
        if (visible && !c.isAnonymousClass() && !c.isSynthetic()) {
          out.add(c.getName());
        }
      }
    }
    return out;
  }

  @Test
  void exactlyTheListedPublicTypesAndTheMachineryIsHidden() throws Exception {
    List<String> types = publicTypes();
    // DESIGN.md's table of the public API lists the same 23.
    assertThat(types).as("public types of dev.lanes").containsExactlyInAnyOrder(
        "dev.lanes.Lane", "dev.lanes.LaneBuilder", "dev.lanes.Lanes", "dev.lanes.OverflowPolicy",
        "dev.lanes.TaskDecorator", "dev.lanes.Ticker", "dev.lanes.LaneGate",
        "dev.lanes.LaneGate$Pass", "dev.lanes.LaneStats", "dev.lanes.Timings",
        "dev.lanes.Distribution", "dev.lanes.TaskRecord", "dev.lanes.HealthEvent",
        "dev.lanes.LaneKind", "dev.lanes.LaneHealth", "dev.lanes.TaskOutcome",
        "dev.lanes.LaneRejectedException", "dev.lanes.LaneSettings", "dev.lanes.LaneChange",
        "dev.lanes.SettingsChange", "dev.lanes.TaskDeadline", "dev.lanes.Pinning",
        "dev.lanes.Pinning$Site");
    assertThat(types).doesNotContain("dev.lanes.LaneExecutor", "dev.lanes.LaneFuture",
        "dev.lanes.TaskRing", "dev.lanes.Worker", "dev.lanes.TimingBook");
    assertThat(Lane.class.isSealed()).isTrue();
  }

  @Test
  void theModuleExportsDevLanesOnly() {
    ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("dev.lanes")
        .orElseThrow().descriptor();
    assertThat(d.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.lanes");
    assertThat(d.exports()).allSatisfy(e -> assertThat(e.isQualified()).isFalse());
    assertThat(d.opens()).isEmpty();
  }

  @Test
  void futuresCannotBeCompletedOrObtrudedByCallers() throws Exception {
    try (Lane lane = Lane.blocking("sealed-futures", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      CompletableFuture<String> f = lane.submit(() -> "ran");
      CompletableFuture<String> stage = f.thenApply(s -> s + "+stage");
      for (CompletableFuture<String> cf : List.of(f, stage)) {
        assertThatThrownBy(() -> cf.complete("forged"))
            .isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("lane \"sealed-futures\": complete is refused");
        assertThatThrownBy(() -> cf.completeExceptionally(new Exception()))
            .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> cf.obtrudeValue("forged"))
            .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> cf.obtrudeException(new Exception()))
            .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> cf.completeAsync(() -> "forged"))
            .isInstanceOf(UnsupportedOperationException.class);
        assertThat(cf).isNotDone();
      }
      release.countDown();
      assertThat(stage.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran+stage");
      assertThat(f.get()).isEqualTo("ran");
    }
  }

  @Test
  void orTimeoutAndCompleteOnTimeoutStillWork() throws Exception {
    try (Lane lane = Lane.blocking("timeouts", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      CompletableFuture<String> queued = lane.submit(() -> "late");
      CompletableFuture<String> timedOut = queued.thenApply(s -> s).orTimeout(20, TimeUnit.MILLISECONDS);
      assertThatThrownBy(() -> timedOut.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
      CompletableFuture<String> defaulted =
          queued.thenApply(s -> s).completeOnTimeout("default", 20, TimeUnit.MILLISECONDS);
      assertThat(defaulted.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("default");
      release.countDown();
      assertThat(queued.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("late");
    }
  }

  @Test
  void stagesKeepTheLaneAsTheirDefaultExecutorAllTheWayDown() throws Exception {
    try (Lane lane = Lane.blocking("chain", 1).build()) {
      String thread = lane.submit(() -> 1).thenApply(x -> x).thenApply(x -> x)
          .thenApplyAsync(x -> Thread.currentThread().getName())
          .get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      assertThat(thread).startsWith("chain-");
    }
  }

  @Test
  void aPlatformLaneGrowsAndShrinksWhileRunning() throws Exception {
    try (Lane lane = Lane.blocking("resizable", 2).build()) {
      lane.setConcurrency(5);
      assertThat(lane.concurrency()).isEqualTo(5);
      CountDownLatch allRunning = new CountDownLatch(5);
      CountDownLatch release = new CountDownLatch(1);
      List<CompletableFuture<?>> running = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        running.add(lane.submit(() -> {
          allRunning.countDown();
          Work.block(release);
        }));
      }
      assertThat(allRunning.await(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .as("five tasks run at once after growing to 5").isTrue();
      lane.setConcurrency(1);
      release.countDown();
      CompletableFuture.allOf(running.toArray(new CompletableFuture[0]))
          .get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> lane.stats().workers() == 1);
      // With one thread left, tasks run one at a time.
      java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
      List<CompletableFuture<?>> after = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        after.add(lane.submit(() -> {
          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
          Thread.onSpinWait();
          inside.decrementAndGet();
        }));
      }
      CompletableFuture.allOf(after.toArray(new CompletableFuture[0]))
          .get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      assertThat(most.get()).isEqualTo(1);
      assertThat(lane.stats().concurrency()).isEqualTo(1);
    }
  }

  @Test
  void aQueuedTaskWhoseOwnFutureTimesOutDoesNotRunAndCountsAsFailed() throws Exception {
    try (Lane lane = Lane.blocking("own-timeout", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
      CompletableFuture<String> f = lane.submit(() -> {
        ran.set(true);
        return "late";
      }).orTimeout(20, TimeUnit.MILLISECONDS);
      assertThatThrownBy(() -> f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasCauseInstanceOf(TimeoutException.class);
      release.countDown();
      lane.close();
      assertThat(ran).isFalse();
      assertThat(lane.stats().failed()).isEqualTo(1);
      Work.assertBooksBalance(lane.stats());
    }
  }

  @Test
  void taskIdsArePositionsInTheQueueAndTasksThatNeverEnteredItCountDownFromMinusOne()
      throws Exception {
    List<TaskRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("ids", 1).queueCapacity(1).build()) {
      lane.onTask(records::add);
      CountDownLatch release = Work.occupy(lane); // queue position 0: id 1
      lane.execute("queued", () -> {}); // id 2
      assertThatThrownBy(() -> lane.execute("refused-1", () -> {})).isInstanceOf(LaneRejectedException.class);
      assertThatThrownBy(() -> lane.execute("refused-2", () -> {})).isInstanceOf(LaneRejectedException.class);
      release.countDown();
      lane.close();
    }
    org.awaitility.Awaitility.await().until(() -> records.size() == 4);
    java.util.Map<String, Long> ids = new java.util.HashMap<>();
    records.forEach(r -> ids.put(r.label(), r.taskId()));
    assertThat(ids.get("queued")).isEqualTo(2);
    assertThat(ids.get("refused-1")).isEqualTo(-1);
    assertThat(ids.get("refused-2")).isEqualTo(-2);
  }
}
