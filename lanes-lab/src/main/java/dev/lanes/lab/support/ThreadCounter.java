package dev.lanes.lab.support;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread factory wrapper that counts the threads alive at once and remembers the peak: a thread
 * counts from the moment its runnable starts until it returns. Used the same way for every variant
 * an experiment compares (a pool, thread-per-task, a lane), so the peaks compare. Counters are
 * atomics; {@link #peak()} is exact.
 */
public final class ThreadCounter implements ThreadFactory {

  private final ThreadFactory base;
  private final AtomicInteger alive = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final AtomicInteger made = new AtomicInteger();

  public ThreadCounter(ThreadFactory base) {
    this.base = base;
  }

  /** Platform daemon threads named {@code <prefix>-<n>}. */
  public static ThreadCounter platform(String prefix) {
    return new ThreadCounter(Thread.ofPlatform().daemon(true).name(prefix + "-", 1).factory());
  }

  /** Virtual threads named {@code <prefix>-<n>}. */
  public static ThreadCounter virtual(String prefix) {
    return new ThreadCounter(Thread.ofVirtual().name(prefix + "-", 1).factory());
  }

  @Override
  public Thread newThread(Runnable r) {
    made.incrementAndGet();
    return base.newThread(
        () -> {
          int now = alive.incrementAndGet();
          peak.accumulateAndGet(now, Math::max);
          try {
            r.run();
          } finally {
            if (!Thread.currentThread().isVirtual()) {
              ContextSwitches.threadEnding();
            }
            alive.decrementAndGet();
          }
        });
  }

  public int alive() {
    return alive.get();
  }

  public int peak() {
    return peak.get();
  }

  /** Threads made so far. */
  public int made() {
    return made.get();
  }
}
