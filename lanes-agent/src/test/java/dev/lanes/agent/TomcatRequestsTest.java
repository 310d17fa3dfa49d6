package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The requests a pool's tasks serve, counted apart from the tasks, with the invariant the agent
 * guarantees: the requests' wait sum is the wait sum of the tasks that served requests (a task's
 * first request waited the task's queue wait, a later one none). Driven through the sink's calls
 * on this thread, as the hooks make them; the pool object is never started.
 */
class TomcatRequestsTest {
  private final Pools pools = new Pools(100);
  private final StampTable stamps = new StampTable(1_000);
  private final AgentSink sink = new AgentSink(stamps, pools);
  private final ThreadPoolExecutor pool =
      new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());

  @Test
  void aTasksFirstRequestWaitedItsQueueWaitAndItsLaterOnesNone() {
    sink.requestStarted(); // on a thread that runs no task: no pool's request
    runTask(5_000_000, 3); // a kept-alive connection: three requests read by one task
    runTask(2_000_000, 1);

    PoolRecord.Snapshot s = snapshot();
    assertThat(s.ended()).isEqualTo(2);
    assertThat(s.requests().count()).isEqualTo(4);
    assertThat(s.requests().tasks()).isEqualTo(2);
    assertThat(s.requests().waited()).isEqualTo(4);
    assertThat(s.requests().waitSum()).isEqualTo(s.waitSum()).isGreaterThanOrEqualTo(7_000_000);
    // Two requests of four waited for no thread: the median request waited nothing.
    assertThat(s.requests().waits().getValueAtPercentile(50)).isZero();
    assertThat(s.requests().waits().getMaxValue()).isEqualTo(s.waits().getMaxValue());

    // A task that served no request (a connection closed) is a task, not a request.
    runTask(1_000_000, 0);
    PoolRecord.Snapshot after = snapshot();
    assertThat(after.ended()).isEqualTo(3);
    assertThat(after.requests().count()).isEqualTo(4);
    assertThat(after.requests().waitSum()).isEqualTo(s.requests().waitSum())
        .isLessThan(after.waitSum());

    // A task whose wait is unknown: its first request's too, its later one waited none (known).
    Runnable unstamped = () -> { };
    Object token = sink.started(pool, unstamped);
    sink.requestStarted();
    sink.requestStarted();
    sink.ended(token, null);
    PoolRecord.Snapshot last = snapshot();
    assertThat(last.requests().count()).isEqualTo(6);
    assertThat(last.requests().tasks()).isEqualTo(3);
    assertThat(last.requests().waited()).isEqualTo(5);
    assertThat(last.requests().waitSum()).isEqualTo(s.requests().waitSum());
  }

  @Test
  void theTableAndTsvShowRequestsBesideTasks() {
    runTask(4_000_000, 3);
    List<PoolTable.Row> rows = List.of(new PoolTable.Row(snapshot(), 1, 1, 0, 0, 0));
    String text = PoolTable.text(rows, "header");
    assertThat(text).contains("task wait p50", "requests", "req wait", "io turns",
        "req wait = wait per request", "window: counts, percentiles, means and max since the agent");
    String[] tsv = PoolTable.tsv(rows).split("\n");
    List<String> columns = List.of(tsv[0].split("\t"));
    String[] cells = tsv[1].split("\t", -1);
    assertThat(cells[columns.indexOf("tasks")]).isEqualTo("1");
    assertThat(cells[columns.indexOf("requests")]).isEqualTo("3");
    assertThat(cells[columns.indexOf("request_tasks")]).isEqualTo("1");
    double perTask = Double.parseDouble(cells[columns.indexOf("wait_mean_ms")]);
    double perRequest = Double.parseDouble(cells[columns.indexOf("request_wait_mean_ms")]);
    assertThat(perRequest * 3).isCloseTo(perTask, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void sampledTasksAndRequestsAreAllCountedAndOnlyTheTimedOnesCarryAWait() {
    Pools sampledPools = new Pools(100, 2);
    StampTable table = new StampTable(100_000);
    AgentSink sampled = new AgentSink(table, sampledPools, 2);
    int tasks = 2_000;
    for (int i = 0; i < tasks; i++) {
      Runnable task = () -> { };
      sampled.submitted(pool, task);
      Object token = sampled.started(pool, task);
      sampled.requestStarted();
      sampled.requestStarted();
      sampled.ended(token, i % 10 == 0 ? new IllegalStateException() : null);
    }
    PoolRecord.Snapshot s = sampledPools.recordFor(pool, false).snapshot(System.nanoTime());
    assertThat(s.ended()).isEqualTo(tasks);
    assertThat(s.failed()).isEqualTo(tasks / 10);
    assertThat(s.timedOneIn()).isEqualTo(2);
    // about one task in two timed (binomial: 1,000 ± 22; the bounds are 9 standard deviations)
    assertThat(s.timed()).isBetween(800L, 1_200L);
    assertThat(s.runs().getTotalCount()).isEqualTo(s.timed());
    assertThat(s.waitedTasks()).isEqualTo(s.timed());
    assertThat(s.requests().count()).isEqualTo(2L * tasks);
    assertThat(s.requests().tasks()).isEqualTo(tasks);
    // the requests of the timed tasks carry a wait (the first the task's, the second none)
    assertThat(s.requests().waited()).isEqualTo(2 * s.timed());
    assertThat(s.requests().waitSum()).isEqualTo(s.waitSum());
    assertThat(table.size()).isZero();
  }

  /** One task of {@link #pool}, stamped {@code waitedNanos} ago, serving {@code requests}. */
  private void runTask(long waitedNanos, int requests) {
    Runnable task = () -> { };
    stamps.put(task, System.nanoTime() - waitedNanos);
    Object token = sink.started(pool, task);
    for (int i = 0; i < requests; i++) {
      sink.requestStarted();
    }
    sink.ended(token, null);
  }

  private PoolRecord.Snapshot snapshot() {
    return pools.recordFor(pool, false).snapshot(System.nanoTime());
  }
}
