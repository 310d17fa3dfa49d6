package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Lane#submit(String, Duration, java.util.concurrent.Callable)}: a task still queued when
 * its deadline passes never starts; it ends {@link TaskOutcome#EXPIRED}, counted, its future
 * failed with a {@link LaneRejectedException} that names the lane, the wait and the deadline.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeadlineTest {

  @Test
  void aTaskStillQueuedAtItsDeadlineNeverStartsAndFreesItsPlace() {
    for (Lane lane : List.of(Lane.blocking("db", 1).queueCapacity(1).build(),
        Lane.virtual("db-v", 1).queueCapacity(1).build())) {
      CountDownLatch release = Work.occupy(lane);
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<String> f =
          lane.submit("lookup", Duration.ofMillis(50), () -> {
            ran.set(true);
            return "late";
          });
      // Failed by its timer while the worker is still busy: the caller hears at the deadline.
      Awaitility.await().until(f::isDone);
      assertThat(lane.queued()).as("its place in the queue came back").isZero();
      assertThat(lane.submit(() -> "fits")).as("so another task fits").isNotDone();
      release.countDown();
      assertThatThrownBy(f::join).isInstanceOf(CompletionException.class)
          .cause().isInstanceOfSatisfying(LaneRejectedException.class, e -> {
            assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED);
            assertThat(e.lane()).isEqualTo(lane.name());
            assertThat(e.getMessage()).contains("\"" + lane.name() + "\"",
                "deadline passed before it started", "had to start within 50.0 ms");
            assertThat(waitedMillis(e.getMessage())).isGreaterThanOrEqualTo(50.0);
          });
      lane.close();
      assertThat(ran).as("the expired task's code ran").isFalse();
      LaneStats s = lane.stats();
      assertThat(s.count(TaskOutcome.EXPIRED)).isEqualTo(1);
      assertThat(s.completed()).isEqualTo(2);
      Work.assertBooksBalance(s);
    }
  }

  @Test
  void aTaskThatStartsInTimeRunsAndLeavesNoTimerBehind() throws Exception {
    try (Lane lane = Lane.blocking("fast", 2).queueCapacity(64).build()) {
      int before = LaneStage.scheduledTimers();
      List<CompletableFuture<Integer>> fs = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        int n = i;
        fs.add(lane.submit("fast", Duration.ofHours(1), () -> n));
        if (fs.size() % 50 == 0) {
          CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        }
      }
      for (int i = 0; i < fs.size(); i++) {
        assertThat(fs.get(i).get()).isEqualTo(i);
      }
      assertThat(lane.stats().count(TaskOutcome.EXPIRED)).isZero();
      // Every timer of a task that started was cancelled and removed: none waits out its hour.
      assertThat(LaneStage.scheduledTimers() - before).isLessThanOrEqualTo(0);
    }
  }

  @Test
  void aDeadlineAlreadyPassedIsRefusedAndCounted() {
    try (Lane lane = Lane.blocking("past", 1).build()) {
      for (Duration d : List.of(Duration.ZERO, Duration.ofMillis(-5), Duration.ofDays(-365_000))) {
        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> lane.submit("x", d, () -> ran.set(true)))
            .isInstanceOfSatisfying(LaneRejectedException.class,
                e -> assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED));
        assertThat(ran).isFalse();
      }
      LaneStats s = lane.stats();
      assertThat(s.count(TaskOutcome.EXPIRED)).isEqualTo(3);
      assertThat(s.submitted()).isEqualTo(3);
      Work.assertBooksBalance(s);
    }
  }

  @Test
  void aThousandYearsIsAcceptedAndNullIsRefused() throws Exception {
    try (Lane lane = Lane.blocking("patient", 1).build()) {
      assertThat(lane.submit("x", Duration.ofDays(365_000), () -> 7).get()).isEqualTo(7);
      assertThat(lane.submit("x", Duration.ofSeconds(Long.MAX_VALUE), () -> 8).get()).isEqualTo(8);
      assertThatThrownBy(() -> lane.submit("x", (Duration) null, () -> 1))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("startWithin");
      assertThatThrownBy(() -> lane.submit(null, Duration.ofSeconds(1), () -> 1))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> lane.submit("x", Duration.ofSeconds(1), (Runnable) null))
          .isInstanceOf(NullPointerException.class);
      assertThat(lane.stats().submitted()).isEqualTo(2);
    }
  }

  /**
   * The worker checks the deadline itself before it starts a task: here the lane's clock passes
   * the deadline while the timer (real time, an hour) has not fired.
   */
  @Test
  void aWorkerThatReachesATaskPastItsDeadlineDoesNotStartIt() {
    AtomicLong clock = new AtomicLong();
    try (Lane lane = Lane.blocking("clocked", 1).ticker(clock::get).build()) {
      CountDownLatch release = Work.occupy(lane);
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<Void> f = lane.submit("x", Duration.ofHours(1), () -> ran.set(true));
      clock.addAndGet(TimeUnit.HOURS.toNanos(2));
      release.countDown();
      assertThatThrownBy(f::join).cause().isInstanceOfSatisfying(LaneRejectedException.class,
          e -> assertThat(e.getMessage()).contains("waited 7200000.0 ms",
              "had to start within 3600000.0 ms"));
      assertThat(ran).isFalse();
      assertThat(lane.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1);
    }
  }

  /**
   * On a gated lane a worker asks the gate before it takes a task: a task it then finds past its
   * deadline gives the pass back unused, so the gate's count of passes out returns to 0.
   */
  @Test
  void aGatedLaneGivesThePassOfAnExpiredTaskBack() {
    AtomicLong clock = new AtomicLong();
    AtomicInteger out = new AtomicInteger();
    List<TaskOutcome> exits = java.util.Collections.synchronizedList(new ArrayList<>());
    LaneGate gate = ready -> {
      out.incrementAndGet();
      return outcome -> {
        exits.add(outcome);
        out.decrementAndGet();
      };
    };
    try (Lane lane = Lane.blocking("gated", 1).ticker(clock::get).gate(gate).build()) {
      CountDownLatch release = Work.occupy(lane);
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<Void> f = lane.submit("x", Duration.ofHours(1), () -> ran.set(true));
      clock.addAndGet(TimeUnit.HOURS.toNanos(2));
      release.countDown();
      assertThatThrownBy(f::join).cause().isInstanceOf(LaneRejectedException.class);
      Awaitility.await().until(() -> out.get() == 0);
      assertThat(ran).isFalse();
      assertThat(exits).containsExactly(TaskOutcome.COMPLETED, null);
    }
  }

  /**
   * Four submitters give tasks with deadlines from 0 to 4 ms to a lane of two workers whose
   * concurrency moves while they flow, then the lane shuts down: every task ends exactly once, a
   * task ran if and only if its future completed normally, an expired one never ran, and the
   * books add up.
   */
  @Test
  void underContentionEveryTaskEitherRunsOrExpiresOnceAndTheBooksBalance() throws Exception {
    for (LaneBuilder b : List.of(Lane.blocking("busy", 2), Lane.virtual("busy-v", 2))) {
      Lane lane = b.queueCapacity(16).overflow(OverflowPolicy.blockCaller(Duration.ofMinutes(1)))
          .build();
      int perSubmitter = 2_000;
      AtomicInteger[] runs = new AtomicInteger[4 * perSubmitter];
      @SuppressWarnings("unchecked")
      CompletableFuture<Void>[] byTask = new CompletableFuture[runs.length];
      AtomicInteger refusedAtOnce = new AtomicInteger();
      AtomicInteger nextSubmitter = new AtomicInteger();
      List<Thread> submitters = Work.start(4, "submitter", () -> {
        int me = nextSubmitter.getAndIncrement();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < perSubmitter; i++) {
          int task = me * perSubmitter + i;
          runs[task] = new AtomicInteger();
          try {
            byTask[task] = lane.submit("t", Duration.ofNanos(r.nextLong(0, 4_000_000)), () -> {
              runs[task].incrementAndGet();
              Work.spinMillis(r.nextInt(2) == 0 ? 0 : 1);
            });
          } catch (LaneRejectedException e) {
            assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED);
            refusedAtOnce.incrementAndGet();
          }
        }
      });
      List<Thread> changer = Work.start(1, "changer", () -> {
        for (int i = 0; submitters.stream().anyMatch(Thread::isAlive) && i < 10_000; i++) {
          lane.setConcurrency(1 + (i % 3));
          Thread.onSpinWait();
        }
      });
      Work.join(submitters);
      Work.join(changer);
      lane.shutdown();
      assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
      int ran = 0;
      int expired = 0;
      for (int t = 0; t < runs.length; t++) {
        CompletableFuture<Void> f = byTask[t];
        assertThat(runs[t].get()).as("task %d ran more than once", t).isLessThanOrEqualTo(1);
        if (f == null) {
          assertThat(runs[t].get()).isZero();
          continue;
        }
        assertThat(f).isDone();
        if (f.isCompletedExceptionally()) {
          assertThat(runs[t].get()).as("task %d expired yet ran", t).isZero();
          Throwable why = f.handle((v, e) -> e).join();
          assertThat(why).isInstanceOfSatisfying(LaneRejectedException.class,
              e -> assertThat(e.reason()).isEqualTo(TaskOutcome.EXPIRED));
          expired++;
        } else {
          assertThat(runs[t].get()).as("task %d completed but never ran", t).isOne();
          ran++;
        }
      }
      assertThat(ran).as("tasks that ran").isPositive();
      assertThat(expired).as("tasks that expired while queued").isPositive();
      LaneStats s = lane.stats();
      assertThat(s.completed()).isEqualTo(ran);
      assertThat(s.count(TaskOutcome.EXPIRED)).isEqualTo(expired + refusedAtOnce.get());
      assertThat(s.submitted()).isEqualTo(runs.length);
      Work.assertBooksBalance(s);
    }
  }

  private static double waitedMillis(String message) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("waited ([0-9.]+) ms").matcher(message);
    assertThat(m.find()).as(message).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
