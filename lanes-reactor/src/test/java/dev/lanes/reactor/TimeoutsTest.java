package dev.lanes.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Timeouts and the other time operators on lane work, as the README states them: what {@code
 * Schedulers.fromExecutorService(lane)} does wrong, and what a timeout does to a running lane task.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimeoutsTest {
  /** How long a test waits for what should happen promptly before it fails. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  /** A timeout far longer than any test: if it fires during one, it fired early. */
  private static final Duration AN_HOUR = Duration.ofHours(1);
  /** A short timeout for the cases where it should fire. */
  private static final Duration TICK = Duration.ofMillis(5);

  private Lane lane;

  @AfterEach
  void closeLane() {
    if (lane != null) {
      lane.close();
    }
    Hooks.resetOnErrorDropped();
  }

  @Test
  void fromExecutorServiceFiresAnHourLongTimeoutAtOnceAsAFalseTimeoutException() {
    lane = Lane.blocking("rx-plain", 2).build();
    Scheduler plain = Schedulers.fromExecutorService(lane);
    // block gives up after PATIENCE, far less than the hour: a TimeoutException here fired early.
    assertThatThrownBy(() -> Mono.never().timeout(AN_HOUR, plain).block(PATIENCE))
        .hasCauseInstanceOf(TimeoutException.class)
        .hasMessageContaining("within 3600000ms");
  }

  @Test
  void fromExecutorServiceRefusesTheOtherTimeOperatorsAndItsDisposeShutsTheLaneDown() {
    lane = Lane.blocking("rx-plain-ops", 2).build();
    Scheduler plain = Schedulers.fromExecutorService(lane);
    assertThatThrownBy(() -> Mono.delay(TICK, plain).block(PATIENCE))
        .isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> Flux.range(1, 3).delayElements(TICK, plain).blockLast(PATIENCE))
        .isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> Flux.interval(TICK, plain).take(3).blockLast(PATIENCE))
        .isInstanceOf(RejectedExecutionException.class);
    plain.dispose();
    assertThat(lane.isShutdown()).isTrue();
  }

  @Test
  void laneSchedulerWaitsOutTheTimeoutLetsTheValueThroughAndKeepsTheLaneRunning() {
    lane = Lane.blocking("rx-lane", 2).build();
    Scheduler scheduler = LaneScheduler.of(lane);
    String value = Mono.fromCallable(() -> "value").subscribeOn(scheduler)
        .delayElement(TICK, scheduler)
        .timeout(AN_HOUR, scheduler)
        .block(PATIENCE);
    assertThat(value).isEqualTo("value");
    assertThatThrownBy(() -> Mono.never().timeout(TICK, scheduler).block(PATIENCE))
        .hasCauseInstanceOf(TimeoutException.class);
    scheduler.dispose();
    assertThat(lane.isShutdown()).isFalse();
  }

  @Test
  void aTimeoutOnARunningTaskInterruptsItsLaneThreadCountsItCancelledAndReactorDropsTheInterrupt() throws Exception {
    lane = Lane.blocking("rx-running", 2).build();
    List<Throwable> dropped = new CopyOnWriteArrayList<>();
    Hooks.onErrorDropped(dropped::add);
    CompletableFuture<Void> started = new CompletableFuture<>();
    AtomicReference<String> interruptedOn = new AtomicReference<>();
    Mono<String> call = Mono.fromCallable(() -> {
      started.complete(null);
      try {
        Thread.sleep(PATIENCE.toMillis());
      } catch (InterruptedException e) {
        interruptedOn.set(Thread.currentThread().getName());
        throw e;
      }
      return "answer";
    });

    // The timeout fires TICK after the task started (on Reactor's parallel scheduler), so it ends a running task.
    Mono<Long> tickAfterTheStart = Mono.fromFuture(started).then(Mono.delay(TICK));
    assertThatThrownBy(() -> call.subscribeOn(LaneScheduler.of(lane)).timeout(tickAfterTheStart).block(PATIENCE))
        .hasCauseInstanceOf(TimeoutException.class);

    await().atMost(PATIENCE).until(() -> lane.stats().cancelled() == 1 && !dropped.isEmpty());
    assertThat(interruptedOn.get()).startsWith("rx-running-");
    assertThat(lane.stats().completed()).isZero();
    assertThat(lane.stats().failed()).isZero();
    assertThat(dropped).singleElement().isInstanceOf(InterruptedException.class);
  }

  @Test
  void aTimeoutTimedOnTheSameFullLaneWaitsBehindTheWorkItTimes() throws Exception {
    lane = Lane.blocking("rx-same", 1).build();
    Scheduler scheduler = LaneScheduler.of(lane);
    CompletableFuture<Void> started = new CompletableFuture<>();
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> result = Mono.fromCallable(() -> {
          started.complete(null);
          release.await();
          return "answer";
        })
        .subscribeOn(scheduler)
        // Timed on the same lane, and due TICK after the task started.
        .timeout(Mono.fromFuture(started).then(Mono.delay(TICK, scheduler)))
        .toFuture();
    // The timeout is due, and queues in the lane behind the task it should end.
    await().atMost(PATIENCE).until(() -> lane.stats().queued() == 1);
    assertThat(result).isNotDone();
    release.countDown();
    assertThat(result.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("answer");
    await().atMost(PATIENCE).until(() -> lane.stats().cancelled() == 1); // the timer's task, unrun
    assertThat(lane.stats().completed()).isEqualTo(1);
  }
}
