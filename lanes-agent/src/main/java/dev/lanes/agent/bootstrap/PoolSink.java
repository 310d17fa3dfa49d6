package dev.lanes.agent.bootstrap;

import java.util.List;

/**
 * What the instrumented pools report, implemented by the agent (in the agent's class loader) and
 * called through {@link PoolBridge} (in the bootstrap class loader, so that the JDK's own classes
 * can call it). Every method may be called concurrently from any thread; none may throw (the
 * bridge turns the agent off if one does).
 */
public interface PoolSink {
  /** {@code pool}'s constructor returned. */
  void created(Object pool);

  /** {@code task} enters {@code pool.execute}. */
  void submitted(Object pool, Object task);

  /** {@code pool.execute(task)} threw {@code thrown} to its caller: the task was not accepted. */
  void notAccepted(Object pool, Object task, Throwable thrown);

  /** The pool's rejection handler is about to be called for {@code task}; returns its stamp. */
  long rejecting(Object pool, Object task);

  /**
   * The rejection handler returned ({@code thrown == null}: it discarded or ran the task itself)
   * or threw; {@code stamp} is what {@link #rejecting} returned.
   */
  void rejected(Object pool, Object task, long stamp, Throwable thrown);

  /** {@code pool.remove(task)} took the task out of the queue. */
  void removed(Object pool, Object task);

  /** {@code pool.shutdownNow()} returned these never-started tasks to its caller. */
  void drained(Object pool, List<?> tasks);

  /**
   * A worker of {@code pool} is about to run {@code task}; the returned token goes to {@link
   * #ended} on the same thread, in a {@code finally}.
   */
  Object started(Object pool, Object task);

  /** The task behind {@code token} returned ({@code failure == null}) or threw. */
  void ended(Object token, Throwable failure);

  /**
   * The current thread entered a {@code runWorker} that times its tasks itself (one instrumented
   * before the thread started); {@link #beforeExecute}/{@link #afterExecute} then do nothing.
   */
  void workerEntered();

  /**
   * A pool's {@code beforeExecute} hook was called: when the agent was attached to a running JVM,
   * the pool's existing workers run the {@code runWorker} loaded before the agent, and are timed
   * from this hook to {@link #afterExecute}.
   */
  void beforeExecute(Object pool, Object task);

  /** A pool's {@code afterExecute} hook was called; see {@link #beforeExecute}. */
  void afterExecute(Object pool, Object task, Throwable failure);

  /**
   * The current thread enters a method of the Netty event loop {@code loop} that runs the loop's
   * tasks; returns what {@link #loopExited} restores (these methods nest).
   */
  Object loopEntered(Object loop);

  /** Leaves what {@link #loopEntered} entered; {@code previous} is what it returned. */
  void loopExited(Object previous);

  /**
   * Netty's {@code runTask(task)} is about to run {@code task}: if the current thread is inside a
   * loop's task-running method, the task starts for that loop; returns a token for {@link
   * #loopTaskEnded} (null when the thread runs no loop).
   */
  Object loopTaskStarted(Object task);

  /** The task behind {@code token} returned or threw; a null token does nothing. */
  void loopTaskEnded(Object token, Object task, Throwable failure);

  /** The event loop {@code pool} put {@code task} in its schedule, to run at its due time. */
  void scheduled(Object pool, Object task);

  /**
   * The current thread, an event loop's, starts handling the IO events its selector returned
   * (its channels' handlers run now); returns a token for {@link #loopIoEnded}, or null.
   */
  Object loopIoStarted();

  /** The IO events of {@link #loopIoStarted} were handled; a null token does nothing. */
  void loopIoEnded(Object token);

  /**
   * The current thread begins to serve one HTTP request (Tomcat's {@code CoyoteAdapter.service}):
   * it counts for the task the thread runs now, if any.
   */
  void requestStarted();

  /** The sink that records nothing: before the agent is ready, and after it turned itself off. */
  PoolSink OFF = new PoolSink() {
    @Override public void created(Object pool) {}
    @Override public void submitted(Object pool, Object task) {}
    @Override public void notAccepted(Object pool, Object task, Throwable thrown) {}
    @Override public long rejecting(Object pool, Object task) { return Long.MIN_VALUE; }
    @Override public void rejected(Object pool, Object task, long stamp, Throwable thrown) {}
    @Override public void removed(Object pool, Object task) {}
    @Override public void drained(Object pool, List<?> tasks) {}
    @Override public Object started(Object pool, Object task) { return null; }
    @Override public void ended(Object token, Throwable failure) {}
    @Override public void workerEntered() {}
    @Override public void beforeExecute(Object pool, Object task) {}
    @Override public void afterExecute(Object pool, Object task, Throwable failure) {}
    @Override public Object loopEntered(Object loop) { return null; }
    @Override public void loopExited(Object previous) {}
    @Override public Object loopTaskStarted(Object task) { return null; }
    @Override public void loopTaskEnded(Object token, Object task, Throwable failure) {}
    @Override public void scheduled(Object pool, Object task) {}
    @Override public Object loopIoStarted() { return null; }
    @Override public void loopIoEnded(Object token) {}
    @Override public void requestStarted() {}
  };
}
