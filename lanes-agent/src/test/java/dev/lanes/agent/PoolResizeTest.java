package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.agent.apps.ResizableQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code --set}: what changes, in which order, and each refusal with its reason (in this JVM). */
class PoolResizeTest {
  private final Pools pools = new Pools(100);
  private final PoolResize resize = new PoolResize(pools);
  private final List<ExecutorService> made = new ArrayList<>();

  @AfterEach
  void end() throws InterruptedException {
    for (ExecutorService e : made) {
      e.shutdownNow();
      assertThat(e.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** A pool known to {@link #pools} as {@code name}. */
  private <T extends ExecutorService> T known(String name, T pool) {
    made.add(pool);
    pools.nameAfterThread(pools.recordFor(pool, false), name + "-1");
    return pool;
  }

  private ThreadPoolExecutor threadPool(String name, int core, int max, BlockingQueue<Runnable> queue) {
    return known(name, new ThreadPoolExecutor(core, max, 60, TimeUnit.SECONDS, queue));
  }

  private String set(String name, String... settings) throws PoolResize.Refused {
    return resize.apply(name, PoolResize.settings(List.of(settings)), "test");
  }

  @Test
  void raisingCoreAndMaxStartsThreadsForTheQueuedTasksAndIsLoggedOnce() throws Exception {
    ThreadPoolExecutor pool = threadPool("work", 1, 1, new LinkedBlockingQueue<>());
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < 4; i++) {
      pool.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> pool.getActiveCount() == 1);
    assertThat(pool.getQueue()).hasSize(3);

    assertThat(set("work", "core=4", "max=4"))
        .isEqualTo("lanes-agent: pool \"work\" core 1 → 4 max 1 → 4 (by test)");
    assertThat(pool.getMaximumPoolSize()).isEqualTo(4);
    assertThat(pool.getCorePoolSize()).isEqualTo(4);
    await().atMost(Duration.ofSeconds(30)).until(() -> pool.getActiveCount() == 4);
    assertThat(pool.getQueue()).isEmpty();
    assertThat(resize.changes()).containsExactly(
        "lanes-agent: pool \"work\" core 1 → 4 max 1 → 4 (by test)");
    release.countDown();
  }

  @Test
  void coreAndMaxAreSetInTheOrderThatNeverThrows() throws Exception {
    ThreadPoolExecutor pool = threadPool("grow", 1, 2, new SynchronousQueue<>());
    set("grow", "core=5", "max=6"); // core above the old max: max first
    assertThat(pool.getCorePoolSize()).isEqualTo(5);
    assertThat(pool.getMaximumPoolSize()).isEqualTo(6);
    set("grow", "core=1", "max=2"); // max below the old core: core first
    assertThat(pool.getCorePoolSize()).isEqualTo(1);
    assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
    set("grow", "max=3");
    assertThat(pool.getMaximumPoolSize()).isEqualTo(3);
  }

  @Test
  void aQueueWithASetterTakesANewCapacity() throws Exception {
    ResizableQueue queue = new ResizableQueue(2);
    threadPool("elastic", 1, 1, queue);
    assertThat(set("elastic", "queue-capacity=10"))
        .isEqualTo("lanes-agent: pool \"elastic\" queue-capacity 2 → 10 (by test)");
    assertThat(queue.remainingCapacity()).isEqualTo(10);
  }

  @Test
  void eachRefusalSaysWhy() {
    threadPool("fixed", 2, 4, new LinkedBlockingQueue<>(10));
    threadPool("array", 2, 4, new ArrayBlockingQueue<>(10));
    known("timer", new ScheduledThreadPoolExecutor(1));
    known("forks", new ForkJoinPool(2));

    assertThatThrownBy(() -> set("fixed", "queue-capacity=20")).hasMessage("pool \"fixed\": its"
        + " queue, a java.util.concurrent.LinkedBlockingQueue, fixes its capacity when it is made;"
        + " core and max can change");
    assertThatThrownBy(() -> set("array", "queue-capacity=20")).hasMessageContaining(
        "java.util.concurrent.ArrayBlockingQueue, fixes its capacity when it is made");
    assertThatThrownBy(() -> set("fixed", "core=5")).hasMessage(
        "pool \"fixed\": core (5) may not exceed max (4); raise max too");
    assertThatThrownBy(() -> set("fixed", "max=1")).hasMessage(
        "pool \"fixed\": core (2) may not exceed max (1); lower core too");
    assertThatThrownBy(() -> set("fixed", "core=3", "max=2")).hasMessage(
        "pool \"fixed\": core (3) may not exceed max (2)");
    assertThatThrownBy(() -> set("timer", "max=4")).hasMessage("pool \"timer\" is a"
        + " ScheduledThreadPoolExecutor: it never uses its max (it runs at most core threads on an"
        + " unbounded queue); set core instead");
    assertThatThrownBy(() -> set("forks", "core=4")).hasMessage("pool \"forks\" is a ForkJoinPool,"
        + " not a ThreadPoolExecutor: --set changes the JDK's and Tomcat's ThreadPoolExecutors only");
    assertThatThrownBy(() -> set("nope", "core=4")).hasMessage("no live pool named \"nope\"; the"
        + " pools: \"array\", \"fixed\", \"forks\", \"timer\"");
    assertThatThrownBy(() -> PoolResize.settings(List.of("core=-1"))).hasMessage(
        "core must be a whole number between 0 and 100000, was \"-1\"");
    assertThatThrownBy(() -> PoolResize.settings(List.of("max=lots"))).hasMessage(
        "max must be a whole number between 1 and 100000, was \"lots\"");
    assertThatThrownBy(() -> PoolResize.settings(List.of("threads=4"))).hasMessage(
        "unknown setting \"threads=4\"; --set takes core=N, max=N, queue-capacity=N");
    assertThat(resize.changes()).isEmpty();
  }

  @Test
  void aScheduledPoolsCoreChanges() throws Exception {
    ScheduledThreadPoolExecutor timer = known("ticks", new ScheduledThreadPoolExecutor(1));
    set("ticks", "core=3");
    assertThat(timer.getCorePoolSize()).isEqualTo(3);
    assertThat(PoolResize.settings(List.of("core=3", "max=4"))).isEqualTo(Map.of("core", 3, "max", 4));
  }
}
