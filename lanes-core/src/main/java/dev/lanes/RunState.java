package dev.lanes;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A lane's run state, RUNNING → SHUTDOWN → STOP → TERMINATED, and waiting for the last. {@link
 * Lifecycle} decides when the state moves; every part reads it.
 *
 * <p><b>Concurrency design.</b> {@link #get} is one volatile read (on every submission and by
 * every worker loop). The state only moves forward, and only under {@link #lock}; TERMINATED is
 * set once, by {@link #terminateIf}, which checks its condition and runs its last act under the
 * same lock before it signals the waiters, so a waiter that returns sees that act done.
 */
final class RunState {
  static final int RUNNING = 0;
  static final int SHUTDOWN = 1;
  static final int STOP = 2;
  static final int TERMINATED = 3;

  private volatile int state = RUNNING;
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled, under {@link #lock}, when the state becomes TERMINATED. */
  private final Condition terminated = lock.newCondition();

  /** The state now. */
  int get() {
    return state;
  }

  /** Moves the state forward to {@code target}; a state already at or past it stays. */
  void advanceTo(int target) {
    lock.lock();
    try {
      if (state < target) {
        state = target;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sets TERMINATED if it is not yet and {@code done} holds, read under the lock; then runs {@code
   * last} and wakes the waiters. True if this call terminated.
   */
  boolean terminateIf(BooleanSupplier done, Runnable last) {
    lock.lock();
    try {
      if (state == TERMINATED || !done.getAsBoolean()) {
        return false;
      }
      state = TERMINATED;
      terminated.signalAll();
      last.run();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} for TERMINATED; true if it was reached. */
  boolean awaitTermination(long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (state != TERMINATED) {
        if (nanos <= 0) {
          return false;
        }
        nanos = terminated.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
