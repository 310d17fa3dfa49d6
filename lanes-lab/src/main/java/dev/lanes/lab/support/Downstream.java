package dev.lanes.lab.support;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A downstream of known capacity: a fair semaphore of {@code capacity} permits guarding a call
 * (a sleep). A caller beyond the capacity waits for a permit in arrival order, so its run time
 * grows with the calls in flight, the way a saturated database or partner API behaves. The
 * capacity can be lowered while calls run ({@link #reduceTo}).
 */
public final class Downstream {

  /** Exposes {@link Semaphore#reducePermits}, which does not wait for permits to come back. */
  private static final class Permits extends Semaphore {
    Permits(int permits) {
      super(permits, true);
    }

    void reduce(int by) {
      reducePermits(by);
    }
  }

  private final Permits permits;
  private volatile int capacity;

  public Downstream(int capacity) {
    this.permits = new Permits(capacity);
    this.capacity = capacity;
  }

  public int capacity() {
    return capacity;
  }

  /** Lowers the capacity; calls already in flight finish, and no more than the new figure run afterwards. */
  public synchronized void reduceTo(int newCapacity) {
    if (newCapacity < capacity) {
      permits.reduce(capacity - newCapacity);
      capacity = newCapacity;
    }
  }

  /** One call of {@code millis}: waits for a permit, then sleeps; an interrupt ends it early. */
  public void call(long millis) {
    try {
      permits.acquire();
      try {
        TimeUnit.MILLISECONDS.sleep(millis);
      } finally {
        permits.release();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
