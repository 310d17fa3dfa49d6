package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sampled mode ({@code sample=N}) as every consumer of a pool's figures shows it: counts over
 * every task, times over the timed ones, and the mode said beside them. Driven through the sink's
 * calls on this thread, as the hooks make them.
 */
class SampledFiguresTest {
  private final Pools pools = new Pools(100, 2);
  private final StampTable stamps = new StampTable(100_000);
  private final AgentSink sink = new AgentSink(stamps, pools, 2);
  private final ThreadPoolExecutor pool =
      new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());

  private PoolRecord.Snapshot runTasks(int tasks) {
    for (int i = 0; i < tasks; i++) {
      Runnable task = () -> { };
      sink.submitted(pool, task);
      sink.ended(sink.started(pool, task), i % 4 == 0 ? new RuntimeException() : null);
    }
    return pools.recordFor(pool, false).snapshot(System.nanoTime());
  }

  @Test
  void theTableTsvMetricsAndLiveSeriesCountEveryTaskAndTimeTheSampledOnes() {
    PoolRecord.Snapshot s = runTasks(1_000);
    assertThat(s.ended()).isEqualTo(1_000);
    assertThat(s.failed()).isEqualTo(250);
    assertThat(s.timed()).isBetween(350L, 650L); // binomial(1,000, 1/2): 500 ± 16
    List<PoolTable.Row> rows = List.of(new PoolTable.Row(s, 1, 1, 0, 0, 0));

    Map<String, String> row = AgentJvm.parse(PoolTable.tsv(rows)).getFirst();
    assertThat(row).containsEntry("tasks", "1000").containsEntry("failed", "250")
        .containsEntry("timed_tasks", String.valueOf(s.timed())).containsEntry("timed_one_in", "2")
        .containsEntry("unknown_wait", "0");
    assertThat(Double.parseDouble(row.get("run_mean_ms")))
        .isEqualTo((double) s.runSum() / s.timed() / 1e6);
    assertThat(PoolTable.text(rows, "header")).contains(PoolTable.sampledNote(2),
        "timed 1 task in 2 of each thread pool (option sample=2)");

    String metrics = MetricsEndpoint.prometheus(rows);
    String tags = "{pool=\"" + s.name() + "\",kind=\"thread_pool\"}";
    assertThat(metrics).contains(
        "lanes_task_run_seconds_count" + tags + " " + s.timed() + "\n",
        "lanes_task_wait_seconds_count" + tags + " " + s.waitedTasks() + "\n",
        "sampled: a thread pool times 1 task in 2 (agent option sample=2), and these figures are"
            + " over its timed tasks only",
        "outcome=\"completed\",rejected=\"false\"} 750\n");

    LiveSeries series = new LiveSeries(0);
    series.tick(LiveSeries.INTERVAL_NANOS, pools.livePools(), (rec, p, now) -> 0);
    assertThat(series.seriesJson()).contains("\"ended\":1000");
    runTasks(10);
    series.tick(2 * LiveSeries.INTERVAL_NANOS, pools.livePools(), (rec, p, now) -> 0);
    assertThat(series.seriesJson()).contains("\"ended\":10,");
  }

  @Test
  void exactModeSaysNothingOfSampling() {
    Pools exact = new Pools(100);
    AgentSink every = new AgentSink(stamps, exact);
    Runnable task = () -> { };
    every.submitted(pool, task);
    every.ended(every.started(pool, task), null);
    List<PoolTable.Row> rows = PoolTable.rows(exact, System.nanoTime());
    assertThat(rows.getFirst().s().timed()).isEqualTo(1);
    assertThat(PoolTable.text(rows, "header")).doesNotContain("timed 1 task in");
    assertThat(MetricsEndpoint.prometheus(rows)).doesNotContain("sampled");
    assertThat(AgentJvm.parse(PoolTable.tsv(rows)).getFirst()).containsEntry("timed_one_in", "1");
  }

  @Test
  void theHealthsBusyTimeScalesTheTimedRunsToEveryTaskThatEnded() {
    // {waitedTasks, waitSum, timed, runSum, ended}
    assertThat(Watchdog.endedRunNanos(new long[] {10, 5, 10, 400, 40})).isEqualTo(1_600);
    assertThat(Watchdog.endedRunNanos(new long[] {40, 5, 40, 400, 40})).isEqualTo(400);
    assertThat(Watchdog.endedRunNanos(new long[] {0, 0, 0, 0, 40})).isZero();
  }

  @Test
  void anUnstampedHeadAgesWhileItStaysAtTheHeadAndNoTaskEnds() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try {
      pool.execute(() -> awaitQuietly(release)); // the only worker is busy
      Runnable head = () -> { };
      pool.execute(head); // queued, never stamped (no agent here)
      PoolRecord r = pools.recordFor(pool, false);
      Watchdog watchdog = new Watchdog(pools, stamps, new AgentOptions(), new Warnings());
      long t0 = 1_000_000_000L;
      assertThat(watchdog.oldestQueuedNanos(r, pool, t0)).isZero(); // first sight
      assertThat(watchdog.oldestQueuedNanos(r, pool, t0 + 5_000_000_000L)).isEqualTo(5_000_000_000L);
      runTasks(1); // a task of the pool ended: the head may be a new one
      r.sums();
      assertThat(watchdog.oldestQueuedNanos(r, pool, t0 + 6_000_000_000L)).isZero();
      assertThat(watchdog.oldestQueuedNanos(r, pool, t0 + 7_000_000_000L)).isEqualTo(1_000_000_000L);
    } finally {
      release.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
