package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExceptionTest {

  private static LaneBuilder lane(String kind) {
    return kind.equals("virtual") ? Lane.virtual("ex", 2) : Lane.blocking("ex", 2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void submitFailsTheFutureAndCounts(String kind) {
    try (Lane lane = lane(kind).build()) {
      CompletableFuture<Object> f = lane.submit(() -> {
        throw new IllegalStateException("boom");
      });
      assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IllegalStateException.class).hasRootCauseMessage("boom");
      lane.close();
      assertThat(lane.stats().failed()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void executeReachesTheLaneHandler(String kind) throws Exception {
    LinkedBlockingQueue<Throwable> seen = new LinkedBlockingQueue<>();
    try (Lane lane = lane(kind).exceptionHandler((t, e) -> seen.add(e)).build()) {
      lane.execute(() -> {
        throw new IllegalStateException("from execute");
      });
      Throwable e = seen.poll(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      assertThat(e).isInstanceOf(IllegalStateException.class).hasMessage("from execute");
      lane.close();
      assertThat(lane.stats().failed()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"platform", "virtual"})
  void executeReachesTheThreadsOwnHandlerByDefault(String kind) throws Exception {
    LinkedBlockingQueue<Throwable> seen = new LinkedBlockingQueue<>();
    ThreadFactory base = kind.equals("virtual") ? Thread.ofVirtual().factory() : Thread.ofPlatform().factory();
    ThreadFactory withHandler = r -> {
      Thread t = base.newThread(r);
      t.setUncaughtExceptionHandler((th, e) -> seen.add(e));
      return t;
    };
    try (Lane lane = lane(kind).threadFactory(withHandler).build()) {
      lane.execute(() -> {
        throw new IllegalArgumentException("to the thread");
      });
      assertThat(seen.poll(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(IllegalArgumentException.class);
      // The worker survived: the lane still runs tasks.
      assertThat(lane.submit(() -> 7).get()).isEqualTo(7);
    }
  }
}
