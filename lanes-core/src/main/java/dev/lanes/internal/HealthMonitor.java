package dev.lanes.internal;

import dev.lanes.HealthConfig;
import dev.lanes.HealthEvent;
import dev.lanes.LaneHealth;
import dev.lanes.Subscription;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** A lane's health state (placeholder until the health issue lands: always OK). */
final class HealthMonitor {
  private final LaneExecutor lane;
  private final HealthConfig config;
  private final CopyOnWriteArrayList<Consumer<? super HealthEvent>> listeners =
      new CopyOnWriteArrayList<>();
  private volatile LaneHealth state = LaneHealth.OK;

  HealthMonitor(LaneExecutor lane, HealthConfig config) {
    this.lane = lane;
    this.config = config;
  }

  static void register(LaneExecutor lane) {}

  static void unregister(LaneExecutor lane) {}

  LaneHealth state() {
    return state;
  }

  long saturatedNanos(long now) {
    return 0;
  }

  Subscription subscribe(Consumer<? super HealthEvent> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  void workerWaits(Worker w, LaneFuture<?> future) {}
}
