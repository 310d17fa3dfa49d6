package dev.lanes.kotlin

import dev.lanes.Lane
import dev.lanes.LaneRejectedException
import dev.lanes.TaskOutcome
import dev.lanes.TaskRecord
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.AtomicReference
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test

/** The real kotlinx.coroutines on a lane: steps timed in the lane, rejection fails the coroutine. */
class LaneDispatcherTest {
  private val lanes = mutableListOf<Lane>()

  private fun lane(l: Lane): Lane = l.also { lanes += it }

  @AfterEach
  fun closeLanes() = lanes.forEach { it.close() }

  /** Holds the lane's only thread until the returned latch is counted down. */
  private fun occupy(lane: Lane): CountDownLatch {
    val started = CountDownLatch(1)
    val release = CountDownLatch(1)
    lane.execute {
      started.countDown()
      release.await()
    }
    assertThat(started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue()
    return release
  }

  private fun rejectionIn(t: Throwable?): LaneRejectedException? {
    var c = t
    while (c != null && c !is LaneRejectedException) c = c.cause
    return c as LaneRejectedException?
  }

  /**
   * Makes a lane and runs a coroutine that calls `delay` on it, with [attempt], until the delay
   * really suspended, and returns that try's lane and what it found. kotlinx goes on in the same
   * step, with no resumption to dispatch, when the delay is already over by the time the step gets
   * to suspend: a stall of the lane's thread that long (a GC pause, a busy machine; seen here under
   * a `System.gc()` loop with `delay(1)`) makes such a try, which shows nothing about resumption.
   * Checked after the coroutine's result came back: by then a resumption was submitted, if any.
   */
  private fun <T> whenTheDelaySuspended(attempt: () -> Pair<Lane, T>): Pair<Lane, T> {
    repeat(SUSPENSION_TRIES) {
      val (lane, found) = attempt()
      lane(lane)
      if (lane.stats().submitted() >= 2) return lane to found
    }
    throw AssertionError(
      "in $SUSPENSION_TRIES tries the lane never got a second task: the delay never suspended, " +
        "or its resumption did not come back to the lane")
  }

  @Test
  fun `a coroutine runs on the lane, across suspensions`() {
    val (lane, threads) =
      whenTheDelaySuspended {
        val lane = Lane.blocking("kt-run", 2).build()
        lane to
          runBlocking {
            withContext(lane.asLaneDispatcher()) {
              val before = Thread.currentThread().name
              delay(5)
              before to Thread.currentThread().name
            }
          }
      }
    assertThat(threads.first).startsWith("kt-run-")
    assertThat(threads.second).startsWith("kt-run-")
    // start + resumption; the resumption's task may still be ending (recorded just after the
    // coroutine's result reaches this thread), so count it as started, not yet as completed
    assertThat(lane.stats().started()).isGreaterThanOrEqualTo(2)
  }

  @Test
  fun `a coroutine rejected by a full lane fails with the lane's rejection and never runs`() = runBlocking<Unit> {
    val lane = lane(Lane.blocking("kt-full", 1).queueCapacity(1).build())
    val release = occupy(lane)
    lane.execute {} // fills the queue
    val ran = AtomicReference<String?>(null)
    try {
      val deferred = async(lane.asLaneDispatcher()) { ran.set(Thread.currentThread().name) }
      val failure = runCatching { deferred.await() }.exceptionOrNull()
      assertThat(failure).isInstanceOf(CancellationException::class.java)
      val rejection = rejectionIn(failure)
      assertThat(rejection).`as`("cause chain of %s", failure).isNotNull()
      assertThat(rejection!!.lane()).isEqualTo("kt-full")
      assertThat(rejection.reason()).isEqualTo(TaskOutcome.QUEUE_FULL)
      assertThat(failure).hasMessageContaining("kt-full")
      assertThat(ran.get()).`as`("the body ran on %s", ran.get()).isNull()
      assertThat(lane.stats().rejected()).isEqualTo(1)
    } finally {
      release.countDown()
    }
  }

  /** Suspends a coroutine on [dispatcher], fills the lane, resumes it; returns where its finally ran and how it ended. */
  private fun resumeOnAFullLane(lane: Lane, dispatcher: kotlinx.coroutines.CoroutineDispatcher): Pair<String, Throwable?> =
    runBlocking {
      val gate = CompletableDeferred<Unit>()
      val suspended = CountDownLatch(1)
      val ranAfterResume = AtomicReference(false)
      val finallyThread = AtomicReference<String>()
      val job =
        launch(dispatcher) {
          try {
            suspended.countDown()
            gate.await()
            ranAfterResume.set(true)
          } finally {
            finallyThread.set(Thread.currentThread().name)
          }
        }
      val completion = AtomicReference<Throwable?>()
      job.invokeOnCompletion { completion.set(it) }
      assertThat(suspended.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue()
      await().atMost(PATIENCE).until { lane.stats().running() == 0 }
      val release = occupy(lane)
      lane.execute {} // fills the queue
      try {
        gate.complete(Unit) // the resumption is dispatched to the full lane
        job.join()
        assertThat(job.isCancelled).isTrue()
        assertThat(ranAfterResume.get()).isFalse()
        finallyThread.get() to completion.get()
      } finally {
        release.countDown()
      }
    }

  @Test
  fun `a rejected resumption cancels the coroutine with the lane's rejection, its finally runs on a rejected thread`() {
    val lane = lane(Lane.blocking("kt-resume", 1).queueCapacity(1).build())
    val (finallyThread, cause) = resumeOnAFullLane(lane, lane.asLaneDispatcher())
    assertThat(finallyThread).startsWith("kt-resume-rejected") // debug mode appends " @coroutine#n"
    assertThat(cause).isInstanceOf(LaneRejectedCancellationException::class.java)
    assertThat(rejectionIn(cause)?.reason()).isEqualTo(TaskOutcome.QUEUE_FULL)
  }

  @Test
  fun `kotlinx's own asCoroutineDispatcher hands the rejected resumption to Dispatchers IO (what LaneDispatcher avoids)`() {
    val lane = lane(Lane.blocking("kt-kotlinx", 1).queueCapacity(1).build())
    val (finallyThread, _) = resumeOnAFullLane(lane, (lane as java.util.concurrent.ExecutorService).asCoroutineDispatcher())
    assertThat(finallyThread).startsWith("DefaultDispatcher-worker")
  }

  @Test
  fun `after the lane shut down, a resuming coroutine fails with the SHUTDOWN rejection`() = runBlocking<Unit> {
    val lane = lane(Lane.blocking("kt-closed", 1).build())
    val gate = CompletableDeferred<Unit>()
    val suspended = CountDownLatch(1)
    val deferred =
      async(lane.asLaneDispatcher()) {
        suspended.countDown()
        gate.await()
        "resumed"
      }
    assertThat(suspended.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue()
    lane.close() // the coroutine is suspended: no task of it is queued, so close returns
    gate.complete(Unit)
    val failure = runCatching { deferred.await() }.exceptionOrNull()
    assertThat(rejectionIn(failure)?.reason()).isEqualTo(TaskOutcome.SHUTDOWN)
  }

  @Test
  fun `coroutine steps show their queue wait and run time in the lane's stats`() = runBlocking<Unit> {
    val clock = AtomicLong()
    val lane = lane(Lane.blocking("kt-stats", 1).ticker(clock::get).build())
    val records = java.util.concurrent.CopyOnWriteArrayList<TaskRecord>()
    lane.onTask { records.add(it) }
    val release = occupy(lane)
    val result =
      async(lane.asLaneDispatcher("coroutine")) {
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(3)) // it "runs" 3 ms
        "done"
      }
    await().atMost(PATIENCE).until { lane.stats().queued() == 1 }
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(7)) // it waits 7 ms behind the occupied thread
    release.countDown()
    assertThat(result.await()).isEqualTo("done")

    await().atMost(PATIENCE).until { lane.stats().completed() == 2L }
    val stats = lane.stats()
    // Two tasks: the occupying one (waited 0) and the coroutine's one step (waited 7 ms, ran 3 ms).
    assertThat(stats.sinceStart().queueWait().count()).isEqualTo(2)
    assertThat(stats.sinceStart().queueWait().max()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(7))
    // The step is labelled with the dispatcher's label in its task record.
    await().atMost(PATIENCE).until { records.size == 2 }
    val coroutine = records.filter { it.label() == "coroutine" }
    assertThat(coroutine).hasSize(1)
    assertThat(coroutine[0].runNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(3))
    assertThat(coroutine[0].queueWaitNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(7))
  }

  @Test
  fun `delay holds no permit - other work runs on a one-thread lane while a coroutine waits`() = runBlocking<Unit> {
    val lane = lane(Lane.blocking("kt-delay", 1).build())
    val dispatcher = lane.asLaneDispatcher()
    val delaying = CompletableDeferred<Unit>()
    val waiting = launch(dispatcher) {
      delaying.complete(Unit)
      delay(Long.MAX_VALUE) // until cancelled
    }
    delaying.await()
    // The lane has one permit: this runs only because the delayed coroutine gave it back.
    assertThat(withContext(dispatcher) { Thread.currentThread().name }).startsWith("kt-delay-")
    await().atMost(PATIENCE).until { lane.stats().running() == 0 && lane.stats().queued() == 0 }
    assertThat(waiting.isActive).isTrue()
    waiting.cancelAndJoin()
  }

  @Test
  fun `a coroutine resumes from delay as a new lane task`() {
    val (lane, found) =
      whenTheDelaySuspended {
        val lane = Lane.blocking("kt-delayed", 1).build()
        val records = CopyOnWriteArrayList<TaskRecord>()
        lane.onTask { records += it }
        val threads =
          runBlocking {
            withContext(lane.asLaneDispatcher(label = "step")) {
              val before = Thread.currentThread().name
              delay(5)
              listOf(before, Thread.currentThread().name)
            }
          }
        lane to (threads to records)
      }
    val (threads, records) = found
    assertThat(threads).allSatisfy { assertThat(it).startsWith("kt-delayed-") }
    // Start to delay, then resumption to the end: two tasks, each queued, run and counted apart.
    await().atMost(PATIENCE).until { records.size == 2 }
    assertThat(records).extracting<String> { it.label() }.containsExactly("step", "step")
    assertThat(records).extracting<TaskOutcome> { it.outcome() }.containsOnly(TaskOutcome.COMPLETED)
    assertThat(records.map { it.taskId() }.toSet()).hasSize(2)
    assertThat(lane.stats().submitted()).isEqualTo(2)
  }

  private companion object {
    /** How long a test waits for what should happen promptly before it fails. */
    val PATIENCE: Duration = Duration.ofSeconds(30)

    /** How many times a test runs a `delay` that must suspend before it gives up. */
    const val SUSPENSION_TRIES = 5
  }
}
