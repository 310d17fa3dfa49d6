package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An async stage without an executor runs on the lane, however far down the chain it is. */
class FutureChainTest {
  @Test
  void anAsyncStageDownTheChainRunsOnTheLane() throws Exception {
    try (Lane lane = Lane.blocking("chain", 2).build()) {
      String thread = lane.submit(() -> 1)
          .thenApply(x -> x + 1)
          .thenCompose(x -> lane.submit(() -> x * 2))
          .thenApply(x -> x)
          .thenApplyAsync(x -> Thread.currentThread().getName())
          .get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      assertThat(thread).startsWith("chain-");
      lane.close();
      assertThat(lane.stats().submitted()).isEqualTo(3); // two tasks and the async stage
    }
  }
}
