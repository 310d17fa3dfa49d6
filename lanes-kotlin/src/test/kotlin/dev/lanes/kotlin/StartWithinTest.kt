package dev.lanes.kotlin

import dev.lanes.Lane
import dev.lanes.LaneRejectedException
import dev.lanes.TaskOutcome
import dev.lanes.testkit.Occupied
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.time.Duration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test

/** [startWithin]: a lane task with a deadline to start, awaited by a coroutine. */
class StartWithinTest {

  @Test
  fun aTaskStillQueuedAtItsDeadlineNeverStartsAndTheCallThrowsTheLanesReason() {
    Lane.blocking("db", 1).build().use { lane ->
      val release = Occupied.oneThreadOf(lane)
      val ran = AtomicBoolean()
      assertThatThrownBy {
        runBlocking { lane.startWithin(50.milliseconds, "lookup") { ran.set(true); "late" } }
      }.isInstanceOfSatisfying(LaneRejectedException::class.java) {
        assertThat(it.reason()).isEqualTo(TaskOutcome.EXPIRED)
        assertThat(it.message).contains("\"db\"", "had to start within 50.0 ms")
      }
      release.close()
      assertThat(runBlocking { lane.startWithin(30.seconds) { "in time" } }).isEqualTo("in time")
      assertThat(ran).isFalse()
      assertThat(lane.stats().count(TaskOutcome.EXPIRED)).isEqualTo(1)
    }
  }

  @Test
  fun withTimeoutAroundItCancelsTheQueuedTaskWhichNeverStarts() {
    val lane = Lane.blocking("partner", 1).build()
    val release = Occupied.oneThreadOf(lane)
    val ran = AtomicBoolean()
    assertThatThrownBy {
      runBlocking { withTimeout(50) { lane.startWithin(1.hours) { ran.set(true) } } }
    }.isInstanceOf(TimeoutCancellationException::class.java)
    await().until { lane.stats().cancelled() == 1L }
    release.close()
    lane.close()
    assertThat(ran).isFalse()
    assertThat(lane.stats().completed()).isEqualTo(1) // the occupying task only
  }

  @Test
  fun absurdDeadlinesAreRefusedOrCapped() {
    Lane.blocking("edges", 1).build().use { lane ->
      for (d in listOf(Duration.ZERO, (-5).milliseconds)) {
        assertThatThrownBy { runBlocking { lane.startWithin(d) { 1 } } }
            .isInstanceOfSatisfying(LaneRejectedException::class.java) {
              assertThat(it.reason()).isEqualTo(TaskOutcome.EXPIRED)
            }
      }
      assertThat(runBlocking { lane.startWithin(Duration.INFINITE) { 2 } }).isEqualTo(2)
      assertThat(runBlocking { lane.startWithin((365 * 1000).toDouble().let { (it * 24).hours }) { 3 } })
          .isEqualTo(3)
    }
  }
}
