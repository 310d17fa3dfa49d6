package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #40: a lane that leaves the health thread (it terminated) writes the summary of the drops
 * it still owes, so each drop is in exactly one line even when the lane ends inside the 10 s
 * between two summaries. The lane's clock never moves: no summary is due by time.
 */
@Timeout(60)
class DropLogCloseTest {
  private static final Pattern DROPPED = Pattern.compile("dropped (\\d+) tasks? given to execute");

  @RegisterExtension final Books books = new Books();

  @Test
  void ninetyNineDropsThenCloseAreAllInTheLog() {
    AtomicLong clock = new AtomicLong();
    Lane lane = books.track(Lane.blocking("closing", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest()).ticker(clock::get).build());
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger("dev.lanes");
    Handler h = Work.captureLog(logged);
    try {
      CountDownLatch release = Work.occupy(lane);
      for (int i = 0; i < 100; i++) {
        lane.execute(() -> {}); // each after the first drops the one queued before it
      }
      assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(99);
      assertThat(droppedInLines(logged)).as("the first drop, at once").isEqualTo(1);
      release.countDown();
      lane.close(); // returns once the lane terminated, which is when it leaves the health thread
      assertThat(droppedInLines(logged)).isEqualTo(99);
      assertThat(logged.stream().filter(r -> DROPPED.matcher(r.getMessage()).find()))
          .hasSize(2)
          .last().satisfies(r -> assertThat(r.getMessage()).contains("dropped 98 tasks"));
    } finally {
      jul.removeHandler(h);
    }
  }

  @Test
  void fourThreadsDroppingWhileTheClockMovesThenCloseLogEachDropInExactlyOneLine()
      throws Exception {
    AtomicLong clock = new AtomicLong();
    // every reading moves the clock 10 ms: summaries fall due while the threads drop
    Lane lane = books.track(Lane.blocking("racing", 1).queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest())
        .ticker(() -> clock.addAndGet(10_000_000)).build());
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger("dev.lanes");
    Handler h = Work.captureLog(logged);
    try {
      CountDownLatch release = Work.occupy(lane);
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> threads = Work.start(4, "dropper", () -> {
        Work.await(go);
        for (int i = 0; i < 2_000; i++) {
          try {
            lane.execute(() -> {});
          } catch (LaneRejectedException raced) {
            // admission may refuse while another submitter's drop is under way; not a drop
          }
        }
      });
      go.countDown();
      Work.join(threads);
      release.countDown();
      lane.close();
      long dropped = lane.stats().count(TaskOutcome.DISCARDED_OLDEST);
      assertThat(dropped).isGreaterThan(1_000);
      assertThat(droppedInLines(logged, "racing")).isEqualTo(dropped);
    } finally {
      jul.removeHandler(h);
    }
  }

  private static long droppedInLines(List<LogRecord> logged) {
    return droppedInLines(logged, "closing");
  }

  private static long droppedInLines(List<LogRecord> logged, String lane) {
    long n = 0;
    for (LogRecord r : logged) {
      Matcher m = DROPPED.matcher(r.getMessage());
      if (r.getMessage().contains("\"" + lane + "\"") && m.find()) {
        n += Long.parseLong(m.group(1));
      }
    }
    return n;
  }
}
