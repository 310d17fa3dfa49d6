package dev.lanes;

/** The kind of work a lane is built for, which decides how it makes threads. */
public enum LaneKind {
  /** CPU-bound work on platform threads; sized to the available processors by default. */
  CPU,
  /** Blocking work (file IO, JDBC, slow calls) on a fixed number of platform threads. */
  BLOCKING,
  /**
   * One virtual thread per running task, at most {@code maxConcurrency} at once; tasks beyond the
   * cap wait in the queue and hold no thread.
   */
  VIRTUAL;

  /**
   * {@return the lower-case name as used in metrics tags and tables ({@code cpu}, {@code
   * blocking}, {@code virtual})}
   */
  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
