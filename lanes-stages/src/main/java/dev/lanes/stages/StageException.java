package dev.lanes.stages;

import java.io.Serial;

/**
 * An item of a {@link Pipeline} did not get through one of its stages. The item's future fails
 * with this exception (so {@code join()} throws a {@code CompletionException} and {@code get()} an
 * {@code ExecutionException} whose cause it is); it names the pipeline and the stage and keeps what
 * went wrong as its cause:
 *
 * <ul>
 *   <li>{@link #rejected()} false: the stage's function threw; the cause is what it threw.
 *   <li>{@link #rejected()} true: the stage's lane refused the item when it was handed in (a
 *       {@code LaneRejectedException}: full, block-caller timeout, shut down) or dropped it before
 *       it ran (discard-oldest or {@code shutdownNow}: a {@code CancellationException}; a
 *       starvation deadlock broken, a virtual thread that could not start: a {@code
 *       LaneRejectedException}); the stage's function never saw the item.
 * </ul>
 */
public final class StageException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String pipeline;
  private final String stage;
  private final int stageIndex;
  private final boolean rejected;

  StageException(String pipeline, String stage, int stageIndex, int stageCount, boolean rejected,
      Throwable cause) {
    super("pipeline \"" + pipeline + "\", stage \"" + stage + "\" (" + (stageIndex + 1) + " of "
        + stageCount + "): " + (rejected ? "rejected: " : "failed: ") + cause, cause);
    this.pipeline = pipeline;
    this.stage = stage;
    this.stageIndex = stageIndex;
    this.rejected = rejected;
  }

  /** {@return the pipeline's name} */
  public String pipeline() {
    return pipeline;
  }

  /** {@return the name of the stage the item did not get through} */
  public String stage() {
    return stage;
  }

  /** {@return the stage's position in the pipeline, from 0} */
  public int stageIndex() {
    return stageIndex;
  }

  /**
   * {@return true if the stage's lane refused or dropped the item before the stage's function saw
   * it; false if the function threw}
   */
  public boolean rejected() {
    return rejected;
  }
}
