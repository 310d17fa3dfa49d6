package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A task's wait and run are its own: what a worker does between two tasks (the previous future's
 * dependent stages, task listeners, a decorator's restore) is no task's run or CPU time, and a
 * task queued meanwhile shows it as wait. Each test would fail on the old behaviour, where the
 * next task's start reused the previous task's end (the gap counted as the next task's run).
 *
 * <p>The bounds are generous on purpose (half the injected delay), so a loaded machine does not
 * fail them while the old behaviour always did (it added the whole delay).
 */
class TimingTruthTest {
  private static final long STAGE_MILLIS = 100;

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private static TaskRecord recordOf(List<TaskRecord> records, long id) {
    return records.stream().filter(r -> r.taskId() == id).findFirst().orElseThrow();
  }

  @Test
  void aTaskRunTimeExcludesThePreviousTasksDependentStage() throws Exception {
    try (Lane lane = Lane.blocking("stages", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      CompletableFuture<String> first = lane.submit(() -> "first");
      // completing `first` runs this stage synchronously on the worker, before the next task
      CompletableFuture<Void> stage = first.thenAccept(v -> Work.spinMillis(STAGE_MILLIS));
      CompletableFuture<String> constant = lane.submit(() -> "constant");
      release.countDown();
      assertThat(constant.get()).isEqualTo("constant");
      stage.get();
      lane.close();
      LaneStats s = lane.stats();
      // the longest run is the occupying task's; the constant task ran for next to nothing
      assertThat(s.completed()).isEqualTo(3);
      assertThat(s.sinceStart().runTime().p50()).as("median run (ns)")
          .isLessThan(TimeUnit.MILLISECONDS.toNanos(STAGE_MILLIS / 2));
      assertThat(ms(s.betweenTasksNanos())).as("between-task time (ms)")
          .isGreaterThanOrEqualTo(STAGE_MILLIS - 1);
    }
  }

  @Test
  void theStageTimeIsTheNextTasksWaitNotItsRun() throws Exception {
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("stages2", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      lane.onTask(records::add);
      CompletableFuture<String> first = lane.submit(() -> "first");
      first.thenAccept(v -> Work.spinMillis(STAGE_MILLIS));
      lane.submit(() -> "constant");
      release.countDown();
      lane.close();
    }
    TaskRecord constant = records.stream().max(Comparator.comparingLong(TaskRecord::taskId)).orElseThrow();
    System.out.printf("constant task after a %d ms stage: run %.3f ms, wait %.3f ms%n", STAGE_MILLIS,
        constant.runNanos() / 1e6, constant.queueWaitNanos() / 1e6);
    assertThat(ms(constant.runNanos())).isLessThan(STAGE_MILLIS / 2);
    assertThat(ms(constant.queueWaitNanos())).isGreaterThanOrEqualTo(STAGE_MILLIS - 1);
  }

  @Test
  void aSlowListenerAddsNothingToAnyTasksRunTime() throws Exception {
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    int tasks = 10;
    long listenerMillis = 20;
    try (Lane lane = Lane.blocking("listened", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      lane.onTask(r -> {
        records.add(r);
        Work.spinMillis(listenerMillis);
      });
      for (int i = 0; i < tasks; i++) {
        lane.execute(() -> {});
      }
      release.countDown();
      lane.close();
      assertThat(lane.stats().betweenTasksNanos())
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(listenerMillis * tasks));
    }
    List<Long> runs = records.stream().map(TaskRecord::runNanos).sorted().toList();
    assertThat(runs).hasSize(tasks + 1);
    assertThat(ms(runs.get(tasks / 2))).as("median run of an empty task (ms)")
        .isLessThan(listenerMillis / 2);
  }

  @Test
  void aSlowListenerAddsNoCpuTimeToEmptyTasks() throws Exception {
    long listenerCpuMillis = 20;
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("cpu-listened", 1).cpuTimeEveryTask().build()) {
      CountDownLatch release = Work.occupy(lane);
      lane.onTask(r -> {
        records.add(r);
        Work.spinCpuMillis(listenerCpuMillis);
      });
      for (int i = 0; i < 5; i++) {
        lane.execute(() -> {});
      }
      release.countDown();
      lane.close();
    }
    List<Long> cpu = records.stream().map(TaskRecord::cpuNanos).sorted().toList();
    assertThat(cpu).allMatch(c -> c >= 0);
    assertThat(ms(cpu.get(cpu.size() / 2))).as("median CPU of an empty task (ms)")
        .isLessThan(listenerCpuMillis / 2);
  }

  @Test
  void aDecoratorsSetUpAndRestoreAreNoTasksRunTime() throws Exception {
    long restoreMillis = 60;
    TaskDecorator slowRestore = task -> () -> {
      Work.spinMillis(restoreMillis); // e.g. a slow MDC or trace-context set-up
      try {
        task.run();
      } finally {
        Work.spinMillis(restoreMillis); // and its restore
      }
    };
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("decorated", 1).taskDecorator(slowRestore).build()) {
      lane.onTask(records::add);
      lane.submit(() -> "x").get();
      lane.submit(() -> "y").get();
      lane.close();
    }
    assertThat(records).hasSize(2);
    for (TaskRecord r : records) {
      assertThat(ms(r.runNanos())).isLessThan(restoreMillis / 2);
    }
  }

  @Test
  void tasksTakenBackToBackWithNothingInBetweenStillChainTheirStamps() throws Exception {
    // No dependent stage, no listener: the cheap path (reuse the previous end) stays, and the
    // lane reports no between-task time at all.
    try (Lane lane = Lane.blocking("plain", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      for (int i = 0; i < 100; i++) {
        lane.execute(() -> {});
      }
      release.countDown();
      lane.close();
      assertThat(lane.stats().completed()).isEqualTo(101);
      assertThat(lane.stats().betweenTasksNanos()).isZero();
    }
  }

  @Test
  void aForeignFuturesStageCountsInItsOwnTaskNotTheNext() throws Exception {
    // CompletableFuture.supplyAsync(.., lane) completes inside the JDK's task: documented.
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("foreign", 1).build()) {
      CountDownLatch release = Work.occupy(lane);
      lane.onTask(records::add);
      CompletableFuture.supplyAsync(() -> "first", lane).thenAccept(v -> Work.spinMillis(STAGE_MILLIS));
      CompletableFuture<String> next = CompletableFuture.supplyAsync(() -> "next", lane);
      release.countDown();
      next.get();
      Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS)).until(() -> records.size() == 3);
      lane.close();
    }
    TaskRecord last = records.stream().max(Comparator.comparingLong(TaskRecord::taskId)).orElseThrow();
    TaskRecord withStage = recordOf(records, last.taskId() - 1);
    assertThat(ms(withStage.runNanos())).isGreaterThanOrEqualTo(STAGE_MILLIS - 1);
    assertThat(ms(last.runNanos())).isLessThan(STAGE_MILLIS / 2);
  }
}
