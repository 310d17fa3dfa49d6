package dev.lanes.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The guard's verdicts rest on the check's threads and the CPU it used, not on wall time: a check
 * that ends passes however long it took, a parked one is a stall, a spinning one runs out of its
 * budget.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // a backstop only: the guard's verdicts come first
class ProgressGuardTest {

  @Test
  void aCheckThatEndsReturnsAndWhatItThrowsComesBackAsItWas() {
    AtomicReference<String> ran = new AtomicReference<>();
    ProgressGuard.run("ends", Duration.ofMinutes(1), () -> ran.set(Thread.currentThread().getName()));
    assertThat(ran).hasValue("guarded ends");

    AssertionError failure = new AssertionError("the check's own verdict");
    assertThatThrownBy(() -> ProgressGuard.run("fails", Duration.ofMinutes(1), () -> {
      throw failure;
    })).isSameAs(failure);
  }

  @Test
  void aCheckParkedForAWholeWindowIsAStallAndIsInterrupted() {
    CountDownLatch interrupted = new CountDownLatch(1);
    assertThatThrownBy(() -> ProgressGuard.run("parked", Duration.ofMinutes(1),
        Duration.ofSeconds(3), () -> {
          try {
            new CountDownLatch(1).await(); // never counted down
          } catch (InterruptedException e) {
            interrupted.countDown();
          }
        }))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("\"parked\" made no progress: none of its threads was runnable")
        .hasMessageContaining("hung");
    assertThat(awaitQuietly(interrupted)).as("the parked check was interrupted").isTrue();
  }

  @Test
  void theThreadsTheCheckStartsAreItsOwnWhileItWaitsForThem() throws Exception {
    ProgressGuard.run("waits for a thread it started", Duration.ofMinutes(1), Duration.ofSeconds(2),
        () -> {
          Thread computing = new Thread(() -> Spin.millis(4_000), "computing");
          computing.start();
          try {
            computing.join(); // parked for twice the window while its thread computes
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void aCheckSpinningPastItsCpuBudgetIsALivelockAndIsInterrupted() {
    CountDownLatch interrupted = new CountDownLatch(1);
    assertThatThrownBy(() -> ProgressGuard.run("spinning", Duration.ofMillis(500), () -> {
      while (!Thread.currentThread().isInterrupted()) {
        Spin.millis(1);
      }
      interrupted.countDown();
    }))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("\"spinning\" used ")
        .hasMessageContaining("past its budget of 0.5 s");
    assertThat(awaitQuietly(interrupted)).as("the spinning check was interrupted").isTrue();
  }

  private static boolean awaitQuietly(CountDownLatch latch) {
    try {
      return latch.await(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheGuard() {
    assertThatThrownBy(() -> ProgressGuard.run("x", Duration.ZERO, () -> { }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("progress guard \"x\": needs a positive CPU budget")
        .hasMessageContaining("was budget PT0S");
    assertThatThrownBy(() -> ProgressGuard.run("y", Duration.ofSeconds(1), Duration.ofMillis(10),
        () -> { }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window PT0.01S");
  }
}
