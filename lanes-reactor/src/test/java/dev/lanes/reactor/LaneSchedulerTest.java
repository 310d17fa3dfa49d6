package dev.lanes.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/** The real Reactor library on a lane: time operators, dispose, Scannable, stats, rejection. */
class LaneSchedulerTest {
  /** How long a test waits for what should happen promptly before it fails. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  /** A short delay for the time operators; the tests never assert on how long anything took. */
  private static final Duration TICK = Duration.ofMillis(5);

  private final List<Lane> lanes = new ArrayList<>();

  private Lane lane(Lane l) {
    lanes.add(l);
    return l;
  }

  @AfterEach
  void closeLanes() {
    lanes.forEach(Lane::close);
  }

  /** Holds the lane's only thread until the returned latch is counted down. */
  private static CountDownLatch occupy(Lane lane) throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    lane.execute(
        () -> {
          started.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return release;
  }

  private static String thread() {
    return Thread.currentThread().getName();
  }

  @Test
  void monoDelayRunsOnTheLane() {
    Lane lane = lane(Lane.blocking("rx-delay", 2).build());
    String ranOn = Mono.delay(TICK, LaneScheduler.of(lane)).map(x -> thread()).block(PATIENCE);
    assertThat(ranOn).startsWith("rx-delay-");
  }

  @Test
  void delayElementsRunsEveryElementOnTheLaneInOrder() {
    Lane lane = lane(Lane.blocking("rx-elements", 2).build());
    List<String> seen =
        Flux.range(1, 5)
            .delayElements(TICK, LaneScheduler.of(lane))
            .map(i -> i + "@" + thread())
            .collectList()
            .block(PATIENCE);
    assertThat(seen).hasSize(5);
    for (int i = 0; i < 5; i++) {
      assertThat(seen.get(i)).startsWith((i + 1) + "@rx-elements-");
    }
  }

  @Test
  void timeoutFiresOnTheLane() {
    Lane lane = lane(Lane.blocking("rx-timeout", 1).build());
    String outcome =
        Mono.never()
            .timeout(TICK, LaneScheduler.of(lane))
            .map(Object::toString)
            .onErrorResume(TimeoutException.class, e -> Mono.just("timeout@" + thread()))
            .block(PATIENCE);
    assertThat(outcome).startsWith("timeout@rx-timeout-");
  }

  @Test
  void intervalTicksOnTheLaneAndStopsWhenCancelled() {
    Lane lane = lane(Lane.blocking("rx-interval", 2).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    List<String> ticks =
        Flux.interval(TICK, scheduler).take(5).map(n -> n + "@" + thread()).collectList().block(PATIENCE);
    assertThat(ticks).hasSize(5);
    for (int i = 0; i < 5; i++) {
      assertThat(ticks.get(i)).startsWith(i + "@rx-interval-");
    }
    // take(5) cancelled the interval: its periodic timer is gone.
    await().atMost(PATIENCE).until(() -> scheduler.pendingTimers() == 0);
  }

  @Test
  void manyTimersShareOneTimerThread() {
    Lane lane = lane(Lane.virtual("rx-many", 50).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    Long count =
        Flux.range(0, 500)
            .flatMap(i -> Mono.delay(Duration.ofMillis(20), scheduler), 500)
            .count()
            .block(PATIENCE);
    assertThat(count).isEqualTo(500);
    long timerThreads =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("lanes-reactor-timer"))
            .count();
    assertThat(timerThreads).isEqualTo(1);
    // Counted started before their code ran; the last one's end is recorded after its emission
    // reached block(), so completed may trail by a task for a moment.
    assertThat(lane.stats().started()).isGreaterThanOrEqualTo(500);
    await().atMost(PATIENCE).until(() -> lane.stats().completed() >= 500);
  }

  @Test
  void disposeLeavesTheLaneRunningAndCancelsPendingTimers() throws Exception {
    Lane lane = lane(Lane.blocking("rx-dispose", 1).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    AtomicInteger ran = new AtomicInteger();
    Disposable later = scheduler.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
    Disposable periodic = scheduler.schedulePeriodically(ran::incrementAndGet, 1, 1, TimeUnit.HOURS);
    assertThat(scheduler.pendingTimers()).isEqualTo(2);

    scheduler.dispose();

    assertThat(scheduler.isDisposed()).isTrue();
    assertThat(later.isDisposed()).isTrue();
    assertThat(periodic.isDisposed()).isTrue();
    assertThat(scheduler.pendingTimers()).isZero();
    assertThat(lane.isShutdown()).isFalse();
    assertThat(lane.submit(() -> "still running").get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo("still running");
    assertThatThrownBy(() -> scheduler.schedule(ran::incrementAndGet))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("rx-dispose")
        .hasMessageContaining("disposed");
    assertThat(ran).hasValue(0);
  }

  @Test
  void disposingAWorkerCancelsItsTasksButNotTheLane() throws Exception {
    Lane lane = lane(Lane.blocking("rx-worker", 1).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    Scheduler.Worker worker = scheduler.createWorker();
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch release = occupy(lane);
    worker.schedule(ran::incrementAndGet); // queued behind the occupied thread
    worker.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
    assertThat(scheduler.pendingTimers()).isEqualTo(1);

    worker.dispose();
    release.countDown();

    assertThat(scheduler.pendingTimers()).isZero();
    assertThat(lane.submit(() -> "ok").get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(ran).hasValue(0);
    assertThat(scheduler.isDisposed()).isFalse();
    assertThatThrownBy(() -> worker.schedule(ran::incrementAndGet))
        .isInstanceOf(RejectedExecutionException.class);
  }

  @Test
  void scanReportsTheLanesCapacityAndWhatIsBuffered() throws Exception {
    Lane lane = lane(Lane.blocking("rx-scan", 1).queueCapacity(7).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    CountDownLatch release = occupy(lane);
    for (int i = 0; i < 3; i++) {
      scheduler.schedule(() -> {});
    }
    Scannable scan = Scannable.from(scheduler);
    assertThat(scan.isScanAvailable()).isTrue();
    assertThat(scan.scan(Scannable.Attr.CAPACITY)).isEqualTo(7);
    assertThat(scan.scan(Scannable.Attr.BUFFERED)).isEqualTo(3);
    assertThat(scan.scan(Scannable.Attr.TERMINATED)).isFalse();
    assertThat(scan.name()).isEqualTo("lane(\"rx-scan\")");
    release.countDown();
    await().atMost(PATIENCE).until(() -> scan.scan(Scannable.Attr.BUFFERED) == 0);
    scheduler.dispose();
    assertThat(scan.scan(Scannable.Attr.TERMINATED)).isTrue();
  }

  @Test
  void reactorWorkShowsItsQueueWaitAndRunTimeInTheLanesStats() throws Exception {
    AtomicLong clock = new AtomicLong();
    Lane lane = lane(Lane.blocking("rx-stats", 1).ticker(clock::get).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    CountDownLatch release = occupy(lane);
    Mono<String> work =
        Mono.fromCallable(
                () -> {
                  clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(3)); // it "runs" 3 ms
                  return "done";
                })
            .subscribeOn(scheduler);
    var result = work.toFuture();
    await().atMost(PATIENCE).until(() -> lane.stats().queued() == 1);
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(7)); // it waits 7 ms behind the occupied thread
    release.countDown();
    assertThat(result.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("done");

    await().atMost(PATIENCE).until(() -> lane.stats().completed() == 2);
    LaneStats stats = lane.stats();
    // Two tasks: the occupying one (waited 0) and Reactor's (waited 7 ms, ran 3 ms).
    assertThat(stats.sinceStart().queueWait().count()).isEqualTo(2);
    assertThat(stats.sinceStart().queueWait().max())
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(7));
    assertThat(stats.sinceStart().runTime().count()).isEqualTo(2);
    assertThat(stats.sinceStart().runTime().p50()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(3));
  }

  @Test
  void aFullLaneFailsTheSubscriberWithTheLanesRejection() throws Exception {
    Lane lane = lane(Lane.blocking("rx-full", 1).queueCapacity(1).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    CountDownLatch release = occupy(lane);
    lane.execute(() -> {}); // fills the queue
    try {
      assertThatThrownBy(() -> Mono.fromCallable(() -> "never").subscribeOn(scheduler).block(PATIENCE))
          .satisfies(
              e -> {
                Throwable t = e;
                while (t != null && !(t instanceof LaneRejectedException)) {
                  t = t.getCause();
                }
                assertThat(t).as("cause chain of %s", e).isInstanceOf(LaneRejectedException.class);
                assertThat(t).hasMessageContaining("rx-full").hasMessageContaining("queue full");
              });
      assertThat(lane.stats().rejected()).isEqualTo(1);
    } finally {
      release.countDown();
    }
  }

  @Test
  void pendingTimersAreBoundedByTheLanesQueueCapacity() {
    Lane lane = lane(Lane.blocking("rx-bound", 1).queueCapacity(2).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    scheduler.schedule(() -> {}, 1, TimeUnit.HOURS);
    scheduler.createWorker().schedule(() -> {}, 1, TimeUnit.HOURS);
    assertThatThrownBy(() -> scheduler.schedule(() -> {}, 1, TimeUnit.HOURS))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("rx-bound")
        .hasMessageContaining("2 timed tasks already pending");
    scheduler.dispose();
    assertThat(scheduler.pendingTimers()).isZero();
  }

  @Test
  void periodicRunsNeverOverlapEvenOnAManyThreadLane() {
    Lane lane = lane(Lane.blocking("rx-periodic", 4).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    Disposable periodic =
        scheduler.schedulePeriodically(
            () -> {
              maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              try {
                Thread.sleep(3); // longer than the period: ticks arrive while it runs
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                running.decrementAndGet();
                runs.incrementAndGet();
              }
            },
            0,
            1,
            TimeUnit.MILLISECONDS);
    await().atMost(PATIENCE).until(() -> runs.get() >= 20);
    periodic.dispose();
    assertThat(maxRunning).hasValue(1);
    await().atMost(PATIENCE).until(() -> scheduler.pendingTimers() == 0);
  }

  @Test
  void aDueTaskForAFullCallerRunsLaneRunsOnAHandOffThreadNeverOnTheSharedTimer() throws Exception {
    Lane lane =
        lane(Lane.blocking("rx-caller", 1).queueCapacity(1).overflow(dev.lanes.OverflowPolicy.callerRuns()).build());
    CountDownLatch release = occupy(lane);
    lane.execute(() -> {}); // fills the queue
    try {
      String ranOn = Mono.delay(TICK, LaneScheduler.of(lane)).map(x -> thread()).block(PATIENCE);
      assertThat(ranOn).startsWith("lanes-reactor-handoff-rx-caller");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aDueTaskIsHandedToALaneThatNeverHoldsItsSubmitterOnTheTimerThreadItself() throws Exception {
    java.util.List<String> submitters = new java.util.concurrent.CopyOnWriteArrayList<>();
    dev.lanes.TaskDecorator recordSubmitter = task -> {
      submitters.add(Thread.currentThread().getName()); // decorate runs on the submitting thread
      return task;
    };
    for (dev.lanes.OverflowPolicy policy :
        java.util.List.of(dev.lanes.OverflowPolicy.reject(), dev.lanes.OverflowPolicy.blockCaller(PATIENCE),
            dev.lanes.OverflowPolicy.discardOldest())) {
      submitters.clear();
      Lane lane = lane(Lane.blocking("rx-" + policy.toString().replaceAll("\\W", ""), 1)
          .overflow(policy).taskDecorator(recordSubmitter).build());
      Mono.delay(TICK, LaneScheduler.of(lane)).block(PATIENCE);
      assertThat(submitters).as("who handed the due task to a %s lane", policy).isNotEmpty();
      if (policy.equals(dev.lanes.OverflowPolicy.reject())) {
        assertThat(submitters).allMatch(n -> n.startsWith("lanes-reactor-timer"));
      } else {
        assertThat(submitters).allMatch(n -> n.startsWith("lanes-reactor-handoff-"));
      }
    }
  }

  @Test
  void concurrentScheduleAndDisposeRunEachSurvivingTaskOnceAndLeaveNoTimer() throws Exception {
    Lane lane = lane(Lane.blocking("rx-stress", 2).queueCapacity(50_000).build());
    LaneScheduler scheduler = LaneScheduler.of(lane);
    int threads = 4;
    int perThread = 500;
    AtomicInteger[] runs = new AtomicInteger[threads * perThread];
    boolean[] disposed = new boolean[runs.length];
    Disposable[] handles = new Disposable[runs.length];
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int base = t * perThread;
      Thread th =
          new Thread(
              () -> {
                for (int i = base; i < base + perThread; i++) {
                  AtomicInteger n = runs[i] = new AtomicInteger();
                  handles[i] = scheduler.schedule(n::incrementAndGet, i % 3, TimeUnit.MILLISECONDS);
                  if (i % 4 == 0) {
                    handles[i].dispose();
                    disposed[i] = true;
                  }
                }
              },
              "rx-stress-submitter-" + t);
      th.start();
      started.add(th);
    }
    for (Thread th : started) {
      th.join(PATIENCE.toMillis());
      assertThat(th.isAlive()).isFalse();
    }
    await().atMost(PATIENCE).until(() -> scheduler.pendingTimers() == 0);
    await().atMost(PATIENCE).until(() -> lane.stats().queued() == 0 && lane.stats().running() == 0);
    for (int i = 0; i < runs.length; i++) {
      if (disposed[i]) {
        // Disposed before or after its due time: at most once, never twice.
        assertThat(runs[i].get()).as("task %d", i).isBetween(0, 1);
      } else {
        assertThat(runs[i].get()).as("task %d", i).isEqualTo(1);
      }
    }
  }
}
