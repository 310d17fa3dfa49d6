package dev.lanes;

/** What a lane does when it finds itself in a nested-submission starvation deadlock. */
public enum DeadlockPolicy {
  /** Raise the DEADLOCKED state, publish a health event and log a diagnostic (the default). */
  REPORT,
  /**
   * Also make the waiting calls fail with {@link LaneDeadlockException} instead of hanging. For
   * waits that go through a future lanes made (its {@code get}/{@code join}), the waiter fails
   * directly; for a {@code CompletableFuture} made elsewhere (e.g. {@code
   * CompletableFuture.runAsync(..., lane)}), the queued child task that everyone waits for is
   * failed with the exception, which completes that future exceptionally and so releases its
   * waiters.
   */
  FAIL,
  /**
   * Temporarily add threads (at most {@link HealthConfig#maxCompensationThreads()}) so the queued
   * children can run; they leave when the queue has drained.
   */
  COMPENSATE
}
