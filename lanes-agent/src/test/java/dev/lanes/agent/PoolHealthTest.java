package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A pool's health under a lane's rules, on a clock the test moves (no waiting). */
class PoolHealthTest {
  private static final long MS = 1_000_000L;
  private final PoolHealth.State[] from = new PoolHealth.State[1];

  /** Feeds one sample a tick for {@code millis}: tasks waiting {@code wait} ms, running {@code run} ms. */
  private long feed(PoolHealth h, long[] totals, long start, long millis, double wait, double run,
      long rejectedPerTick) {
    long t = start;
    for (; t < start + millis * MS; t += 100 * MS) {
      totals[0] += 10; // ended with a known wait
      totals[1] += (long) (10 * wait * MS);
      totals[2] += 10; // ended
      totals[3] += (long) (10 * run * MS);
      totals[4] += rejectedPerTick;
      h.judge(t, totals[0], totals[1], totals[2], totals[3], totals[4], 0, from);
    }
    return t;
  }

  @Test
  void saturatedAfterWaitAboveRunHeldOneSecondAndOkAfterTwo() {
    PoolHealth h = new PoolHealth(0);
    long[] totals = new long[5];
    long t = feed(h, totals, 0, 900, 5, 2, 0);
    assertThat(h.state()).isEqualTo(PoolHealth.State.OK); // not yet held 1 s
    t = feed(h, totals, t, 300, 5, 2, 0);
    assertThat(h.state()).isEqualTo(PoolHealth.State.SATURATED);
    t = feed(h, totals, t, 6_000, 0.1, 2, 0); // the window still holds the long waits at first
    assertThat(h.state()).isEqualTo(PoolHealth.State.OK);
    assertThat(h.saturatedNanos(t)).isGreaterThan(2_000 * MS);
  }

  @Test
  void anyRejectionInTheWindowIsRejecting() {
    PoolHealth h = new PoolHealth(0);
    long[] totals = new long[5];
    feed(h, totals, 0, 1_500, 0.1, 2, 1);
    assertThat(h.state()).isEqualTo(PoolHealth.State.REJECTING);
  }

  @Test
  void anEventLoopsTasksMayWaitLongerThanTheyRunUpToItsFloor() {
    PoolHealth pool = new PoolHealth(0);
    PoolHealth loop = new PoolHealth(0, PoolHealth.EVENT_LOOP_MIN_WAIT_MILLIS);
    long[] a = new long[5];
    long[] b = new long[5];
    feed(pool, a, 0, 3_000, 5, 0.01, 0); // 5 ms waits behind IO, 10 µs tasks
    feed(loop, b, 0, 3_000, 5, 0.01, 0);
    assertThat(pool.state()).isEqualTo(PoolHealth.State.SATURATED);
    assertThat(loop.state()).isEqualTo(PoolHealth.State.OK);
    feed(loop, b, 3_000 * MS, 3_000, 50, 0.01, 0);
    assertThat(loop.state()).isEqualTo(PoolHealth.State.SATURATED);
  }
}
