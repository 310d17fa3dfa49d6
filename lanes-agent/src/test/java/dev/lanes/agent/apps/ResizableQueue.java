package dev.lanes.agent.apps;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * A queue whose capacity can change after it is made (public {@code setCapacity(int)}), as some
 * libraries' queues allow: the kind {@code ./lanes attach --set ... queue-capacity=N} can change.
 * Only {@code offer} and {@code remainingCapacity} honour the capacity (what a ThreadPoolExecutor
 * calls).
 */
public final class ResizableQueue extends LinkedBlockingQueue<Runnable> {
  private static final long serialVersionUID = 1L;
  private volatile int capacity;

  public ResizableQueue(int capacity) {
    this.capacity = capacity;
  }

  public void setCapacity(int capacity) {
    this.capacity = capacity;
  }

  @Override public synchronized boolean offer(Runnable task) {
    return size() < capacity && super.offer(task);
  }

  @Override public int remainingCapacity() {
    return Math.max(0, capacity - size());
  }
}
