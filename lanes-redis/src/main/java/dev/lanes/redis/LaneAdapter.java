package dev.lanes.redis;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * Every use lanes-redis's library code makes of lanes-core's API, in one place, so that a change of
 * that API is ported here (plus the parameter type of {@link SharedCap#builder}). A shared cap
 * needs a lane's name, its local cap, its queue's capacity, a way to submit a (labelled) task, and
 * to recognise the lane's own refusals. The harness and the tests also build lanes with {@code
 * Lane.virtual(name, concurrency).queueCapacity(n).build()}.
 */
final class LaneAdapter {

  private final Lane lane;
  private final int queueCapacity;

  LaneAdapter(Lane lane) {
    this.lane = Objects.requireNonNull(lane, "lane");
    this.queueCapacity = lane.queueCapacity();
  }

  String name() {
    return lane.name();
  }

  /** The lane's local cap now: threads of a platform lane, the cap of a virtual one. */
  int concurrency() {
    return lane.concurrency();
  }

  /** The capacity of the lane's bounded queue, read once when the shared cap is built. */
  int queueCapacity() {
    return queueCapacity;
  }

  /** Submits {@code task}, labelled when {@code label} is not null. */
  <T> CompletableFuture<T> submit(String label, Callable<T> task) {
    return label == null ? lane.submit(task) : lane.submit(label, task);
  }

  /** Whether {@code failure} is the lane refusing a task (not the task failing). */
  static boolean isLaneRejection(Throwable failure) {
    return failure instanceof LaneRejectedException;
  }
}
