package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tasks given to {@code execute} that discard-oldest drops: with no exception handler, counted and
 * summarised (one line at once, then one per 10 s at most, no stack trace, nothing to the thread's
 * uncaught-exception handler); with one, every drop reaches it.
 */
@Timeout(60)
class DropLogTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @RegisterExtension final Books books = new Books();

  @Test
  void aThousandDropsMakeTwoLinesNotAThousandStackTraces() {
    AtomicLong clock = new AtomicLong();
    LaneExecutor lane = books.track((LaneExecutor) Lane.blocking("drops", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest()).ticker(clock::get).build());
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler h = Work.captureLog(logged);
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = Thread.currentThread().getUncaughtExceptionHandler();
    Thread.currentThread().setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try {
      CountDownLatch release = Work.occupy(lane);
      for (int i = 0; i < 1_001; i++) {
        lane.execute(() -> {}); // each one after the first drops the one queued before it
      }
      List<LogRecord> lines = dropLines(logged);
      assertThat(lines).singleElement().satisfies(r -> {
        assertThat(r.getMessage()).startsWith("lane \"drops\": dropped 1 task given to execute();"
            + " latest: DISCARDED_OLDEST of ");
        assertThat(r.getThrown()).isNull();
      });
      clock.addAndGet(5 * SECOND);
      lane.checkHealth();
      assertThat(dropLines(logged)).hasSize(1); // not yet 10 s
      clock.addAndGet(5 * SECOND);
      lane.checkHealth(); // the health thread's tick writes the summary
      lines = dropLines(logged);
      assertThat(lines).hasSize(2);
      assertThat(lines.get(1).getMessage())
          .startsWith("lane \"drops\": dropped 999 tasks given to execute() in the last 10 s;");
      assertThat(uncaught).isEmpty();
      assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1_000);
      release.countDown();
    } finally {
      Thread.currentThread().setUncaughtExceptionHandler(before);
      Logger.getLogger("dev.lanes").removeHandler(h);
    }
  }

  @Test
  void aLaneWithItsOwnHandlerHandsItEveryDrop() {
    List<Throwable> handled = new CopyOnWriteArrayList<>();
    Lane lane = books.track(Lane.blocking("handled", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest()).exceptionHandler((t, e) -> handled.add(e))
        .build());
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler h = Work.captureLog(logged);
    try {
      CountDownLatch release = Work.occupy(lane);
      for (int i = 0; i < 101; i++) {
        lane.execute(() -> {});
      }
      assertThat(handled).hasSize(100).allSatisfy(e -> assertThat(e)
          .isInstanceOf(LaneRejectedException.class)
          .extracting(x -> ((LaneRejectedException) x).reason())
          .isEqualTo(TaskOutcome.DISCARDED_OLDEST));
      assertThat(dropLines(logged)).isEmpty();
      release.countDown();
    } finally {
      Logger.getLogger("dev.lanes").removeHandler(h);
    }
  }

  private static List<LogRecord> dropLines(List<LogRecord> logged) {
    return logged.stream().filter(r -> r.getMessage().contains("given to execute()")).toList();
  }

}
