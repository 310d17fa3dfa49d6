package dev.lanes.bench;

/**
 * One executor under test, reduced to what the benchmarks use: hand it a task, close it. Every
 * benchmark builds these through {@link ExecutorFactory}, so every question is asked of the same
 * set of executors configured the same way.
 */
public interface BenchExecutor extends AutoCloseable {

  /** The executor's benchmark name (a value of the {@code executor} JMH parameter). */
  String name();

  /**
   * Hands one task over. For bounded executors this blocks the caller while the queue is full
   * (see {@link ExecutorFactory} for how each executor does it); it never runs the task on the
   * caller and never drops it.
   */
  void execute(Runnable task);

  /**
   * True if every accepted task gets a thread of its own at once (no queue): a waiting task is a
   * parked virtual thread rather than an entry in a queue.
   */
  boolean threadPerTask();

  /** Shuts the executor down and waits for the tasks it accepted. */
  @Override
  void close();
}
