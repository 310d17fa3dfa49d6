package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The nested-submission starvation deadlock in its two classic shapes (a 1-thread lane whose task
 * joins its child; a 9-thread lane whose 9 tasks each join a child), through both APIs, under each
 * policy; and no false alarm for workers that wait on another lane, sleep, or block in IO.
 */
class DeadlockTest {
  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();

  private static final Duration DETECTION = HealthSettings.DEFAULT_DEADLOCK_DETECTION;

  @ParameterizedTest(name = "{0} threads, {1}, {2}")
  @CsvSource({
    "1, submit-get, REPORT", "1, submit-get, FAIL", "1, submit-get, COMPENSATE",
    "1, runAsync-join, REPORT", "1, runAsync-join, FAIL", "1, runAsync-join, COMPENSATE",
    "9, submit-get, REPORT", "9, submit-get, FAIL", "9, submit-get, COMPENSATE",
    "9, runAsync-join, REPORT", "9, runAsync-join, FAIL", "9, runAsync-join, COMPENSATE"
  })
  void detectsTheDeadlockAndAppliesThePolicy(int threads, String api, Work.OnDeadlock policy)
      throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    List<CompletableFuture<?>> children = new CopyOnWriteArrayList<>();
    Lane lane = books.track(policy.apply(Lane.blocking("nested", threads)).build());
    lane.onHealth(events::add);
    CountDownLatch allParentsRunning = new CountDownLatch(threads);
    List<CompletableFuture<String>> parents = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      parents.add(lane.submit(() -> {
        allParentsRunning.countDown();
        Work.block(allParentsRunning); // every worker holds a parent before any child exists
        if (api.equals("submit-get")) {
          CompletableFuture<String> child = lane.submit(() -> "child");
          children.add(child);
          return child.get();
        }
        CompletableFuture<String> child = CompletableFuture.supplyAsync(() -> "child", lane);
        children.add(child);
        return child.join();
      }));
    }
    Awaitility.await().atMost(Duration.ofSeconds(30))
        .until(() -> events.stream().anyMatch(e -> e.to() == LaneHealth.DEADLOCKED));
    long detectMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    HealthEvent deadlock = events.stream().filter(e -> e.to() == LaneHealth.DEADLOCKED).findFirst().orElseThrow();
    assertThat(deadlock.lane()).isEqualTo("nested");
    assertThat(deadlock.figures().get("workers")).isEqualTo((double) threads);
    assertThat(deadlock.figures().get("queued")).isEqualTo((double) threads);
    assertThat(deadlock.diagnostic()).contains("starvation deadlock", "nested-");
    assertThat(deadlock.diagnostic()).containsAnyOf("CompletableFuture.get", "CompletableFuture.join",
        "CompletableFuture.waitingGet", "LaneFuture");
    System.out.printf("deadlock %d threads via %s (%s) detected after %d ms%n", threads, api, policy, detectMs);

    switch (policy) {
      case REPORT -> {
        assertThat(parents).noneMatch(CompletableFuture::isDone); // still hung: report only
        // The test breaks the cycle itself; a parent then fails or, if a freed worker ran its
        // child first, succeeds: either way every parent ends.
        children.forEach(c -> c.cancel(false));
        CompletableFuture.allOf(parents.toArray(new CompletableFuture[0]))
            .handle((v, e) -> null).get();
      }
      case FAIL -> {
        for (CompletableFuture<String> p : parents) {
          assertThatThrownBy(p::get).isInstanceOf(ExecutionException.class)
              .hasRootCauseInstanceOf(LaneRejectedException.class)
              .rootCause().hasMessageContaining(
                  "lane \"nested\" failed a queued task to break a starvation deadlock");
        }
      }
      case COMPENSATE -> {
        for (CompletableFuture<String> p : parents) {
          assertThat(p.get()).isEqualTo("child");
        }
      }
    }
    lane.close();
    Work.assertBooksBalance(lane.stats());
  }

  @ParameterizedTest(name = "virtual lane, cap {0}, {1}")
  @CsvSource({"1, submit-get", "1, runAsync-join", "9, submit-get", "9, runAsync-join"})
  void aCappedVirtualLaneIsCaughtToo(int cap, String api) throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    Lane lane = books.track(Lane.virtual("vnested", cap)
        .failOnDeadlock().build());
    lane.onHealth(events::add);
    CountDownLatch allParentsRunning = new CountDownLatch(cap);
    List<CompletableFuture<String>> parents = new ArrayList<>();
    for (int i = 0; i < cap; i++) {
      parents.add(lane.submit(() -> {
        allParentsRunning.countDown();
        Work.block(allParentsRunning);
        return api.equals("submit-get")
            ? lane.submit(() -> "child").get()
            : CompletableFuture.supplyAsync(() -> "child", lane).join();
      }));
    }
    for (CompletableFuture<String> p : parents) {
      assertThatThrownBy(p::get).hasRootCauseInstanceOf(LaneRejectedException.class);
    }
    // Events are delivered after the cure, so the parents may fail first.
    Awaitility.await().until(() -> events.stream().anyMatch(e -> e.to() == LaneHealth.DEADLOCKED));
    lane.close();
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void noAlarmWhenWorkersWaitOnAnotherLane() throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    try (Lane front = books.track(Lane.blocking("front", 2).build()); Lane back = books.track(Lane.blocking("back", 1).build())) {
      front.onHealth(events::add);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        fs.add(front.submit(() -> back.submit(() -> sleep(Duration.ofMillis(300))).get()));
      }
      CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get();
    }
    assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
  }

  @Test
  void noAlarmWhenWorkersSleepWhileTheQueueWaits() throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    try (Lane lane = books.track(Lane.blocking("sleepy", 2).build())) {
      lane.onHealth(events::add);
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        fs.add(lane.submit(() -> sleep(DETECTION.multipliedBy(3).dividedBy(2))));
      }
      CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get();
    }
    assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
  }

  @Test
  void noAlarmWhenWorkersBlockInIo() throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    PipedOutputStream out = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(out);
    try (Lane lane = books.track(Lane.blocking("io", 1).build())) {
      lane.onHealth(events::add);
      CompletableFuture<Integer> reader = lane.submit(() -> in.read());
      CompletableFuture<?> queued = lane.submit(() -> {});
      Thread writer = new Thread(() -> {
        sleep(DETECTION.multipliedBy(3).dividedBy(2)); // the slow peer
        try {
          out.write(7);
          out.flush();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      writer.start();
      assertThat(reader.get()).isEqualTo(7);
      queued.get();
      writer.join();
    }
    assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
  }

  private static Void sleep(Duration d) {
    try {
      TimeUnit.NANOSECONDS.sleep(d.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }
}
