package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One test per clause of the {@link java.util.concurrent.ExecutorService} (and {@link
 * java.util.concurrent.Executor}) javadoc that a lane implements, on a platform and a virtual
 * lane; each display name quotes the clause (JDK 21+ wording). Where a lane promises more than
 * the interface, the test says so and cites where lanes documents it. Every lane is checked by
 * the books checker afterwards (issue #24).
 */
@ParameterizedClass(name = "{0} lane")
@ValueSource(strings = {"platform", "virtual"})
class ExecutorServiceConformanceTest {
  /** How long a "the timeout elapses" case waits; its length is never asserted. */
  private static final long SHORT_MILLIS = 20;

  @Parameter String kind;

  @RegisterExtension final Books books = new Books();

  private Lane lane(int concurrency) {
    LaneBuilder b = kind.equals("virtual") ? Lane.virtual("conform", concurrency)
        : Lane.blocking("conform", concurrency);
    return books.track(b.build());
  }

  /** A task that blocks until {@code release}, or ends at once when interrupted. */
  private static Callable<String> blocking(CountDownLatch started, CountDownLatch release,
      AtomicBoolean interrupted) {
    return () -> {
      started.countDown();
      try {
        release.await();
        return "released";
      } catch (InterruptedException e) {
        interrupted.set(true);
        throw e;
      }
    };
  }

  private static void assertRefusedByShutdown(Throwable e) {
    assertThat(e).isInstanceOf(RejectedExecutionException.class);
    assertThat(((LaneRejectedException) e).reason()).isEqualTo(TaskOutcome.SHUTDOWN);
  }

  // ------------------------------------------------------------------ execute / submit

  @Test
  @DisplayName("Executor.execute: \"Executes the given command at some time in the future\"")
  void executeRunsTheCommand() {
    Lane lane = lane(1);
    CountDownLatch ran = new CountDownLatch(1);
    lane.execute(ran::countDown);
    Work.await(ran);
  }

  @Test
  @DisplayName("execute: \"RejectedExecutionException if this task cannot be accepted for"
      + " execution\" — after shutdown()")
  void executeAfterShutdownIsRejected() {
    Lane lane = lane(1);
    lane.shutdown();
    AtomicBoolean ran = new AtomicBoolean();
    Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> lane.execute(() -> ran.set(true)));
    assertRefusedByShutdown(e);
    assertThat(ran).isFalse();
  }

  @Test
  @DisplayName("submit: \"RejectedExecutionException if the task cannot be scheduled for"
      + " execution\" — after shutdown(), for each form of submit")
  void submitAfterShutdownIsRejected() {
    Lane lane = lane(1);
    lane.shutdown();
    assertRefusedByShutdown(org.assertj.core.api.Assertions.catchThrowable(() -> lane.submit(() -> 1)));
    assertRefusedByShutdown(org.assertj.core.api.Assertions.catchThrowable(() -> lane.submit(() -> {})));
    assertRefusedByShutdown(org.assertj.core.api.Assertions.catchThrowable(() -> lane.submit(() -> {}, 1)));
    assertThat(lane.stats().count(TaskOutcome.SHUTDOWN)).isEqualTo(3);
  }

  @Test
  @DisplayName("execute/submit: \"NullPointerException if the task is null\"")
  void nullTasksAreRefused() {
    Lane lane = lane(1);
    assertThatThrownBy(() -> lane.execute(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.submit((Callable<Object>) null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.submit((Runnable) null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.submit((Runnable) null, 1)).isInstanceOf(NullPointerException.class);
  }

  @Test
  @DisplayName("submit(Callable): \"The Future's get method will return the task's result upon"
      + " successful completion\"")
  void submitCallableReturnsTheResult() throws Exception {
    assertThat(lane(1).submit(() -> "result").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("result");
  }

  @Test
  @DisplayName("submit(Runnable): \"The Future's get method will return null upon successful"
      + " completion\"; submit(Runnable, result): \"… will return the given result\"")
  void submitRunnableReturnsNullOrTheGivenResult() throws Exception {
    Lane lane = lane(1);
    assertThat(lane.submit(() -> {}).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isNull();
    assertThat(lane.submit(() -> {}, "given").get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("given");
  }

  // ------------------------------------------------------------------ shutdown

  @Test
  @DisplayName("shutdown: \"Initiates an orderly shutdown in which previously submitted tasks are"
      + " executed, but no new tasks will be accepted\"")
  void shutdownRunsQueuedTasks() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    AtomicInteger ran = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      lane.execute(ran::incrementAndGet);
    }
    lane.shutdown();
    assertRefusedByShutdown(org.assertj.core.api.Assertions.catchThrowable(() -> lane.execute(ran::incrementAndGet)));
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(ran.get()).isEqualTo(3);
  }

  @Test
  @DisplayName("shutdown: \"This method does not wait for previously submitted tasks to complete"
      + " execution\"; \"Invocation has no additional effect if already shut down\"")
  void shutdownDoesNotWaitAndTwiceIsOnce() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    lane.shutdown(); // returns although the task still blocks
    assertThat(lane.isTerminated()).isFalse();
    LaneStats before = lane.stats();
    lane.shutdown();
    assertThat(lane.stats().submitted()).isEqualTo(before.submitted());
    assertThat(lane.isShutdown()).isTrue();
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  @DisplayName("shutdownNow: \"Attempts to stop all actively executing tasks, halts the processing"
      + " of waiting tasks, and returns a list of the tasks that were awaiting execution\"")
  void shutdownNowReturnsWaitingTasksAndInterruptsRunningOnes() throws Exception {
    Lane lane = lane(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Future<String> running = lane.submit(blocking(started, new CountDownLatch(1), interrupted));
    Work.await(started);
    AtomicInteger ran = new AtomicInteger();
    List<Runnable> waiting = List.of(ran::incrementAndGet, ran::incrementAndGet);
    waiting.forEach(lane::execute);
    List<Runnable> returned = lane.shutdownNow();
    assertThat(returned).containsExactlyInAnyOrderElementsOf(waiting); // the Runnables given to execute
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(interrupted).as("the running task was interrupted").isTrue();
    assertThat(running).isDone();
    assertThat(ran.get()).as("waiting tasks never ran").isZero();
    assertThat(lane.stats().returned()).isEqualTo(2);
  }

  @Test
  @DisplayName("shutdownNow: \"returns a list of the tasks that were awaiting execution\" — not"
      + " a task cancelled while it waited")
  void shutdownNowDoesNotReturnACancelledTask() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    Future<?> cancelled = lane.submit(() -> {});
    Future<?> waiting = lane.submit(() -> {});
    assertThat(cancelled.cancel(false)).isTrue();
    List<Runnable> returned = lane.shutdownNow();
    release.countDown();
    assertThat(new ArrayList<Object>(returned)).containsExactly(waiting);
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(lane.stats().cancelled()).isEqualTo(1);
    assertThat(lane.stats().returned()).isEqualTo(1);
  }

  @Test
  @DisplayName("shutdownNow: \"This method does not wait for actively executing tasks to"
      + " terminate\"")
  void shutdownNowDoesNotWait() throws Exception {
    Lane lane = lane(1);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    lane.execute(() -> { // ignores interrupts until released
      started.countDown();
      boolean wasInterrupted = false;
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          wasInterrupted = true;
        }
      }
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    });
    Work.await(started);
    assertThat(lane.shutdownNow()).isEmpty();
    assertThat(lane.isTerminated()).isFalse();
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  @DisplayName("isShutdown: \"Returns true if this executor has been shut down\"; isTerminated:"
      + " \"never true unless either shutdown or shutdownNow was called first\"")
  void isShutdownAndIsTerminated() throws Exception {
    Lane lane = lane(1);
    lane.submit(() -> 1).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    assertThat(lane.isShutdown()).isFalse();
    assertThat(lane.isTerminated()).as("idle, but not shut down").isFalse();
    lane.shutdown();
    assertThat(lane.isShutdown()).isTrue();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(lane.isTerminated()).as("\"Returns true if all tasks have completed following shut down\"").isTrue();
  }

  @Test
  @DisplayName("awaitTermination: \"true if this executor terminated and false if the timeout"
      + " elapsed before termination\"")
  void awaitTerminationSaysWhetherItTerminated() throws Exception {
    Lane lane = lane(1);
    assertThat(lane.awaitTermination(SHORT_MILLIS, TimeUnit.MILLISECONDS)).as("not shut down").isFalse();
    CountDownLatch release = Work.occupy(lane);
    lane.shutdown();
    assertThat(lane.awaitTermination(SHORT_MILLIS, TimeUnit.MILLISECONDS)).as("a task still runs").isFalse();
    release.countDown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(lane.awaitTermination(0, TimeUnit.NANOSECONDS)).as("terminated already").isTrue();
  }

  @Test
  @DisplayName("awaitTermination: \"InterruptedException if interrupted while waiting\"")
  void awaitTerminationIsInterruptible() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    lane.shutdown();
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
      release.countDown();
    }
  }

  // ------------------------------------------------------------------ invokeAll

  @Test
  @DisplayName("invokeAll: \"Future.isDone is true for each element of the returned list\", \"in"
      + " the same sequential order as produced by the iterator for the given task list\"")
  void invokeAllReturnsDoneFuturesInOrder() throws Exception {
    Lane lane = lane(2);
    CountDownLatch secondDone = new CountDownLatch(1);
    List<Callable<String>> tasks = List.of(
        () -> {
          Work.block(secondDone); // finishes last
          return "first";
        },
        () -> {
          secondDone.countDown();
          return "second";
        });
    List<Future<String>> fs = lane.invokeAll(tasks);
    assertThat(fs).hasSize(2).allSatisfy(f -> assertThat(f).isDone());
    assertThat(fs.get(0).get()).isEqualTo("first");
    assertThat(fs.get(1).get()).isEqualTo("second");
  }

  @Test
  @DisplayName("invokeAll: \"a completed task could have terminated either normally or by throwing"
      + " an exception\"")
  void invokeAllKeepsAFailedTasksException() throws Exception {
    List<Future<Object>> fs = lane(2).invokeAll(List.<Callable<Object>>of(() -> "ok", () -> {
      throw new IllegalStateException("planned");
    }));
    assertThat(fs.get(0).get()).isEqualTo("ok");
    assertThatThrownBy(() -> fs.get(1).get()).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName("invokeAll/invokeAny: \"NullPointerException if tasks or any of its elements are"
      + " null\" — and nothing is submitted (lanes: LaneExecutor#invokeAll's javadoc)")
  void invokeAllAndInvokeAnyRefuseANullElementBeforeSubmittingAny() {
    Lane lane = lane(1);
    AtomicBoolean ran = new AtomicBoolean();
    List<Callable<Object>> withNull = new ArrayList<>();
    withNull.add(() -> ran.getAndSet(true));
    withNull.add(null);
    assertThatThrownBy(() -> lane.invokeAll(withNull)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.invokeAll(withNull, 1, TimeUnit.SECONDS)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.invokeAny(withNull)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.invokeAny(withNull, 1, TimeUnit.SECONDS)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.invokeAll(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lane.invokeAny(null)).isInstanceOf(NullPointerException.class);
    assertThat(lane.stats().submitted()).isZero();
    assertThat(ran).isFalse();
  }

  @Test
  @DisplayName("invokeAll(timeout): \"Upon return, tasks that have not completed are cancelled\"")
  void invokeAllWithATimeoutCancelsUnfinishedTasks() throws Exception {
    Lane lane = lane(2);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    List<Future<String>> fs = lane.invokeAll(
        List.of(() -> "quick", blocking(started, new CountDownLatch(1), interrupted)),
        SHORT_MILLIS, TimeUnit.MILLISECONDS);
    assertThat(fs).allSatisfy(f -> assertThat(f).isDone());
    // The quick one completed, unless a slow machine let the timeout pass first: then it too was
    // cancelled. The blocked one never completes: cancelled.
    assertThat(fs.get(0).isCancelled() || "quick".equals(fs.get(0).resultNow())).isTrue();
    assertThat(fs.get(1)).isCancelled();
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    // It may have been cancelled before it started; if it started, it was interrupted.
    assertThat(started.getCount() == 1 || interrupted.get()).as("started → interrupted").isTrue();
  }

  @Test
  @DisplayName("invokeAll: \"InterruptedException if interrupted while waiting, in which case"
      + " unfinished tasks are cancelled\"")
  void anInterruptedInvokeAllCancelsUnfinishedTasks() throws Exception {
    Lane lane = lane(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicBoolean secondRan = new AtomicBoolean();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        lane.invokeAll(List.<Callable<Object>>of(blocking(started, new CountDownLatch(1), interrupted)::call,
            () -> secondRan.getAndSet(true)));
      } catch (Throwable t) {
        thrown.set(t);
      }
    }, "invoker");
    caller.start();
    Work.await(started);
    Work.awaitBlocked(caller);
    caller.interrupt();
    Work.join(List.of(caller));
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(interrupted).as("the running task was cancelled with an interrupt").isTrue();
    assertThat(secondRan).as("the queued task was cancelled before it ran").isFalse();
    assertThat(lane.stats().cancelled()).isEqualTo(2);
  }

  @Test
  @DisplayName("invokeAll: RejectedExecutionException \"if any task cannot be scheduled for"
      + " execution\" — after shutdown()")
  void invokeAllAfterShutdownIsRejected() {
    Lane lane = lane(1);
    lane.shutdown();
    assertThatThrownBy(() -> lane.invokeAll(List.of(() -> 1))).isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> lane.invokeAny(List.of(() -> 1))).isInstanceOf(RejectedExecutionException.class);
  }

  // ------------------------------------------------------------------ invokeAny

  @Test
  @DisplayName("invokeAny: \"returning the result of one that has completed successfully (i.e.,"
      + " without throwing an exception), if any do\"")
  void invokeAnyReturnsASuccessfulResult() throws Exception {
    Lane lane = lane(2);
    String r = lane.invokeAny(List.<Callable<String>>of(() -> {
      throw new IllegalStateException("planned");
    }, () -> "ok"));
    assertThat(r).isEqualTo("ok");
  }

  @Test
  @DisplayName("invokeAny: \"Upon normal or exceptional return, tasks that have not completed are"
      + " cancelled\"")
  void invokeAnyCancelsTheRest() throws Exception {
    Lane lane = lane(2);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    CountDownLatch slowStarted = started;
    String r = lane.invokeAny(List.of(blocking(started, new CountDownLatch(1), interrupted), () -> {
      Work.await(slowStarted); // the other task runs before this one returns
      return "fast";
    }));
    assertThat(r).isEqualTo("fast");
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(interrupted).as("the unfinished task was cancelled with an interrupt").isTrue();
    assertThat(lane.stats().cancelled()).isEqualTo(1);
  }

  @Test
  @DisplayName("invokeAny: \"ExecutionException if no task successfully completes\"")
  void invokeAnyFailsWhenNoTaskSucceeds() {
    Lane lane = lane(2);
    assertThatThrownBy(() -> lane.invokeAny(List.<Callable<Object>>of(() -> {
      throw new IllegalStateException("one");
    }, () -> {
      throw new IllegalArgumentException("two");
    }))).isInstanceOf(ExecutionException.class);
  }

  @Test
  @DisplayName("invokeAny: \"IllegalArgumentException if tasks is empty\"")
  void invokeAnyRefusesNoTasks() {
    Lane lane = lane(1);
    Collection<Callable<Object>> none = List.of();
    assertThatThrownBy(() -> lane.invokeAny(none)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lane.invokeAny(none, 1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @DisplayName("invokeAny(timeout): \"TimeoutException if the given timeout elapses before any task"
      + " successfully completes\"")
  void invokeAnyTimesOut() throws Exception {
    Lane lane = lane(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    assertThatThrownBy(() -> lane.invokeAny(
        List.of(blocking(started, new CountDownLatch(1), interrupted)), SHORT_MILLIS, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    lane.shutdown();
    assertThat(lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the task was cancelled").isTrue();
  }

  // ------------------------------------------------------------------ close

  @Test
  @DisplayName("close: \"Initiates an orderly shutdown in which previously submitted tasks are"
      + " executed, and waits until all tasks have completed\"; \"no effect if already terminated\"")
  void closeWaitsForEveryTask() {
    Lane lane = lane(1);
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch release = Work.occupy(lane);
    for (int i = 0; i < 3; i++) {
      lane.execute(ran::incrementAndGet);
    }
    Thread releaser = new Thread(release::countDown, "releaser");
    releaser.start(); // close must wait for it, however late it comes
    lane.close();
    assertThat(lane.isTerminated()).isTrue();
    assertThat(ran.get()).isEqualTo(3);
    lane.close(); // no effect
    assertThat(lane.isTerminated()).isTrue();
    try {
      Work.join(List.of(releaser));
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  @DisplayName("close: \"If interrupted while waiting, this method stops all executing tasks as if"
      + " by invoking shutdownNow()\"; \"The interrupt status will be re-asserted\"")
  void anInterruptedCloseStopsTasksAndKeepsTheInterrupt() throws Exception {
    Lane lane = lane(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    lane.submit(blocking(started, new CountDownLatch(1), interrupted));
    Work.await(started);
    AtomicBoolean queuedRan = new AtomicBoolean();
    lane.execute(() -> queuedRan.set(true));
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread closer = new Thread(() -> {
      try {
        Thread.currentThread().interrupt(); // interrupted when it starts waiting
        lane.close();
        stillInterrupted.set(Thread.currentThread().isInterrupted());
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "closer");
    closer.start();
    Work.join(List.of(closer));
    assertThat(failure.get()).isNull();
    assertThat(lane.isTerminated()).isTrue();
    assertThat(interrupted).as("the executing task was stopped").isTrue();
    assertThat(queuedRan).as("\"Tasks that were awaiting execution are not executed\"").isFalse();
    assertThat(stillInterrupted).isTrue();
  }
}
