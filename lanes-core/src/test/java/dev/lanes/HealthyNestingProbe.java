package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Run by {@link DeadlockRaceTest} in a JVM of its own with {@code
 * -Dlanes.virtualKeepAliveMicros=0} (read once, when {@link Worker} is loaded), so that virtual
 * workers start and end around every task: healthy nesting on virtual lanes in which a worker is
 * always free for each child (at most half the cap in parents). Prints how often lanes called it a
 * deadlock and how many healthy tasks its FAIL policy failed.
 */
public final class HealthyNestingProbe {
  private HealthyNestingProbe() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(args[0]);
    AtomicInteger deadlocked = new AtomicInteger();
    int failed = 0;
    for (int cap : new int[] {2, 4}) {
      try (Lane lane = Lane.virtual("healthy-v" + cap, cap).failOnDeadlock().build()) {
        lane.onHealth(e -> {
          if (e.to() == LaneHealth.DEADLOCKED) {
            deadlocked.incrementAndGet();
          }
        });
        for (int r = 0; r < rounds; r++) {
          List<CompletableFuture<String>> parents = new ArrayList<>();
          for (int p = 0; p < cap / 2; p++) {
            parents.add(lane.submit(() -> lane.submit(() -> "child").get()));
          }
          for (CompletableFuture<String> parent : parents) {
            try {
              parent.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
              failed++;
            }
          }
        }
      }
    }
    System.out.println("deadlocked=" + deadlocked.get());
    System.out.println("failed=" + failed);
  }
}
