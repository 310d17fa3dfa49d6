package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One test per clause of the {@link Future}, {@link java.util.concurrent.CompletionStage} and
 * {@link CompletableFuture} javadoc that a lane's future implements, on a platform and a virtual
 * lane; each display name quotes the clause (JDK 21+ wording). Where lanes deliberately differs
 * from {@code CompletableFuture}, the test checks lanes' documented rule and names where it is
 * documented:
 *
 * <ul>
 *   <li>only the lane completes its futures: {@code complete}, {@code completeExceptionally},
 *       {@code completeAsync} and {@code obtrude*} throw {@code UnsupportedOperationException}, on
 *       a lane's future and on every stage made from it (DESIGN.md, "Futures only the lane
 *       completes"; {@code LaneStage});
 *   <li>{@code cancel(true)} interrupts the running task, as {@link Future#cancel} describes and
 *       {@code CompletableFuture.cancel} does not ("this value has no effect in this
 *       implementation"): {@code LaneFuture}'s design comment, {@code RUNNING → INTERRUPTING};
 *   <li>a stage made with an {@code …Async} method and no executor runs on the lane (DESIGN.md:
 *       "{@code defaultExecutor()} is the lane all the way down a chain").
 * </ul>
 */
@ParameterizedClass(name = "{0} lane")
@ValueSource(strings = {"platform", "virtual"})
class LaneFutureConformanceTest {
  /** How long a "the timeout elapses" case waits; its length is never asserted. */
  private static final long SHORT_MILLIS = 20;

  @Parameter String kind;

  @RegisterExtension final Books books = new Books();

  private Lane lane(int concurrency) {
    LaneBuilder b = kind.equals("virtual") ? Lane.virtual("future", concurrency)
        : Lane.blocking("future", concurrency);
    return books.track(b.build());
  }

  /** A task running on the lane until released (or interrupted: then it says so and ends). */
  private record Running(CompletableFuture<String> future, CountDownLatch release,
      CountDownLatch interrupted) {}

  private static Running running(Lane lane) {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    CompletableFuture<String> f = lane.submit(() -> {
      started.countDown();
      try {
        release.await();
        return "released";
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
    });
    Work.await(started);
    return new Running(f, release, interrupted);
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
  }

  // ------------------------------------------------------------------ Future.cancel

  @Test
  @DisplayName("Future.cancel: \"If this task has not started when cancel is called, this task"
      + " should never run\"")
  void aTaskCancelledBeforeItStartsNeverRuns() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<?> f = lane.submit(() -> ran.set(true));
    assertThat(f.cancel(false)).isTrue();
    release.countDown();
    lane.close();
    assertThat(ran).isFalse();
    assertThat(lane.stats().cancelled()).isEqualTo(1);
  }

  @Test
  @DisplayName("Future.cancel: \"the mayInterruptIfRunning parameter determines whether the thread"
      + " executing this task … is interrupted\" — true: interrupted (lanes: LaneFuture)")
  void cancelTrueInterruptsTheRunningTask() {
    Lane lane = lane(1);
    Running r = running(lane);
    assertThat(r.future().cancel(true)).isTrue();
    Work.await(r.interrupted());
    assertThat(r.future()).isCancelled();
  }

  @Test
  @DisplayName("Future.cancel: mayInterruptIfRunning false — the running task is not interrupted,"
      + " and the future is cancelled at once")
  void cancelFalseLetsTheRunningTaskRun() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    assertThat(r.future().cancel(false)).isTrue();
    assertThat(r.future()).isCancelled();
    r.release().countDown();
    lane.close();
    assertThat(r.interrupted().getCount()).as("never interrupted").isEqualTo(1);
    assertThat(lane.stats().cancelled()).isEqualTo(1);
  }

  @Test
  @DisplayName("Future.cancel: \"This attempt will fail if the task has already completed\"")
  void cancellingADoneFutureFails() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> f = lane.submit(() -> "done");
    assertThat(get(f)).isEqualTo("done");
    assertThat(f.cancel(true)).isFalse();
    assertThat(f.cancel(false)).isFalse();
    assertThat(f.isCancelled()).isFalse();
    assertThat(get(f)).isEqualTo("done");
    assertThat(lane.stats().cancelled()).isZero();
  }

  @Test
  @DisplayName("CompletableFuture.cancel: \"true if this task is now cancelled\" — a second cancel"
      + " answers true again, and the task is counted cancelled once")
  void cancellingTwiceIsCountedOnce() {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    CompletableFuture<?> f = lane.submit(() -> {});
    assertThat(f.cancel(false)).isTrue();
    assertThat(f.cancel(true)).isTrue();
    release.countDown();
    lane.close();
    assertThat(lane.stats().cancelled()).isEqualTo(1);
  }

  @Test
  @DisplayName("Future.cancel: \"After this method returns, subsequent calls to isDone will always"
      + " return true. Subsequent calls to isCancelled will always return true if this method"
      + " returned true\"")
  void afterCancelIsDoneAndIsCancelledStayTrue() {
    Lane lane = lane(1);
    Running r = running(lane);
    assertThat(r.future().cancel(true)).isTrue();
    Work.await(r.interrupted());
    lane.close(); // the task has ended whatever way it could
    assertThat(r.future().isDone()).isTrue();
    assertThat(r.future().isCancelled()).isTrue();
  }

  // ------------------------------------------------------------------ isDone / isCancelled

  @Test
  @DisplayName("Future.isDone: \"Completion may be due to normal termination, an exception, or"
      + " cancellation -- in all of these cases, this method will return true\"")
  void isDoneForEveryWayOfEnding() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> ok = lane.submit(() -> "ok");
    CompletableFuture<Object> failed = lane.submit(() -> {
      throw new IllegalStateException("planned");
    });
    Running r = running(lane);
    assertThat(r.future().isDone()).as("running").isFalse();
    r.future().cancel(true);
    Work.await(r.interrupted());
    get(ok);
    assertThatThrownBy(() -> get(failed)).isInstanceOf(ExecutionException.class);
    assertThat(List.of(ok, failed, r.future())).allSatisfy(f -> assertThat(f.isDone()).isTrue());
  }

  @Test
  @DisplayName("Future.isCancelled: \"Returns true if this task was cancelled before it completed"
      + " normally\"")
  void isCancelledOnlyForCancelledTasks() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> ok = lane.submit(() -> "ok");
    get(ok);
    assertThat(ok.isCancelled()).isFalse();
    CountDownLatch release = Work.occupy(lane);
    CompletableFuture<?> queued = lane.submit(() -> {});
    queued.cancel(false);
    release.countDown();
    assertThat(queued.isCancelled()).isTrue();
  }

  // ------------------------------------------------------------------ get

  @Test
  @DisplayName("Future.get: \"CancellationException if the computation was cancelled\"")
  void getOfACancelledFutureThrowsCancellationException() {
    Lane lane = lane(1);
    Running r = running(lane);
    r.future().cancel(false);
    assertThatThrownBy(() -> r.future().get()).isInstanceOf(CancellationException.class);
    assertThatThrownBy(() -> r.future().get(1, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
    assertThatThrownBy(() -> r.future().join()).isInstanceOf(CancellationException.class);
    r.release().countDown();
  }

  @Test
  @DisplayName("Future.get: \"ExecutionException if the computation threw an exception\"")
  void getOfAFailedTaskThrowsExecutionException() {
    Lane lane = lane(1);
    IllegalStateException planned = new IllegalStateException("planned");
    CompletableFuture<Object> f = lane.submit(() -> {
      throw planned;
    });
    assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class).hasCause(planned);
    assertThatThrownBy(f::join).isInstanceOf(CompletionException.class).hasCause(planned);
  }

  @Test
  @DisplayName("Future.get(timeout): \"TimeoutException if the wait timed out\"")
  void timedGetTimesOut() {
    Lane lane = lane(1);
    Running r = running(lane);
    assertThatThrownBy(() -> r.future().get(SHORT_MILLIS, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    assertThat(r.future()).isNotDone();
    r.release().countDown();
  }

  @Test
  @DisplayName("Future.get: \"InterruptedException if the current thread was interrupted while"
      + " waiting\"")
  void getIsInterruptible() {
    Lane lane = lane(1);
    Running r = running(lane);
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> r.future().get()).isInstanceOf(InterruptedException.class);
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> r.future().get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
      r.release().countDown();
    }
  }

  @Test
  @DisplayName("Future.state/resultNow/exceptionNow: SUCCESS, FAILED, CANCELLED, RUNNING; \"Throws"
      + " IllegalStateException if the task has not completed\"")
  void stateResultNowAndExceptionNow() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> ok = lane.submit(() -> "ok");
    get(ok);
    assertThat(ok.state()).isEqualTo(Future.State.SUCCESS);
    assertThat(ok.resultNow()).isEqualTo("ok");
    assertThatThrownBy(ok::exceptionNow).isInstanceOf(IllegalStateException.class);

    IllegalStateException planned = new IllegalStateException("planned");
    CompletableFuture<Object> failed = lane.submit(() -> {
      throw planned;
    });
    assertThatThrownBy(() -> get(failed)).isInstanceOf(ExecutionException.class);
    assertThat(failed.state()).isEqualTo(Future.State.FAILED);
    assertThat(failed.exceptionNow()).isSameAs(planned);
    assertThatThrownBy(failed::resultNow).isInstanceOf(IllegalStateException.class);

    Running r = running(lane);
    assertThat(r.future().state()).isEqualTo(Future.State.RUNNING);
    assertThatThrownBy(() -> r.future().resultNow()).isInstanceOf(IllegalStateException.class);
    r.future().cancel(true);
    assertThat(r.future().state()).isEqualTo(Future.State.CANCELLED);
    assertThatThrownBy(() -> r.future().exceptionNow()).isInstanceOf(IllegalStateException.class);
  }

  // ------------------------------------------------------------------ CompletionStage

  @Test
  @DisplayName("CompletionStage.thenApply: \"Returns a new CompletionStage that, when this stage"
      + " completes normally, is executed with this stage's result\"")
  void dependentStagesComplete() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> f = lane.submit(() -> "a");
    CompletableFuture<String> chain = f.thenApply(s -> s + "b")
        .thenCompose(s -> CompletableFuture.completedFuture(s + "c"))
        .thenCombine(lane.submit(() -> "d"), String::concat);
    assertThat(get(chain)).isEqualTo("abcd");
    AtomicReference<String> accepted = new AtomicReference<>();
    get(f.thenAccept(accepted::set));
    assertThat(accepted.get()).isEqualTo("a");
  }

  @Test
  @DisplayName("CompletionStage: \"if this stage completed exceptionally\" the exception reaches"
      + " exceptionally/handle/whenComplete, and thenApply's stage completes exceptionally")
  void aFailureReachesDependentStages() throws Exception {
    Lane lane = lane(1);
    IllegalStateException planned = new IllegalStateException("planned");
    CompletableFuture<String> f = lane.submit(() -> {
      throw planned;
    });
    Consumer<Throwable> isPlanned = e -> assertThat(e instanceof CompletionException ? e.getCause() : e).isSameAs(planned);
    AtomicReference<Throwable> seen = new AtomicReference<>();
    assertThat(get(f.exceptionally(e -> {
      seen.set(e);
      return "recovered";
    }))).isEqualTo("recovered");
    isPlanned.accept(seen.get());
    Throwable handled = get(f.handle((v, e) -> e));
    isPlanned.accept(handled);
    CompletableFuture<String> applied = f.thenApply(s -> s + "never");
    assertThatThrownBy(() -> get(applied)).isInstanceOf(ExecutionException.class).hasCause(planned);
  }

  @Test
  @DisplayName("CompletableFuture.defaultExecutor: \"the default Executor used for async methods"
      + " that do not specify an Executor\" — the lane (lanes: DESIGN.md)")
  void asyncStagesRunOnTheLane() throws Exception {
    Lane lane = lane(1);
    CompletableFuture<String> f = lane.submit(() -> "x");
    CompletableFuture<String> where = f.thenApplyAsync(s -> Thread.currentThread().getName())
        .thenApplyAsync(s -> s + "|" + Thread.currentThread().getName());
    assertThat(get(where).split("\\|")).allSatisfy(name -> assertThat(name).startsWith("future"));
    assertThat(f.defaultExecutor()).isSameAs(lane);
  }

  @Test
  @DisplayName("CompletableFuture.toCompletableFuture: \"Returns this CompletableFuture\"; getNow:"
      + " \"the result value, if completed, else the given valueIfAbsent\"")
  void toCompletableFutureAndGetNow() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    assertThat(r.future().toCompletableFuture()).isSameAs(r.future());
    assertThat(r.future().getNow("absent")).isEqualTo("absent");
    r.release().countDown();
    assertThat(get(r.future())).isEqualTo("released");
    assertThat(r.future().getNow("absent")).isEqualTo("released");
  }

  @Test
  @DisplayName("orTimeout: \"Exceptionally completes this CompletableFuture with a TimeoutException"
      + " if not otherwise completed before the given timeout\"")
  void orTimeoutFailsTheFuture() {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> f = r.future().orTimeout(SHORT_MILLIS, TimeUnit.MILLISECONDS);
    assertThat(f).isSameAs(r.future());
    assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
    r.release().countDown();
  }

  @Test
  @DisplayName("completeOnTimeout: \"Completes this CompletableFuture with the given value if not"
      + " otherwise completed before the given timeout\"")
  void completeOnTimeoutCompletesTheFuture() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> f = r.future().completeOnTimeout("late", SHORT_MILLIS, TimeUnit.MILLISECONDS);
    assertThat(get(f)).isEqualTo("late");
    r.release().countDown();
  }

  @Test
  @DisplayName("CompletableFuture.cancel: \"Dependent CompletableFutures that have not already"
      + " completed will also complete exceptionally, with a CompletionException caused by this"
      + " CancellationException\"")
  void cancellingALaneFutureCompletesItsDependents() {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> dependent = r.future().thenApply(s -> s + "!");
    r.future().cancel(true);
    assertThatThrownBy(dependent::join).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(CancellationException.class);
    Work.await(r.interrupted());
  }

  @Test
  @DisplayName("CompletableFuture.cancel on a dependent stage cancels that stage only: the lane's"
      + " task runs on")
  void cancellingADependentStageLeavesTheTaskAlone() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> dependent = r.future().thenApply(s -> s + "!");
    assertThat(dependent.cancel(true)).isTrue();
    assertThat(r.future()).isNotDone();
    r.release().countDown();
    assertThat(get(r.future())).isEqualTo("released");
    assertThat(r.interrupted().getCount()).isEqualTo(1);
    assertThat(lane.stats().cancelled()).isZero();
  }

  @Test
  @DisplayName("orTimeout on a queued task: the future fails with TimeoutException and the task"
      + " never runs, counted FAILED (lanes: TaskOutcome.FAILED)")
  void aQueuedTaskWhoseFutureTimedOutNeverRuns() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<Boolean> f = lane.submit(() -> ran.getAndSet(true))
        .orTimeout(SHORT_MILLIS, TimeUnit.MILLISECONDS);
    assertThatThrownBy(() -> get(f)).hasCauseInstanceOf(TimeoutException.class);
    release.countDown();
    lane.close();
    assertThat(ran).isFalse();
    assertThat(lane.stats().failed()).isEqualTo(1);
  }

  @Test
  @DisplayName("completeOnTimeout on a queued task: the future completes with the value, and the"
      + " task is counted once")
  void aQueuedTaskCompletedOnTimeoutIsCountedOnce() throws Exception {
    Lane lane = lane(1);
    CountDownLatch release = Work.occupy(lane);
    CompletableFuture<String> f = lane.submit(() -> "ran")
        .completeOnTimeout("late", SHORT_MILLIS, TimeUnit.MILLISECONDS);
    assertThat(get(f)).isEqualTo("late");
    release.countDown();
    lane.close();
    LaneStats s = lane.stats();
    assertThat(s.endedTotal()).isEqualTo(s.submitted()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ lanes' own rule

  @Test
  @DisplayName("lanes: only the lane completes its futures — complete, completeExceptionally,"
      + " completeAsync and obtrude* throw (DESIGN.md, \"Futures only the lane completes\")")
  void completionMethodsAreRefused() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> f = r.future();
    assertRefusesCompletion(f);
    r.release().countDown();
    assertThat(get(f)).as("the task's own result, untouched").isEqualTo("released");
    assertRefusesCompletion(f); // done or not, still refused
    assertThat(get(f)).isEqualTo("released");
  }

  @Test
  @DisplayName("lanes: every stage made from a lane's future refuses completion too (DESIGN.md)")
  void dependentStagesRefuseCompletion() throws Exception {
    Lane lane = lane(1);
    Running r = running(lane);
    CompletableFuture<String> stage = r.future().thenApply(s -> s + "!");
    assertRefusesCompletion(stage);
    r.release().countDown();
    assertThat(get(stage)).isEqualTo("released!");
  }

  private static void assertRefusesCompletion(CompletableFuture<String> f) {
    assertThatThrownBy(() -> f.complete("x")).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("only the lane completes its futures");
    assertThatThrownBy(() -> f.completeExceptionally(new RuntimeException()))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.completeAsync(() -> "x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.completeAsync(() -> "x", Runnable::run))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.obtrudeValue("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.obtrudeException(new RuntimeException()))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
