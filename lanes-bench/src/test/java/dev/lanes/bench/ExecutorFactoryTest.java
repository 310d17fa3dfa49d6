package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Every executor the benchmarks use can be built and runs tasks, so a broken peer setup fails the
 * build rather than the benchmark run. No timing is measured or asserted here.
 */
class ExecutorFactoryTest {

  static java.util.List<String> names() {
    return ExecutorFactory.names();
  }

  @ParameterizedTest
  @MethodSource("names")
  void everyExecutorRunsABatch(String name) throws InterruptedException {
    for (int cap : new int[] {2, 64}) {
      try (BenchExecutor e = ExecutorFactory.create(name, cap)) {
        assertThat(e.name()).isEqualTo(name);
        Batch.run(e, 1_000);
        Batch.handoff(e);
        Batch.runWork(e, 10, 10);
      }
    }
  }

  /** A batch far larger than the queue: bounded executors must block the producer, not reject. */
  @ParameterizedTest
  @MethodSource("names")
  void aBatchLargerThanTheQueueBlocksInsteadOfFailing(String name) throws InterruptedException {
    try (BenchExecutor e = ExecutorFactory.create(name, 2, 8)) {
      Batch.run(e, 5_000);
    }
  }

  @ParameterizedTest
  @MethodSource("names")
  void severalProducersShareABatch(String name) throws InterruptedException {
    ExecutorService helpers = Executors.newFixedThreadPool(3);
    try (BenchExecutor e = ExecutorFactory.create(name, 2, 64)) {
      Batch.runFromProducers(e, 3_001, 4, helpers);
    } finally {
      helpers.shutdown();
      assertThat(helpers.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
    }
  }

  @Test
  void everyTaskRunsExactlyOnce() throws InterruptedException {
    int tasks = 500;
    for (String name : ExecutorFactory.names()) {
      AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
      CountDownLatch done = new CountDownLatch(tasks);
      try (BenchExecutor e = ExecutorFactory.create(name, 2, 16)) {
        for (int i = 0; i < tasks; i++) {
          int id = i;
          e.execute(
              () -> {
                runs.incrementAndGet(id);
                done.countDown();
              });
        }
        // Spring's close() does not wait for threads that have not started yet: wait here.
        assertThat(done.await(1, TimeUnit.MINUTES)).as(name).isTrue();
      }
      for (int i = 0; i < tasks; i++) {
        assertThat(runs.get(i)).as(name + " task " + i).isEqualTo(1);
      }
    }
  }

  @Test
  void theIssueNamesAreTheParameterValues() {
    assertThat(ExecutorFactory.ALL)
        .containsExactly(
            "tpe-lbq", "tpe-abq", "lanes", "lanes-cpu-every-task", "micrometer", "dropwizard",
            "r4j-threadpool", "lanes-virtual", "vthreads", "r4j-semaphore-vthreads",
            "spring-vthreads-limit");
  }

  @Test
  void unknownNamesAndBadSettingsAreRefusedInOneLine() {
    assertThatThrownBy(() -> ExecutorFactory.create("tpe", 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown executor \"tpe\"; known: tpe-lbq, ");
    assertThatThrownBy(() -> ExecutorFactory.create("lanes", 0))
        .hasMessage("cap must be ≥ 1, was 0");
    assertThatThrownBy(() -> ExecutorFactory.create("lanes", 2, 0))
        .hasMessage("queueCapacity must be ≥ 1, was 0");
  }
}
