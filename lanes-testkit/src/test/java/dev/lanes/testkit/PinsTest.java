package dev.lanes.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PinsTest {
  /** Every call runs a fresh class initializer: each sleeps at least the time asked. */
  @Test
  void everyCallSleepsInAClassInitializerOfItsOwn() throws Exception {
    for (int i = 0; i < 3; i++) {
      long[] took = new long[1];
      Thread t = Thread.ofVirtual().start(() -> {
        long t0 = System.nanoTime();
        Pins.sleepInClassInitializer(Duration.ofMillis(30));
        took[0] = System.nanoTime() - t0;
      });
      t.join();
      assertThat(took[0]).as("call %d", i).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
    }
  }

  /** The occupying task holds its thread until closed, and only until then. */
  @Test
  void occupiedHoldsTheThreadUntilClosed() throws Exception {
    try (var pool = java.util.concurrent.Executors.newSingleThreadExecutor()) {
      Occupied held = Occupied.oneThreadOf(pool);
      var next = pool.submit(() -> "next");
      assertThat(next.isDone()).isFalse();
      held.close();
      assertThat(next.get(30, TimeUnit.SECONDS)).isEqualTo("next");
    }
  }
}
