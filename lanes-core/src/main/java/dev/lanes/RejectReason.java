package dev.lanes;

/** Why a lane refused or dropped a task. */
public enum RejectReason {
  /** The queue was full and the policy was {@link OverflowPolicy#reject()}. */
  QUEUE_FULL,
  /** The queue stayed full for the whole {@link OverflowPolicy#blockCaller} timeout. */
  BLOCK_TIMEOUT,
  /** The lane was shut down. */
  SHUTDOWN,
  /** An accepted, queued task was dropped to make room ({@link OverflowPolicy#discardOldest()}). */
  DISCARDED_OLDEST,
  /** A virtual lane could not start a thread for the task. */
  THREAD_START_FAILED
}
