package dev.lanes;

/**
 * A worker as its pool and the deadlock analysis see it: its thread, the task it runs and what it
 * waits on. Neither names the class that runs tasks ({@link Worker}).
 */
interface PoolWorker extends Runnable, LaneFuture.WaitTracker.Waiter {

  /** What a worker is to the pool. */
  enum Kind {
    /** A platform lane's thread, for the lane's life or until it retires. */
    CORE,
    /** A virtual lane's thread, holding a permit. */
    ELASTIC,
    /** An extra thread that runs one deadlocked task and ends. */
    COMPENSATION
  }

  Kind kind();

  /** The thread running it, or null before it is attached or has run. */
  Thread thread();

  void attach(Thread t);

  /** A compensation worker's one task, claimed before its thread starts. */
  void assign(LaneFuture<?> task);

  /** Parked at the lane's gate now. */
  boolean atGate();

  /** Inside a task now. */
  boolean isRunningTask();

  /** The task it runs now, or null. */
  LaneFuture<?> current();

  /** Its thread has entered lanes' code. */
  boolean entered();

  /** Parked idle in the lane's ring, waiting for work. */
  boolean idle();

  void interruptNow();

  /** Its thread died before it ran lanes' code (a thread factory's wrapper ended it). */
  boolean diedBeforeRunning();

  /** Runs the exit path of a worker whose thread died before it ran (see above). */
  void exitDead();
}
