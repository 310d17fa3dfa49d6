package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A lane's gate ({@link LaneGate}): every task passes it, none runs beyond its permits, each pass
 * is exited once, a failing or shut gate loses nothing, and the lane still shuts down.
 */
class GateTest {

  /** An in-memory gate of {@code permits}; counts passes and exits, and wakes every waiter. */
  static class SemaphoreGate implements LaneGate {
    private int free;
    private final Set<Runnable> waiting = new LinkedHashSet<>();
    final AtomicInteger passes = new AtomicInteger();
    final AtomicInteger exits = new AtomicInteger();
    final AtomicInteger unused = new AtomicInteger();
    final AtomicInteger doubleExits = new AtomicInteger();
    final AtomicInteger asked = new AtomicInteger();
    final Map<TaskOutcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();

    SemaphoreGate(int permits) {
      this.free = permits;
    }

    @Override
    public Pass tryEnter(Runnable ready) {
      asked.incrementAndGet();
      synchronized (this) {
        if (free == 0) {
          waiting.add(ready);
          return null;
        }
        free--;
      }
      passes.incrementAndGet();
      AtomicBoolean exited = new AtomicBoolean();
      return outcome -> {
        if (!exited.compareAndSet(false, true)) {
          doubleExits.incrementAndGet();
          return;
        }
        exits.incrementAndGet();
        if (outcome == null) {
          unused.incrementAndGet();
        } else {
          outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
        }
        open(1);
      };
    }

    int waiters() {
      synchronized (this) {
        return waiting.size();
      }
    }

    /** Adds {@code n} permits and wakes every waiter. */
    void open(int n) {
      List<Runnable> wake;
      synchronized (this) {
        free += n;
        wake = new ArrayList<>(waiting);
        waiting.clear();
      }
      wake.forEach(Runnable::run);
    }

    int outcome(TaskOutcome o) {
      AtomicInteger n = outcomes.get(o);
      return n == null ? 0 : n.get();
    }
  }

  /** Counts tasks inside their code at once. */
  static final class Peak {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();

    <T> T inside(Callable<T> body) throws Exception {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        return body.call();
      } finally {
        now.decrementAndGet();
      }
    }
  }

  private static LaneBuilder lane(String kind, String name, int concurrency) {
    return kind.equals("virtual") ? Lane.virtual(name, concurrency)
        : Lane.blocking(name, concurrency);
  }

  private static void terminate(Lane lane) throws InterruptedException {
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void tasksNeverRunBeyondTheGatesPermitsWhateverTheLanesConcurrency(String kind) throws Exception {
    SemaphoreGate gate = new SemaphoreGate(3);
    Peak peak = new Peak();
    Lane lane = lane(kind, "capped-" + kind, 8).queueCapacity(1_000).gate(gate).build();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    List<Thread> submitters = Work.start(4, "submitter", () -> {
      for (int i = 0; i < 100; i++) {
        int v = i;
        CompletableFuture<Integer> f = lane.submit(() -> peak.inside(() -> {
          Thread.yield();
          return v;
        }));
        synchronized (futures) {
          futures.add(f);
        }
      }
    });
    Work.join(submitters);
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    terminate(lane);
    assertThat(peak.most.get()).as("tasks inside their code at once").isBetween(1, 3);
    assertThat(gate.doubleExits.get()).isZero();
    assertThat(gate.exits.get()).isEqualTo(gate.passes.get());
    assertThat(gate.outcome(TaskOutcome.COMPLETED)).isEqualTo(400);
    assertThat(lane.stats().completed()).isEqualTo(400);
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void submitExecuteInvokeAllAndSupplyAsyncAllPassTheGate() throws Exception {
    SemaphoreGate gate = new SemaphoreGate(0); // shut
    Lane lane = Lane.blocking("every-way", 4).gate(gate).build();
    AtomicInteger ran = new AtomicInteger();
    CompletableFuture<String> submitted = lane.submit(() -> {
      ran.incrementAndGet();
      return "submit";
    });
    CountDownLatch executed = new CountDownLatch(1);
    lane.execute(() -> {
      ran.incrementAndGet();
      executed.countDown();
    });
    CompletableFuture<String> async = CompletableFuture.supplyAsync(() -> {
      ran.incrementAndGet();
      return "async";
    }, lane);
    List<Future<String>> all = new CopyOnWriteArrayList<>();
    Thread invoker = new Thread(() -> {
      try {
        all.addAll(lane.invokeAll(List.of(() -> "a", () -> "b")));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "invoker");
    invoker.start();
    Awaitility.await().until(() -> lane.stats().queued() == 5);
    Awaitility.await().until(() -> gate.waiters() == 4); // every worker waits at the gate
    assertThat(ran.get()).isZero();
    assertThat(lane.stats().running()).isZero();
    gate.open(2);
    assertThat(submitted.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("submit");
    assertThat(async.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("async");
    Work.await(executed);
    Work.join(List.of(invoker));
    assertThat(all).hasSize(2);
    assertThat(all.get(0).get()).isEqualTo("a");
    assertThat(all.get(1).get()).isEqualTo("b");
    terminate(lane);
    assertThat(gate.outcome(TaskOutcome.COMPLETED)).isEqualTo(5);
    assertThat(gate.exits.get()).isEqualTo(gate.passes.get());
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void aTasksQueueWaitIncludesItsWaitAtTheGate() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    SemaphoreGate gate = new SemaphoreGate(0);
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    Lane lane = Lane.blocking("gate-wait", 2).ticker(clock::get).gate(gate).build();
    lane.onTask(records::add);
    CompletableFuture<String> f = lane.submit(() -> "passed");
    Awaitility.await().until(() -> gate.waiters() >= 1);
    clock.addAndGet(TimeUnit.SECONDS.toNanos(5)); // five seconds at the gate
    gate.open(1);
    assertThat(f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("passed");
    terminate(lane);
    assertThat(records).singleElement().satisfies(r -> {
      assertThat(r.queueWaitNanos()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(5));
      assertThat(r.runNanos()).isLessThan(TimeUnit.SECONDS.toNanos(5));
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void exitIsCalledOncePerPassWhateverTheOutcome(String kind) throws Exception {
    SemaphoreGate gate = new SemaphoreGate(1);
    Lane lane = lane(kind, "outcomes-" + kind, 3).gate(gate)
        .exceptionHandler((t, e) -> { }).build();
    assertThat(lane.submit(() -> "ok").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("ok");
    CompletableFuture<String> failing = lane.submit(() -> {
      throw new IllegalStateException("planned");
    });
    assertThatThrownBy(() -> failing.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    CountDownLatch running = new CountDownLatch(1);
    CompletableFuture<Void> cancelled = lane.submit("", () -> {
      running.countDown();
      Work.block(new CountDownLatch(1)); // until interrupted
    });
    Work.await(running);
    CompletableFuture<String> queuedBehind = lane.submit(() -> "behind"); // waits at the gate
    cancelled.cancel(true);
    assertThat(queuedBehind.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("behind");
    lane.execute(() -> {
      throw new IllegalStateException("planned, to the handler");
    });
    terminate(lane);
    assertThat(gate.doubleExits.get()).isZero();
    assertThat(gate.exits.get()).isEqualTo(gate.passes.get());
    assertThat(gate.outcome(TaskOutcome.COMPLETED)).isEqualTo(2);
    assertThat(gate.outcome(TaskOutcome.FAILED)).isEqualTo(2);
    assertThat(gate.outcome(TaskOutcome.CANCELLED)).isEqualTo(1);
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void aWorkerKilledAfterItsTaskHasExitedItsPassOnceAndTheLaneGoesOn() throws Exception {
    Handler h = Work.throwOnLog("task listener failed"); // a worker then dies logging it
    try {
      SemaphoreGate gate = new SemaphoreGate(1);
      Lane lane = Lane.blocking("dying-gated", 2).gate(gate)
          .threadFactory(Thread.ofPlatform().name("dying-gated-", 1)
              .uncaughtExceptionHandler((t, e) -> { }).factory())
          .build();
      AtomicBoolean failListener = new AtomicBoolean(true);
      lane.onTask(r -> {
        if (failListener.getAndSet(false)) {
          throw new RuntimeException("listener bug");
        }
      });
      assertThat(lane.submit(() -> "first").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isEqualTo("first");
      List<CompletableFuture<Integer>> more = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int v = i;
        more.add(lane.submit(() -> v));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(more.get(i).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(i);
      }
      terminate(lane);
      assertThat(gate.doubleExits.get()).isZero();
      assertThat(gate.exits.get()).isEqualTo(gate.passes.get());
      assertThat(gate.outcome(TaskOutcome.COMPLETED)).isEqualTo(21);
      Work.assertBooksBalance(lane.stats());
    } finally {
      Logger.getLogger("dev.lanes").removeHandler(h);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void aGateThatThrowsLosesNoTaskAndNoPermit(String kind) throws Exception {
    SemaphoreGate inner = new SemaphoreGate(2);
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger exitsThrown = new AtomicInteger();
    LaneGate flaky = ready -> {
      if (calls.incrementAndGet() % 3 == 0) {
        throw new IllegalStateException("gate failure (simulated)");
      }
      LaneGate.Pass p = inner.tryEnter(ready);
      if (p == null) {
        return null;
      }
      return outcome -> {
        p.exit(outcome);
        if (exitsThrown.incrementAndGet() % 2 == 0) {
          throw new IllegalStateException("exit failure (simulated)");
        }
      };
    };
    Peak peak = new Peak();
    Lane lane = lane(kind, "flaky-" + kind, 4).queueCapacity(200).gate(flaky).build();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      int v = i;
      futures.add(lane.submit(() -> peak.inside(() -> v)));
    }
    for (int i = 0; i < 100; i++) {
      assertThat(futures.get(i).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(i);
    }
    terminate(lane);
    assertThat(calls.get()).as("the gate threw at least once").isGreaterThanOrEqualTo(3);
    assertThat(peak.most.get()).isLessThanOrEqualTo(2);
    assertThat(inner.exits.get()).isEqualTo(inner.passes.get());
    assertThat(inner.doubleExits.get()).isZero();
    assertThat(lane.stats().completed()).isEqualTo(100);
    Work.assertBooksBalance(lane.stats());
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownNowWithWorkersWaitingAtAShutGateTerminates(String kind) throws Exception {
    SemaphoreGate gate = new SemaphoreGate(0);
    Lane lane = lane(kind, "shut-" + kind, 4).gate(gate).build();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int v = i;
      futures.add(lane.submit(() -> v));
    }
    Awaitility.await().until(() -> gate.waiters() == 4);
    lane.shutdown(); // queued tasks still wait for the gate
    assertThat(lane.awaitTermination(0, TimeUnit.SECONDS)).isFalse();
    assertThat(lane.shutdownNow()).hasSize(10);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(futures).allMatch(CompletableFuture::isCancelled);
    assertThat(gate.passes.get()).isZero();
    assertThat(lane.stats().returned()).isEqualTo(10);
    Work.assertBooksBalance(lane.stats());
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownRunsWhatWaitsAtTheGateOnceItOpensThenTerminates(String kind) throws Exception {
    SemaphoreGate gate = new SemaphoreGate(0);
    Lane lane = lane(kind, "drain-" + kind, 3).gate(gate).build();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      int v = i;
      futures.add(lane.submit(() -> v));
    }
    Awaitility.await().until(() -> gate.waiters() == 3);
    lane.shutdown();
    assertThat(lane.isTerminated()).isFalse();
    gate.open(1);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 6; i++) {
      assertThat(futures.get(i).get()).isEqualTo(i);
    }
    assertThat(gate.exits.get()).isEqualTo(gate.passes.get());
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void aGateThatCallsReadySpuriouslyOrLateIsHarmless() throws Exception {
    SemaphoreGate inner = new SemaphoreGate(2);
    Set<Runnable> everReady = ConcurrentHashMap.newKeySet();
    LaneGate noisy = ready -> {
      everReady.add(ready);
      ready.run(); // spurious: before it even says "not now"
      return inner.tryEnter(ready);
    };
    Peak peak = new Peak();
    Lane lane = Lane.virtual("noisy", 6).queueCapacity(500).gate(noisy).build();
    AtomicBoolean done = new AtomicBoolean();
    Thread hammer = new Thread(() -> {
      while (!done.get()) {
        everReady.forEach(Runnable::run); // late and repeated
        Thread.yield();
      }
    }, "hammer");
    hammer.start();
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      int v = i;
      futures.add(lane.submit(() -> peak.inside(() -> v)));
    }
    for (int i = 0; i < 300; i++) {
      assertThat(futures.get(i).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(i);
    }
    done.set(true);
    Work.join(List.of(hammer));
    terminate(lane);
    assertThat(peak.most.get()).isLessThanOrEqualTo(2);
    assertThat(inner.exits.get()).isEqualTo(inner.passes.get());
    Work.assertBooksBalance(lane.stats());
  }

  @Test
  void aGateRefusesTheOldestTaskForGoodThroughTheLanesOnePath() throws Exception {
    AtomicInteger refusals = new AtomicInteger(3);
    SemaphoreGate inner = new SemaphoreGate(1);
    LaneGate refusing = ready ->
        refusals.getAndDecrement() > 0 ? LaneGate.REFUSE : inner.tryEnter(ready);
    List<TaskRecord> records = new CopyOnWriteArrayList<>();
    Lane lane = Lane.blocking("refusing", 1).gate(refusing)
        .exceptionHandler((t, e) -> { }).build();
    lane.onTask(records::add);
    CountDownLatch hold = new CountDownLatch(1);
    // Queued before the single worker looks: the three oldest are refused, in order.
    List<CompletableFuture<Integer>> futures = new ArrayList<>();
    lane.execute(() -> Work.block(hold)); // refused first (a plain execute: to the handler)
    for (int i = 0; i < 4; i++) {
      int v = i;
      futures.add(lane.submit(() -> v));
    }
    hold.countDown();
    assertThat(futures.get(3).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(3);
    terminate(lane);
    LaneStats s = lane.stats();
    assertThat(s.count(TaskOutcome.GATE_REFUSED)).isEqualTo(3);
    assertThat(s.completed()).isEqualTo(2);
    for (CompletableFuture<Integer> f : futures.subList(0, 2)) {
      assertThatThrownBy(() -> f.get()).cause().isInstanceOf(LaneRejectedException.class)
          .satisfies(e -> assertThat(((LaneRejectedException) e).reason())
              .isEqualTo(TaskOutcome.GATE_REFUSED))
          .hasMessageContaining("gate refused it");
    }
    assertThat(records).filteredOn(r -> r.outcome() == TaskOutcome.GATE_REFUSED).hasSize(3);
    assertThat(inner.exits.get()).isEqualTo(inner.passes.get());
    Work.assertBooksBalance(s);
  }

  @Test
  void aGateThatNeverOpensMakesTheLaneSaturated() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    SemaphoreGate gate = new SemaphoreGate(0);
    LaneExecutor lane = (LaneExecutor) Lane.blocking("never-opens", 2).ticker(clock::get)
        .saturationHysteresis(Duration.ZERO, Duration.ZERO).gate(gate).build();
    lane.execute(() -> { });
    Awaitility.await().until(() -> gate.waiters() >= 1); // one task: one worker was woken for it
    clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
    lane.checkHealth();
    assertThat(lane.health()).isEqualTo(LaneHealth.SATURATED);
    assertThat(lane.shutdownNow()).hasSize(1);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * LaneGate's promise that a worker waiting at the gate asks again when the lane's concurrency
   * changes: a virtual lane's setConcurrency only dispatched, so its workers at a shut gate kept
   * their permits (4 against a concurrency of 1) until the gate opened.
   */
  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void loweringConcurrencyRetiresWorkersWaitingAtTheGate(String kind) throws Exception {
    SemaphoreGate gate = new SemaphoreGate(0);
    Lane lane = lane(kind, "lowered", 4).gate(gate).build();
    for (int i = 0; i < 8; i++) {
      lane.execute(() -> { });
    }
    Awaitility.await().until(() -> gate.waiters() == 4);
    lane.setConcurrency(1);
    Awaitility.await().until(() -> lane.stats().workers() == 1);
    gate.open(8);
    terminate(lane);
    assertThat(lane.stats().completed()).isEqualTo(8);
    Work.assertBooksBalance(lane.stats());
  }

  /** Rounds of the stress test below. */
  private static final int ROUNDS = 60;

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void shutdownNowAtRandomWhileWorkersComeAndGoAtTheGateAlwaysTerminatesAndBalances(String kind)
      throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      SemaphoreGate inner = new SemaphoreGate(1 + round % 3);
      Set<Runnable> readies = ConcurrentHashMap.newKeySet();
      LaneGate gate = ready -> {
        readies.add(ready);
        return inner.tryEnter(ready);
      };
      Peak peak = new Peak();
      Lane lane = lane(kind, "churn-" + kind, 4).queueCapacity(100).gate(gate).build();
      AtomicBoolean stop = new AtomicBoolean();
      Thread noise = new Thread(() -> { // late, spurious readies and changes of concurrency
        int n = 0;
        while (!stop.get()) {
          readies.forEach(Runnable::run);
          if (++n % 50 == 0) {
            lane.setConcurrency(1 + n / 50 % 4);
          }
          Thread.yield();
        }
      }, "noise");
      noise.start();
      List<CompletableFuture<Integer>> futures = new ArrayList<>();
      int tasks = 20 + round;
      for (int i = 0; i < tasks; i++) {
        int v = i;
        futures.add(lane.submit(() -> peak.inside(() -> v)));
      }
      // Stop at a point that moves from round to round: before, among or after the tasks.
      int target = round % tasks;
      Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
          .until(() -> lane.stats().completed() >= Math.min(target, tasks / 2));
      lane.shutdownNow();
      stop.set(true);
      Work.join(List.of(noise));
      assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .as("round %d terminates", round).isTrue();
      for (CompletableFuture<Integer> f : futures) {
        assertThat(f).isDone();
      }
      assertThat(peak.most.get()).isLessThanOrEqualTo(1 + round % 3);
      assertThat(inner.doubleExits.get()).isZero();
      assertThat(inner.exits.get()).as("round %d: every pass back", round)
          .isEqualTo(inner.passes.get());
      LaneStats s = lane.stats();
      assertThat(s.completed() + s.count(TaskOutcome.RETURNED) + s.cancelled() + s.failed())
          .isEqualTo(tasks);
      Work.assertBooksBalance(s);
    }
  }

  @Test
  void aGateIsRefusedWithCallerRunsOrCompensationAndGivenOnce() {
    LaneGate gate = new SemaphoreGate(1);
    assertThatThrownBy(() -> Lane.blocking("cr", 1).overflow(OverflowPolicy.callerRuns())
        .gate(gate).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lane \"cr\": a gate cannot go with overflow");
    assertThatThrownBy(() -> Lane.blocking("comp", 1).compensateOnDeadlock(1).gate(gate).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compensateOnDeadlock");
    assertThatThrownBy(() -> Lane.blocking("twice", 1).gate(gate).gate(gate))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("gate was already set");
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void aWorkerThatDiesHoldingAPassGivesItBackOnceAndLosesNothing(String kind) throws Exception {
    // The lane's clock is the one thing of the user's a worker calls between taking a task with a
    // pass and running it (the task's start stamp): armed, it throws an Error there, once. A
    // worker reads the clock once as it starts: a platform lane's worker has done so by the end of
    // a first task, run before arming; a virtual lane's worker starts after the submission (none
    // was started before), so that one read is let through.
    AtomicInteger readsBeforeFailure = new AtomicInteger(-1); // -1: disarmed
    String name = "dies-with-pass-" + kind;
    Ticker clock = () -> {
      if (Thread.currentThread().getName().startsWith(name)
          && readsBeforeFailure.getAndUpdate(n -> n >= 0 ? n - 1 : n) == 0) {
        throw new ClockFailure();
      }
      return System.nanoTime();
    };
    SemaphoreGate gate = new SemaphoreGate(1);
    List<Throwable> died = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler recorder = (t, e) -> died.add(e);
    java.util.concurrent.ThreadFactory threads = kind.equals("virtual")
        ? Thread.ofVirtual().name(name + "-", 1).uncaughtExceptionHandler(recorder).factory()
        : Thread.ofPlatform().name(name + "-", 1).uncaughtExceptionHandler(recorder).factory();
    List<Thread> made = new CopyOnWriteArrayList<>();
    java.util.concurrent.ThreadFactory factory = r -> {
      Thread t = threads.newThread(r);
      made.add(t);
      return t;
    };
    LaneBuilder b = kind.equals("virtual") ? Lane.virtual(name, 1) : Lane.blocking(name, 1);
    Lane lane = b.gate(gate).ticker(clock).threadFactory(factory).build();
    if (kind.equals("platform")) {
      assertThat(lane.submit(() -> "warm").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isEqualTo("warm");
      // The worker reads the clock once more after the warm task's future completed: arm only
      // once it is parked for the next task.
      Work.awaitBlocked(made.get(0));
    }
    readsBeforeFailure.set(kind.equals("virtual") ? 1 : 0);
    CompletableFuture<String> first = lane.submit(() -> "never");
    assertThatThrownBy(() -> first.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClockFailure.class);
    Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
        .until(() -> gate.outcome(TaskOutcome.FAILED) == 1); // the dead worker's pass came back
    // The pass came back, so the gate lets the next task through (on a replacement worker).
    assertThat(lane.submit(() -> "next").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
        .isEqualTo("next");
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(gate.passes.get()).isEqualTo(gate.exits.get());
    assertThat(gate.doubleExits.get()).isZero();
    Work.assertBooksBalance(lane.stats());
    assertThat(lane.stats().failed()).isEqualTo(1);
    assertThat(lane.stats().completed()).isEqualTo(kind.equals("platform") ? 2 : 1);
    assertThat(died).singleElement().isInstanceOf(ClockFailure.class);
  }


  /** An error from the lane's clock (an Error ends the worker that meets it). */
  static final class ClockFailure extends Error {
    ClockFailure() {
      super("clock failure (simulated)");
    }
  }
}
