package dev.lanes;

import java.util.List;
import java.util.Objects;

/**
 * How often a virtual lane's tasks pinned their carrier thread — blocked while the JVM could not
 * unmount them (inside a class initializer, under a native frame), so that the carrier, one of the
 * few threads every virtual thread in the JVM shares, waited with them. Read from the JDK's {@code
 * jdk.VirtualThreadPinned} events (pins of at least {@code threshold}), attributed to the lane and
 * the label of the task that ran on the pinned thread; see {@link LaneBuilder#reportPinning()}.
 *
 * @param reported this lane reports pinning; if false every figure is 0
 * @param count pins seen
 * @param totalNanos their total time
 * @param longestNanos the longest one
 * @param sites where they happened, the most total time first, at most {@link #MAX_SITES}
 */
public record Pinning(
    boolean reported, long count, long totalNanos, long longestNanos, List<Site> sites) {

  /** The most sites kept per lane (further sites are counted in the lane's totals only). */
  public static final int MAX_SITES = 8;

  /** A lane that does not report pinning. */
  public static final Pinning NOT_REPORTED = new Pinning(false, 0, 0, 0, List.of());

  /**
   * Makes a snapshot; {@code sites} is copied.
   *
   * @throws NullPointerException if {@code sites} is null
   */
  public Pinning {
    sites = List.copyOf(Objects.requireNonNull(sites, "sites"));
  }

  /**
   * One place where tasks pinned their carrier.
   *
   * @param frame the first frame of the pinned thread's stack outside the JDK ({@code
   *     "com.example.Tariffs.<clinit>:42"}), or the top frame if all are the JDK's
   * @param stack the top frames of the stack, one per line
   * @param reason the JDK's reason ({@code pinnedReason}, e.g. "VM call to Foo.<clinit> on stack")
   * @param label the label of the last task that pinned here ({@code ""} for none)
   * @param count pins at this site
   * @param totalNanos their total time
   * @param longestNanos the longest one
   */
  public record Site(String frame, String stack, String reason, String label, long count,
      long totalNanos, long longestNanos) {}
}
