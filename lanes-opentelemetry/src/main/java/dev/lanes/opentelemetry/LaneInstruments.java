package dev.lanes.opentelemetry;

import dev.lanes.Lane;
import dev.lanes.TaskRecord;
import io.opentelemetry.api.metrics.BatchCallback;
import java.util.function.Consumer;

/**
 * One lane's registration: its batch callback (the asynchronous instruments) and its task-record
 * listener (the histograms). {@link #close} removes both; a record in flight may still reach a
 * histogram once, which is harmless.
 */
final class LaneInstruments implements AutoCloseable {

  private final Lane lane;
  private final BatchCallback callback;
  private final Consumer<TaskRecord> listener;

  LaneInstruments(Lane lane, BatchCallback callback, Consumer<TaskRecord> listener) {
    this.lane = lane;
    this.callback = callback;
    this.listener = listener;
  }

  Lane lane() {
    return lane;
  }

  @Override
  public void close() {
    lane.removeListener(listener);
    callback.close();
  }
}
