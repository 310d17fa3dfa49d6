package dev.lanes.shares;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many submitters, random partitions (virtual and platform lanes), random task lengths, tasks
 * that throw, random cancellation, short idle and claim times so that lending, reclaiming and
 * expiring reservations all happen: at no moment do more than {@code total} tasks run, every
 * snapshot taken meanwhile balances, and at the end no permit is held and every count adds up.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PrioritySharesStressTest {

  static final int TOTAL = 6;
  static final int SUBMITTERS = 8;
  static final int TASKS_EACH = 2_000;
  static final long SUBMIT_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(400);
  static final Duration PATIENCE = Duration.ofSeconds(30);

  @Test
  void underRandomLoadAtMostTotalRunAndNothingLeaks() throws Exception {
    PriorityShares db = PriorityShares.builder("db", TOTAL).partition("high", 0.5)
        .partition("mid", 0.3).partition("low", 0.2)
        .lendAfterIdle(Duration.ofMillis(1)).claimTimeout(Duration.ofMillis(5)).build();
    Map<String, Lane> lanes = db.lanes(p -> (p.equals("mid") ? Lane.blocking("s-" + p, TOTAL)
        : Lane.virtual("s-" + p, TOTAL)).queueCapacity(100));
    List<String> names = db.partitions();

    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong ran = new AtomicLong();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    CyclicBarrier start = new CyclicBarrier(SUBMITTERS);
    List<Thread> submitters = new ArrayList<>();
    for (int s = 0; s < SUBMITTERS; s++) {
      submitters.add(Thread.ofPlatform().name("submitter-" + s).start(() -> {
        try {
          start.await();
          ThreadLocalRandom rnd = ThreadLocalRandom.current();
          for (int i = 0; i < TASKS_EACH; i++) {
            Lane lane = lanes.get(names.get(rnd.nextInt(names.size())));
            int kind = rnd.nextInt(10);
            attempts.incrementAndGet();
            try {
              CompletableFuture<?> f = lane.submit(() -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                ran.incrementAndGet();
                try {
                  if (kind == 0) {
                    throw new IllegalStateException("expected by the test");
                  } else if (kind < 5) {
                    Thread.sleep(0, ThreadLocalRandom.current().nextInt(500_000));
                  } else if (kind < 8) {
                    Thread.onSpinWait();
                  } else {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                  }
                  return null;
                } finally {
                  running.decrementAndGet();
                }
              });
              if (rnd.nextInt(10) == 0) {
                f.cancel(true);
              }
            } catch (LaneRejectedException e) {
              refused.incrementAndGet();
            }
            if (rnd.nextInt(50) == 0) {
              Thread.sleep(rnd.nextInt(3)); // pauses let partitions go idle and lend
            } else {
              LockSupport.parkNanos(SUBMIT_PAUSE_NANOS);
            }
          }
        } catch (Exception e) {
          failures.add(e);
        }
      }));
    }
    // Meanwhile every snapshot balances: read under the one lock.
    AtomicLong snapshots = new AtomicLong();
    Thread reader = Thread.ofPlatform().name("snapshot-reader").start(() -> {
      while (submitters.stream().anyMatch(Thread::isAlive)) {
        SharesStats s = db.stats();
        snapshots.incrementAndGet();
        if (s.held() + s.reserved() + s.free() != TOTAL || s.free() < 0) {
          failures.add(new AssertionError("unbalanced: " + s));
        }
        for (PartitionStats p : s.partitions()) {
          if (p.granted() - p.exited() != p.held() || p.borrowed() != Math.max(0, p.held() - p.guaranteed())) {
            failures.add(new AssertionError("unbalanced: " + p));
          }
        }
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
      }
    });
    for (Thread t : submitters) {
      t.join();
    }
    reader.join();
    assertThat(snapshots.get()).isPositive();
    lanes.values().forEach(Lane::close);
    assertThat(failures).isEmpty();

    assertThat(most.get()).isBetween(1, TOTAL);
    await().atMost(PATIENCE).until(() -> db.stats().reserved() == 0);
    SharesStats s = db.stats();
    assertThat(s.held()).isZero();
    assertThat(s.free()).isEqualTo(TOTAL);
    assertThat(s.guaranteeBreaches()).isZero();
    long granted = 0;
    for (PartitionStats p : s.partitions()) {
      assertThat(p.granted()).as(p.partition()).isEqualTo(p.exited());
      assertThat(p.releasesOwedGranted()).as(p.partition()).isLessThanOrEqualTo(p.releasesOwed());
      granted += p.granted();
    }
    assertThat(s.partition("low").borrowedTotal() + s.partition("mid").borrowedTotal()
        + s.partition("high").borrowedTotal()).as("some permits were lent").isPositive();

    long submitted = 0;
    long rejected = 0;
    long started = 0;
    for (Lane lane : lanes.values()) {
      LaneStats l = lane.stats();
      assertThat(l.queued()).isZero();
      assertThat(l.running()).isZero();
      assertThat(l.submitted()).as(l.lane()).isEqualTo(l.endedTotal());
      submitted += l.submitted();
      rejected += l.rejected();
      started += l.started();
    }
    assertThat(submitted).isEqualTo(attempts.get()).isEqualTo((long) SUBMITTERS * TASKS_EACH);
    assertThat(rejected).isEqualTo(refused.get());
    // A task cancelled as its worker took it counts as started without running its code.
    assertThat(started).isGreaterThanOrEqualTo(ran.get());
    assertThat(granted).as("a pass per task started, plus unused ones").isGreaterThanOrEqualTo(started);
  }
}
