package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The table, its TSV, {@code /metrics} and the live page's figures over pools of this JVM (no
 * agent: the records are made by hand, as the hooks would).
 */
class PoolTableTest {

  @Test
  void aScheduledPoolsTasksNotYetDueAreScheduledNotQueued() throws Exception {
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(2);
    CountDownLatch release = new CountDownLatch(1);
    try {
      for (int i = 0; i < 5; i++) {
        pool.schedule(() -> { }, 10, TimeUnit.MINUTES);
      }
      for (int i = 0; i < 2; i++) {
        pool.execute(() -> awaitQuietly(release)); // both workers busy
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> pool.getActiveCount() == 2);
      for (int i = 0; i < 3; i++) {
        pool.execute(() -> { }); // due now, behind the busy workers
      }
      Pools pools = new Pools(100);
      PoolRecord r = pools.recordFor(pool, false);
      assertThat(r.view.queued(pool)).isEqualTo(3);
      assertThat(r.view.scheduled(pool)).isEqualTo(5);

      List<PoolTable.Row> rows = PoolTable.rows(pools, System.nanoTime());
      Map<String, String> row = AgentJvm.parse(PoolTable.tsv(rows)).getFirst();
      assertThat(row).containsEntry("queued", "3").containsEntry("scheduled", "5");
      String name = r.name();
      assertThat(MetricsEndpoint.prometheus(rows)).contains(
          "lanes_queue_size{pool=\"" + name + "\",kind=\"scheduled\"} 3\n",
          "# HELP lanes_scheduled_tasks Tasks in a scheduled pool's schedule, not due yet (now)\n",
          "lanes_scheduled_tasks{pool=\"" + name + "\",kind=\"scheduled\"} 5\n");
      assertThat(LiveSeries.statsJson(rows)).contains("\"queued\":3,\"scheduled\":5");
      LiveSeries series = new LiveSeries(0);
      series.tick(LiveSeries.INTERVAL_NANOS, pools.livePools(), (rec, p, now) -> 0);
      assertThat(series.seriesJson()).contains("\"queued\":3,\"scheduled\":5",
          "\"waiting\":3,\"scheduled\":5");
      String text = PoolTable.text(rows, "");
      String[] cells = text.lines().skip(2).findFirst().orElseThrow().split(" +");
      assertThat(cells[3]).isEqualTo("3"); // queued
      assertThat(cells[4]).isEqualTo("5"); // scheduled
      assertThat(text).contains("queued: due and not started; scheduled: in a scheduled pool's"
          + " schedule, not due yet.");
    } finally {
      release.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aPlainPoolSchedulesNothing() {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>());
    Pools pools = new Pools(100);
    assertThat(pools.recordFor(pool, false).view.scheduled(pool)).isZero();
    assertThat(MetricsEndpoint.prometheus(PoolTable.rows(pools, System.nanoTime())))
        .contains("lanes_queue_size{").doesNotContain("lanes_scheduled_tasks{");
  }

  @Test
  void longNamesAreNeverCutSoTwoPoolsSharingAFortyCharacterPrefixAreTwoRows() throws Exception {
    String prefix = "an-application-pool-with-a-name-this-long"; // 41 characters
    ThreadPoolExecutor a = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>());
    ThreadPoolExecutor b = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>());
    Pools pools = new Pools(100);
    pools.nameAfterThread(pools.recordFor(a, false), prefix + "-alpha-1");
    pools.nameAfterThread(pools.recordFor(b, false), prefix + "-beta-1");
    String text = PoolTable.text(PoolTable.rows(pools, System.nanoTime()), "header");
    List<String> rows = text.lines().filter(l -> l.startsWith(prefix)).toList();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0)).isNotEqualTo(rows.get(1));
    assertThat(text).contains(prefix + "-alpha ", prefix + "-beta ").doesNotContain("…");
    // The columns stay aligned: the kind starts at the same place on the header and every row.
    List<String> lines = text.lines().toList();
    int kindAt = lines.get(1).indexOf("kind");
    assertThat(rows).allSatisfy(r -> assertThat(r.indexOf("ThreadPoolExecutor")).isEqualTo(kindAt));
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
