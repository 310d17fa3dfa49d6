package dev.lanes.agent.apps;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An application that uses lanes: a one-thread lane whose task joins a {@code runAsync} task
 * queued behind it. lanes proves that deadlock only where {@code java.util.concurrent} is open to
 * it; this app's JVM has no {@code --add-opens}. Prints the lane's health once it settled.
 */
public final class LaneDeadlockApp {
  public static void main(String[] args) throws Exception {
    Lane lane = Lane.blocking("nested", 1).build();
    lane.execute(() -> CompletableFuture.runAsync(() -> { }, lane).join());
    // Without the agent the lane can only suspect the deadlock (SATURATED): give it 3 s.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (lane.stats().health() != LaneHealth.DEADLOCKED && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // polling the lane's state
    }
    System.out.println("health: " + lane.stats().health());
    Runtime.getRuntime().halt(0); // the lane's thread stays blocked: end here
  }
}
