package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ring's idle protocol under the races that lose wake-ups: workers about to park while a
 * submission, a shutdown or a change of concurrency arrives. Each loop is short and repeated many
 * times; a lost wake-up shows as a hang (the global test timeout dumps the threads).
 */
class HandOffRaceTest {
  private static final int ROUNDS = Integer.getInteger("lanes.stress.repeats", 50) * 10;

  /** Every lane a test builds balances its books and terminates afterwards (#24). */
  @RegisterExtension final Books books = new Books();

  private Lane lane(String kind, String name, int concurrency) {
    return books.track(kind.equals("virtual") ? Lane.virtual(name, concurrency).build()
        : Lane.blocking(name, concurrency).build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"blocking", "virtual"})
  void closeAlwaysEndsWhenShutdownRacesWithWorkersGoingIdle(String kind) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      Lane lane = lane(kind, "race", 4);
      AtomicInteger ran = new AtomicInteger();
      for (int t = 0; t < (i % 4); t++) {
        lane.execute(ran::incrementAndGet);
      }
      if (i % 2 == 0) {
        // close just as the worker that ran this goes back to look for more
        lane.submit(() -> {}).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      }
      lane.close(); // must return: every worker drains and leaves
      assertThat(lane.isTerminated()).isTrue();
      assertThat(ran.get()).isEqualTo(i % 4);
      Work.assertBooksBalance(lane.stats());
      assertThat(lane.stats().submitted()).isEqualTo(i % 4 + (i % 2 == 0 ? 1 : 0));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"blocking", "virtual"})
  void everyTaskSubmittedToAnIdleLaneRunsPromptly(String kind) throws Exception {
    try (Lane lane = lane(kind, "wake", 2)) {
      for (int i = 0; i < ROUNDS * 4; i++) {
        // one task at a time: the workers are idle (or about to be) at every submission
        assertThat(lane.submit(() -> 1).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
      }
      assertThat(lane.stats().completed()).isEqualTo(ROUNDS * 4L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"blocking", "virtual"})
  void loweringConcurrencyReachesWorkersAboutToPark(String kind) throws Exception {
    for (int i = 0; i < ROUNDS / 10; i++) {
      try (Lane lane = lane(kind, "shrink", 4)) {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          fs.add(lane.submit(() -> {}));
        }
        CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(
            Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
        lane.setConcurrency(1);
        if (kind.equals("blocking")) {
          Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
              .until(() -> lane.stats().workers() == 1);
        }
        assertThat(lane.submit(() -> 2).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo(2);
      }
    }
  }
}
