package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The health machinery runs no user code under its locks (a listener or a cure's dependent stage
 * that needs the lane's health from another thread does not deadlock), and the health thread
 * survives its own failures.
 */
class HealthThreadTest {

  @Test
  void aHealthListenerRunsOutsideTheMonitorsLock() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    LaneExecutor lane = (LaneExecutor) Lane.blocking("listener-lock", 1).queueCapacity(1)
        .saturationHysteresis(Duration.ZERO, Duration.ZERO)
        .ticker(now::get).build();
    ExecutorService other = Executors.newSingleThreadExecutor();
    CountDownLatch release = Work.occupy(lane);
    try {
      AtomicBoolean otherThreadChecked = new AtomicBoolean();
      lane.onHealth(e -> {
        // Another thread re-checks health while this listener runs: it needs the monitor's lock.
        Future<?> f = other.submit(lane::checkHealth);
        try {
          f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
          otherThreadChecked.set(true);
        } catch (Exception ex) {
          throw new AssertionError("the monitor's lock was held while a listener ran", ex);
        }
      });
      lane.submit(() -> {});
      assertThatThrownBy(() -> lane.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      now.addAndGet(TimeUnit.SECONDS.toNanos(2));
      lane.checkHealth(); // REJECTING: the listener runs on this thread (or the health thread's)
      Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS)).untilTrue(otherThreadChecked);
    } finally {
      release.countDown();
      other.shutdownNow();
      lane.close();
    }
  }

  @Test
  void aDeadlockCuresDependentStageRunsOutsideEveryLock() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Lane lane = Lane.blocking("cure-lock", 1)
        .failOnDeadlock().build()) {
      AtomicBoolean otherThreadChecked = new AtomicBoolean();
      CompletableFuture<String> parent = lane.submit(() -> {
        CompletableFuture<String> child = lane.submit(() -> "child");
        // Failing the child runs this stage; it waits for another thread to analyse health.
        child.whenComplete((v, e) -> {
          try {
            other.submit(() -> ((LaneExecutor) lane).checkHealth()).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
            otherThreadChecked.set(true);
          } catch (Exception ex) {
            throw new AssertionError("a lock was held while the cure completed the future", ex);
          }
        });
        return child.get();
      });
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(LaneRejectedException.class);
      assertThat(otherThreadChecked).isTrue();
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void theHealthThreadSurvivesAFailingLogger() throws Exception {
    Handler throwing = Work.throwOnLog("\"log-fails\"");
    try (Lane failing = Lane.blocking("log-fails", 1).queueCapacity(1)
            .saturationHysteresis(Duration.ZERO, Duration.ZERO).build();
        Lane watched = Lane.blocking("watched", 1).queueCapacity(1)
            .saturationHysteresis(Duration.ZERO, Duration.ZERO).build()) {
      CountDownLatch r1 = Work.occupy(failing);
      CountDownLatch r2 = Work.occupy(watched);
      try {
      failing.submit(() -> {});
      assertThatThrownBy(() -> failing.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      // the health thread logs failing's transition, and its logger throws
      Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> failing.health() == LaneHealth.REJECTING);
      // ... and the same thread goes on watching other lanes
      watched.submit(() -> {});
      assertThatThrownBy(() -> watched.submit(() -> {})).isInstanceOf(LaneRejectedException.class);
      Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> watched.health() == LaneHealth.REJECTING);
      } finally {
        r1.countDown();
        r2.countDown();
      }
    } finally {
      Logger.getLogger("dev.lanes").removeHandler(throwing);
    }
  }
}
