package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * The demo's claim, end to end on loopback: on one shared pool, fast requests queue behind slow
 * ones, and lanes' queue-wait figure — not the run time — explains what the client saw; with a
 * lane per endpoint, fast requests do not wait. Assertions compare figures with each other (and
 * with the scenario's own sleeps), never with a wall-clock threshold on this machine's speed.
 */
class ServeLoadEndToEndTest {

  /** Threads of the shared pool and of the slow lane: 8 slow requests take 4 rounds. */
  private static final int THREADS = 2;
  private static final int SLOW_COUNT = 8;
  private static final long SLOW_MS = 1_000;
  private static final long PAUSE_MS = 500;
  private static final int FAST_COUNT = 20;
  private static final int RATE = 1_000;

  private static LoadResult runScenario(DemoServer.Mode mode) throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(mode, "127.0.0.1", 0, THREADS, 1_000))) {
      Scenario s = Scenario.noisyNeighbour(SLOW_COUNT, SLOW_MS, RATE, PAUSE_MS, FAST_COUNT, RATE);
      LoadResult r = LoadGenerator.run(s, new LoadGenerator.Options(URI.create(server.url()), 100, 60, false, true));
      System.out.println(r.toText());
      return r;
    }
  }

  @Test
  void sharedPoolFastRequestsWaitBehindSlowOnesAndQueueWaitExplainsIt() throws Exception {
    LoadResult r = runScenario(DemoServer.Mode.SHARED);
    assertThat(r.serverMode()).isEqualTo("shared");
    // No Actuator here (the JDK's HttpServer): no column for it, rather than an empty one.
    assertThat(r.toText()).doesNotContain("actuator").contains("client ms").contains("queue wait");
    LoadResult.Endpoint slow = r.endpoint("/slow");
    LoadResult.Endpoint fast = r.endpoint("/fast");
    assertThat(slow.ok()).isEqualTo(SLOW_COUNT);
    assertThat(fast.ok()).isEqualTo(FAST_COUNT);
    assertThat(fast.stages()).singleElement().satisfies(st -> {
      assertThat(st.lane()).isEqualTo("shared");
      assertThat(st.tasks()).as("server figures cover the same requests").isEqualTo(FAST_COUNT);
    });
    LoadResult.Stage fastStage = fast.stages().getFirst();
    LoadResult.Stage slowStage = slow.stages().getFirst();
    double client = fast.client().p50();

    // Fast requests waited for the slow ones: at least one slow request's run time in the queue.
    assertThat(fastStage.queueWait().p50()).isGreaterThanOrEqualTo(slowStage.runTime().p50());
    // The queue wait explains the client's latency; the run time does not.
    assertThat(fastStage.queueWait().p50()).isGreaterThanOrEqualTo(0.5 * client);
    assertThat(fastStage.runTime().p50()).isLessThanOrEqualTo(0.1 * client);
    assertThat(fast.verdict()).contains("queue wait explains");
  }

  @Test
  void lanesKeepFastRequestsFastWhileTheSlowLaneQueues() throws Exception {
    LoadResult r = runScenario(DemoServer.Mode.LANES);
    assertThat(r.serverMode()).isEqualTo("lanes");
    LoadResult.Endpoint slow = r.endpoint("/slow");
    LoadResult.Endpoint fast = r.endpoint("/fast");
    assertThat(slow.ok()).isEqualTo(SLOW_COUNT);
    assertThat(fast.ok()).isEqualTo(FAST_COUNT);
    LoadResult.Stage fastStage = fast.stages().getFirst();
    LoadResult.Stage slowStage = slow.stages().getFirst();
    assertThat(fastStage.lane()).isEqualTo("fast");
    assertThat(slowStage.lane()).isEqualTo("slow");
    assertThat(fastStage.tasks()).isEqualTo(FAST_COUNT);

    // The slow lane still queues (8 requests, 2 threads) ...
    assertThat(slowStage.queueWait().p50()).isGreaterThanOrEqualTo(0.5 * slowStage.runTime().p50());
    // ... but fast requests do not wait for slow ones: less than half of one slow request's run
    // (in shared mode the same figure is at least one whole slow run). On a quiet machine it is a
    // few milliseconds; the margin is for a machine busy with other builds.
    assertThat(fastStage.queueWait().p50()).isLessThanOrEqualTo(slowStage.runTime().p50() / 2);
  }
}
