package dev.lanes.kotlin

import dev.lanes.Lane
import dev.lanes.LaneRejectedException
import java.util.concurrent.Callable
import java.util.concurrent.RejectedExecutionException
import kotlin.coroutines.CoroutineContext
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Job
import kotlinx.coroutines.future.await

/**
 * A [CoroutineDispatcher] over a [Lane]: every step of a coroutine (from its start or a resumption
 * to its next suspension) runs as one lane task, so its queue wait and run time show in
 * [Lane.stats] and the lane's bound applies.
 *
 * ```kotlin
 * val db = Lane.blocking("db", 8).queueCapacity(500).build()
 * val dbDispatcher = db.asLaneDispatcher()
 * val user = withContext(dbDispatcher) { repository.load(id) }
 * ```
 *
 * **Rejection fails the coroutine, visibly, and nothing runs elsewhere.** When the lane refuses a
 * step (queue full, lane shut down), the coroutine's [Job] is cancelled with a
 * [LaneRejectedCancellationException] whose cause is the lane's [LaneRejectedException], and the
 * refused step is handed to a new virtual thread named `<lane>-rejected` only so that the coroutine
 * can see its cancellation: it resumes with that exception at its suspension point and unwinds
 * through its `finally` blocks there. Its code after the suspension point does not run. (kotlinx's
 * own `Executor.asCoroutineDispatcher()` instead hands a rejected step to `Dispatchers.IO`, where
 * the coroutine goes on running on other threads: kotlinx.coroutines issues #2003 and #2334.) The
 * caller of `withContext(dispatcher)`, `async(dispatcher).await()` or `join` sees the exception.
 *
 * **Closing.** This dispatcher owns no threads and has no `close()`; closing or shutting the lane
 * down is what ends it, with the lane's semantics: steps already queued run; a coroutine that
 * resumes after the lane shut down fails as above with the lane's `SHUTDOWN` rejection. So a
 * shared lane can back a dispatcher and other work at once, and one owner closes it.
 *
 * Thread-safety: the dispatcher is stateless apart from the lane; [dispatch] may be called from any
 * thread.
 *
 * @param label labels every step's [dev.lanes.TaskRecord] (null: no label)
 */
class LaneDispatcher(val lane: Lane, private val label: String? = null) : CoroutineDispatcher() {

  override fun dispatch(context: CoroutineContext, block: Runnable) {
    try {
      if (label == null) lane.execute(block) else lane.execute(label, block)
    } catch (e: RejectedExecutionException) {
      val cancellation = LaneRejectedCancellationException(lane.name(), e)
      context[Job]?.cancel(cancellation)
      // The coroutine must still resume to see its cancellation; never on Dispatchers.IO.
      Thread.ofVirtual().name(lane.name() + "-rejected").start(block)
    }
  }

  override fun toString(): String = "LaneDispatcher(lane \"${lane.name()}\")"
}

/**
 * A dispatcher that runs each coroutine step as a task of this lane; see [LaneDispatcher].
 *
 * Named apart from kotlinx's `Executor.asCoroutineDispatcher()` on purpose: a lane is an
 * `ExecutorService`, so that one applies too, and an explicit `import
 * kotlinx.coroutines.asCoroutineDispatcher` would silently win over an extension of the same name.
 */
fun Lane.asLaneDispatcher(label: String? = null): LaneDispatcher = LaneDispatcher(this, label)

/**
 * Runs [block] as one task of this lane, started within [startWithin] or not at all, and suspends
 * until it ends: the coroutine side of [Lane.submit] with a deadline.
 *
 * ```kotlin
 * val user = db.startWithin(200.milliseconds, "load-user") { repository.load(id) }
 * ```
 *
 * Still queued when [startWithin] is up, the task never starts: the lane counts it `EXPIRED` and
 * this throws the lane's [LaneRejectedException] (reason `EXPIRED`; a refusal at submission, a full
 * lane say, throws the same way). Cancelling the coroutine (a `withTimeout` around this, say)
 * cancels the lane's future: a task still queued never starts (the lane counts it `CANCELLED`).
 * A [Duration.INFINITE] or longer than 100 years is read as 100 years.
 */
suspend fun <T> Lane.startWithin(startWithin: Duration, label: String = "", block: () -> T): T {
  val within = if (startWithin.isInfinite()) java.time.Duration.ofDays(36_525)
      else startWithin.toJavaDuration()
  return submit(label, within, Callable { block() }).await()
}

/**
 * The coroutine was cancelled because its lane refused to run it; [cause] is the lane's
 * [LaneRejectedException] (or the [RejectedExecutionException] it threw).
 */
class LaneRejectedCancellationException(val lane: String, rejection: RejectedExecutionException) :
  CancellationException("lane \"$lane\" refused to run this coroutine: ${rejection.message}") {
  init {
    initCause(rejection)
  }

  /** The lane's rejection, with its reason, capacity and counts; null if the lane threw another kind. */
  val rejection: LaneRejectedException?
    get() = cause as? LaneRejectedException
}
