package dev.lanes;

/** How a task accepted by (or offered to) a lane ended. */
public enum TaskOutcome {
  /** Ran and returned normally. */
  COMPLETED,
  /** Ran and threw. */
  FAILED,
  /** Its future was cancelled, before or while it ran. */
  CANCELLED,
  /** Refused at submission, or dropped from the queue by discard-oldest. */
  REJECTED;

  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
