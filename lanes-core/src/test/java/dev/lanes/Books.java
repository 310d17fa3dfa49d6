package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The books checker of issue #24: after a test, every lane it {@linkplain #track tracked} is shut
 * down, must terminate within {@link Work#PATIENCE_SECONDS}, and its stats must balance — before
 * the shutdown (the books balance in every snapshot, however busy the lane: {@link LaneStats}) and
 * after termination, when nothing may be queued or running any more.
 *
 * <p>Use: {@code @RegisterExtension final Books books = new Books();} in the test class, and
 * {@code books.track(lane)} where a lane is built. JUnit makes a test instance per method, so each
 * test checks its own lanes. A test that already failed is not checked (its lanes are shut down
 * now, so that a failure does not leave threads behind, and the failure is not masked by a second
 * one).
 *
 * <p>{@link #check(Lane)} is the same check for a lane at hand.
 */
final class Books implements AfterEachCallback {
  private final List<Lane> lanes = new CopyOnWriteArrayList<>();

  /** Registers {@code lane} for the check after this test; returns it. */
  <L extends Lane> L track(L lane) {
    lanes.add(lane);
    return lane;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (context.getExecutionException().isPresent()) {
      lanes.forEach(Lane::shutdownNow);
      return;
    }
    for (Lane lane : lanes) {
      check(lane);
    }
  }

  /**
   * Checks {@code lane}'s books now, shuts it down, waits for termination and checks them again:
   * {@code submitted = Σ ended + queued + running}, no negative count or gauge, {@code started ≤
   * submitted}; after termination nothing queued or running and (a virtual lane) no permit held.
   */
  static void check(Lane lane) {
    assertSane(lane.stats(), false);
    lane.shutdown();
    boolean terminated;
    try {
      terminated = lane.awaitTermination(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while awaiting " + lane, e);
    }
    assertThat(terminated)
        .as("%s terminated within %d s of shutdown: %s", lane.name(), Work.PATIENCE_SECONDS, lane)
        .isTrue();
    assertThat(lane.isTerminated()).as("isTerminated after awaitTermination: %s", lane).isTrue();
    LaneStats s = lane.stats();
    assertThat(s.shutdown()).as("stats().shutdown() of %s", s).isTrue();
    assertThat(s.terminated()).as("stats().terminated() of %s", s).isTrue();
    assertSane(s, true);
    if (lane instanceof LaneExecutor e && lane.kind() == LaneKind.VIRTUAL) {
      assertThat(e.permitsInUse()).as("permits held after termination: %s", s).isZero();
    }
  }

  /** The figures one snapshot must show, whatever the lane is doing. */
  private static void assertSane(LaneStats s, boolean terminated) {
    assertThat(s.submitted()).as("submitted in %s", s).isNotNegative();
    assertThat(s.started()).as("started in %s", s).isNotNegative().isLessThanOrEqualTo(s.submitted());
    for (Map.Entry<TaskOutcome, Long> e : s.ended().entrySet()) {
      assertThat(e.getValue()).as("ended %s in %s", e.getKey(), s).isNotNegative();
    }
    assertThat(s.queued()).as("queued in %s", s).isNotNegative();
    assertThat(s.running()).as("running in %s", s).isNotNegative();
    assertThat(s.workers()).as("workers in %s", s).isNotNegative();
    assertThat(s.oldestQueuedNanos()).as("oldestQueuedNanos in %s", s).isNotNegative();
    Work.assertBooksBalance(s);
    if (terminated) {
      assertThat(s.queued()).as("queued after termination in %s", s).isZero();
      assertThat(s.running()).as("running after termination in %s", s).isZero();
      assertThat(s.oldestQueuedNanos()).as("oldest queued after termination in %s", s).isZero();
    }
  }
}
