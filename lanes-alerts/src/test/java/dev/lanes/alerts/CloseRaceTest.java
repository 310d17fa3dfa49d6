package dev.lanes.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #40: {@link LaneAlerts#close()} racing {@link Lanes#add}. An add never throws because the
 * alerts watching its set were closed meanwhile, every lane added is in the set, and a closed
 * instance watches nothing, not even a lane whose add it raced.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CloseRaceTest {
  private static final int ROUNDS = 1_000;
  private static final int ADDERS = 3;
  private static final int LANES_PER_ADDER = 3;

  @Test
  void anAddRacingCloseNeverThrowsAndAClosedInstanceWatchesNothing() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      List<Throwable> thrown = new CopyOnWriteArrayList<>();
      try (Lanes lanes = Lanes.of(Lane.blocking("first", 1))) {
        LaneAlerts alerts = LaneAlerts.builder().manualChecks().sink(alert -> { }).build();
        alerts.watch(lanes);
        CyclicBarrier start = new CyclicBarrier(ADDERS + 1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < ADDERS; t++) {
          String prefix = "r" + round + "-t" + t + "-";
          threads.add(Thread.ofPlatform().name("adder-" + t).start(() -> {
            try {
              start.await();
              for (int k = 0; k < LANES_PER_ADDER; k++) {
                lanes.add(Lane.blocking(prefix + k, 1));
              }
            } catch (Throwable e) {
              thrown.add(e);
            }
          }));
        }
        threads.add(Thread.ofPlatform().name("closer").start(() -> {
          try {
            start.await();
            alerts.close();
          } catch (Throwable e) {
            thrown.add(e);
          }
        }));
        for (Thread t : threads) {
          t.join(TimeUnit.SECONDS.toMillis(30));
          assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
        }
        assertThat(thrown).as("round " + round).isEmpty();
        assertThat(lanes.names()).hasSize(1 + ADDERS * LANES_PER_ADDER);
        assertThat(alerts.watching()).as("closed: watches nothing").isEmpty();
        lanes.add(Lane.blocking("after-close", 1)); // the set's listeners are gone or quiet
        assertThat(alerts.watching()).isEmpty();
      }
    }
  }
}
