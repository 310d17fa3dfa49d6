package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Live changes that hold under contention (issue #40): a lowered virtual concurrency holds for
 * the next tasks even when idle workers still hold permits, a raised one never leaves a queued
 * task beside a free permit, and a change is all-or-nothing — the lane never holds more than the
 * room of one applied set, and {@link Lane#settings()} returns only sets that were applied.
 */
@Timeout(120)
class LiveChangeHoldsTest {
  @RegisterExtension final Books books = new Books();

  /**
   * Two virtual workers finish and keep their permits for their keep-alive; the concurrency is
   * lowered to 1; two tasks that each wait a moment for the other to start must run one at a
   * time. Each task waits up to 2 ms for a second one to start: with the cap held it never does.
   */
  @Test
  void aLoweredVirtualConcurrencyHoldsForTheNextTasksWhileIdleWorkersKeepTheirPermits()
      throws Exception {
    for (boolean viaChange : new boolean[] {false, true}) {
      Lane lane = books.track(Lane.virtual("lower-" + viaChange, 2).queueCapacity(10).build());
      int overlaps = 0;
      for (int round = 0; round < 150; round++) {
        if (viaChange) {
          lane.change().concurrency(2).apply();
        } else {
          lane.setConcurrency(2);
        }
        CountDownLatch both = new CountDownLatch(2);
        var a = lane.submit(() -> { both.countDown(); Work.await(both); });
        var b = lane.submit(() -> { both.countDown(); Work.await(both); });
        a.get(30, TimeUnit.SECONDS);
        b.get(30, TimeUnit.SECONDS); // two workers hold permits now, idle for their keep-alive
        if (viaChange) {
          lane.change().concurrency(1).apply();
        } else {
          lane.setConcurrency(1);
        }
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch second = new CountDownLatch(2);
        Runnable task = () -> {
          most.accumulateAndGet(running.incrementAndGet(), Math::max);
          second.countDown();
          try {
            second.await(2, TimeUnit.MILLISECONDS); // only a second task running at once ends it
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          running.decrementAndGet();
        };
        var c = lane.submit(task);
        var d = lane.submit(task);
        c.get(30, TimeUnit.SECONDS);
        d.get(30, TimeUnit.SECONDS);
        if (most.get() > 1) {
          overlaps++;
        }
      }
      assertThat(overlaps).as("rounds in which two tasks ran at once under a concurrency of 1"
          + (viaChange ? " (change())" : " (setConcurrency)")).isZero();
    }
  }

  /**
   * A virtual lane at its cap with every task running; the cap is raised while a task is
   * submitted and a running one ends: the new task must start while the others still run.
   */
  @Test
  void aRaisedVirtualConcurrencyNeverStrandsAQueuedTaskBesideAFreePermit() throws Exception {
    Lane lane = books.track(Lane.virtual("raise", 3).queueCapacity(10).build());
    for (int round = 0; round < 300; round++) {
      lane.setConcurrency(3);
      Awaitility.await().until(() -> lane.running() == 0);
      CountDownLatch hold = new CountDownLatch(1);
      CountDownLatch quick = new CountDownLatch(1);
      CountDownLatch started = new CountDownLatch(3);
      lane.submit(() -> { started.countDown(); Work.await(hold); });
      lane.submit(() -> { started.countDown(); Work.await(hold); });
      var ending = lane.submit(() -> { started.countDown(); Work.await(quick); });
      started.await();
      CountDownLatch go = new CountDownLatch(1);
      CountDownLatch newStarted = new CountDownLatch(1);
      List<Thread> racers = Work.start(1, "raiser", () -> { Work.await(go); lane.setConcurrency(4); });
      racers.addAll(Work.start(1, "submitter", () -> {
        Work.await(go);
        lane.submit(() -> { newStarted.countDown(); Work.await(hold); });
      }));
      racers.addAll(Work.start(1, "ender", () -> { Work.await(go); quick.countDown(); }));
      go.countDown();
      Work.join(racers);
      ending.get(30, TimeUnit.SECONDS);
      assertThat(newStarted.await(30, TimeUnit.SECONDS))
          .as("round %d: the task submitted as the cap rose started (stats %s)", round,
              lane.stats())
          .isTrue();
      hold.countDown();
    }
  }

  /**
   * Two changers swap (concurrency 8, queue 1) and (1, 8) — a room of 9 either way — while
   * submitters keep the lane full of tasks that never end before the test says so: the lane must
   * never hold more than 9, and {@code settings()} must only ever return one of the two sets.
   */
  @Test
  void aChangeIsAllOrNothingForAdmissionAndForSettings() throws Exception {
    Logger log = Logger.getLogger("dev.lanes");
    Level before = log.getLevel();
    log.setLevel(Level.WARNING); // thousands of "settings changed" lines otherwise
    try {
      for (LaneKind kind : new LaneKind[] {LaneKind.BLOCKING, LaneKind.VIRTUAL}) {
        swapSettings(kind);
      }
    } finally {
      log.setLevel(before);
    }
  }

  private void swapSettings(LaneKind kind) throws Exception {
    LaneBuilder b = kind == LaneKind.VIRTUAL ? Lane.virtual("swap-v", 8) : Lane.blocking("swap", 8);
    Lane lane = books.track(b.queueCapacity(1).build());
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicReference<String> mixed = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    threads.addAll(Work.start(2, "changer", () -> {
      boolean wide = Thread.currentThread().getName().endsWith("0");
      for (int i = 0; i < 3_000 && mixed.get() == null; i++) {
        if (wide) {
          lane.change().concurrency(8).queueCapacity(1).apply();
        } else {
          lane.change().concurrency(1).queueCapacity(8).apply();
        }
      }
      stop.set(true);
    }));
    threads.addAll(Work.start(1, "reader", () -> {
      while (!stop.get()) {
        LaneSettings s = lane.settings();
        if (s.concurrency() + s.queueCapacity() != 9) {
          mixed.compareAndSet(null, s.concurrency() + " + " + s.queueCapacity());
        }
      }
    }));
    threads.addAll(Work.start(2, "submitter", () -> {
      while (!stop.get()) {
        try {
          lane.execute(() -> Work.await(release));
          most.accumulateAndGet(accepted.incrementAndGet(), Math::max);
        } catch (LaneRejectedException full) {
          Thread.onSpinWait();
        }
      }
    }));
    Work.join(threads);
    release.countDown();
    assertThat(mixed.get()).as(kind + ": settings() returned a set never applied").isNull();
    assertThat(most.get()).as(kind + ": tasks the lane held at once, with a room of 9")
        .isLessThanOrEqualTo(9);
  }
}
