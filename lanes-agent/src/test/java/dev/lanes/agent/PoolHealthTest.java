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

  /**
   * As {@link #feed}, with {@code threads} workers busy {@code busyShare} of the time (their busy
   * time so far in {@code totals[5]}).
   */
  private long feedBusy(PoolHealth h, long[] totals, long start, long millis, double wait,
      double run, double busyShare, int threads) {
    long t = start;
    for (; t < start + millis * MS; t += 100 * MS) {
      totals[0] += 10;
      totals[1] += (long) (10 * wait * MS);
      totals[2] += 10;
      totals[3] += (long) (10 * run * MS);
      totals[5] += (long) (busyShare * threads * 100 * MS);
      h.judge(t, totals[0], totals[1], totals[2], totals[3], totals[4], 0, totals[5], threads, from);
    }
    return t;
  }

  @Test
  void aPoolWhoseWorkersAreIdleIsNeverSaturatedWhateverItsTasksWaited() {
    PoolHealth idle = new PoolHealth(0);
    PoolHealth busy = new PoolHealth(0);
    long[] a = new long[6];
    long[] b = new long[6];
    // Tasks started 5 ms late, ran 10 µs: late wake-ups on a busy host, the workers 1 % busy.
    feedBusy(idle, a, 0, 10_000, 5, 0.01, 0.01, 2);
    assertThat(idle.state()).isEqualTo(PoolHealth.State.OK);
    assertThat(idle.why).contains("workers busy 1 %");
    // The same waits with the workers busy (at the rule's half) are queueing: SATURATED.
    feedBusy(busy, b, 0, 3_000, 5, 0.01, PoolHealth.BUSY_SHARE_PERCENT / 100.0, 2);
    assertThat(busy.state()).isEqualTo(PoolHealth.State.SATURATED);
  }

  @Test
  void theBusyShareIsTheLastSecondsSoABurstAfterIdleTimeSaturates() {
    PoolHealth h = new PoolHealth(0);
    long[] totals = new long[6];
    long t = feedBusy(h, totals, 0, 4_000, 0, 0.01, 0, 2); // 4 s idle: the window is mostly idle
    feedBusy(h, totals, t, 2_000, 20, 10, 1.0, 2); // then every worker busy, tasks wait 20 ms
    assertThat(h.state()).isEqualTo(PoolHealth.State.SATURATED);
  }

  @Test
  void aScheduledPoolsLatenessUpToItsFloorIsNotSaturation() {
    PoolHealth plain = new PoolHealth(0, PoolHealth.minWaitMillis(PoolKind.THREAD_POOL));
    PoolHealth scheduled = new PoolHealth(0, PoolHealth.minWaitMillis(PoolKind.SCHEDULED));
    long[] a = new long[6];
    long[] b = new long[6];
    // 10 ms late, 1 ms tasks, workers fully busy: queueing for a plain pool, not for a scheduled one.
    feedBusy(plain, a, 0, 3_000, 10, 1, 1.0, 1);
    long t = feedBusy(scheduled, b, 0, 3_000, 10, 1, 1.0, 1);
    assertThat(plain.state()).isEqualTo(PoolHealth.State.SATURATED);
    assertThat(scheduled.state()).isEqualTo(PoolHealth.State.OK);
    assertThat(PoolHealth.SCHEDULED_MIN_WAIT_MILLIS).isEqualTo(25);
    feedBusy(scheduled, b, t, 5_000, 40, 1, 1.0, 1); // later than the floor: saturated
    assertThat(scheduled.state()).isEqualTo(PoolHealth.State.SATURATED);
    assertThat(scheduled.why).contains("(floor)");
  }

  @Test
  void busyTimeOfTasksStillRunningCountsSoAStuckPoolSaturates() {
    PoolHealth h = new PoolHealth(0);
    // Two workers each in a task that never ends: nothing ended, the busy time is theirs so far.
    for (long t = 0; t <= 3_000 * MS; t += 100 * MS) {
      h.judge(t, 0, 0, 0, 0, 0, t, 2 * t, 2, from); // the oldest queued task waits since 0
    }
    assertThat(h.state()).isEqualTo(PoolHealth.State.SATURATED);
  }

  private static final java.util.regex.Pattern FIGURES = java.util.regex.Pattern.compile(
      "queue wait ([0-9.]+) ms .*threshold ([0-9.]+) ms");

  private static void assertWaitAboveThreshold(String why) {
    java.util.regex.Matcher m = FIGURES.matcher(why);
    assertThat(m.find()).as(why).isTrue();
    assertThat(Double.parseDouble(m.group(1))).as(why).isGreaterThan(Double.parseDouble(m.group(2)));
  }

  @Test
  void aSaturatedPoolsFiguresShowItsWaitAboveItsThresholdEvenWhileItRecovers() {
    PoolHealth h = new PoolHealth(0);
    long[] totals = new long[6];
    long t = feedBusy(h, totals, 0, 1_500, 5, 2, 1.0, 1);
    assertThat(h.state()).isEqualTo(PoolHealth.State.SATURATED);
    assertWaitAboveThreshold(h.why);
    // The waits fall below the threshold: the state holds 2 s more, quoting what made it.
    for (int i = 0; i < 60; i++) {
      t = feedBusy(h, totals, t, 100, 0.01, 2, 1.0, 1);
      if (h.state() == PoolHealth.State.SATURATED) {
        assertWaitAboveThreshold(h.why);
      }
    }
    assertThat(h.state()).isEqualTo(PoolHealth.State.OK);
  }

  @Test
  void aWaitJustAboveItsThresholdIsPrintedAboveIt() {
    PoolHealth h = new PoolHealth(0);
    long[] totals = new long[6];
    feedBusy(h, totals, 0, 1_500, 1.04, 0.01, 1.0, 1); // 1.04 ms over the 1 ms floor
    assertThat(h.state()).isEqualTo(PoolHealth.State.SATURATED);
    assertWaitAboveThreshold(h.why);
    assertThat(h.why).contains("queue wait 1.04 ms", "threshold 1.00 ms (floor)");
    assertWaitAboveThreshold(PoolHealth.figures(1_000_001, 0, 0, 1_000_000, true, Double.NaN, 0));
  }
}
