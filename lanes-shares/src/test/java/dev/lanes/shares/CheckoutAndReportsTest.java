package dev.lanes.shares;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #26's "done when": checkout (0.7) and reports (0.3) share one "db" of 10, both flooding.
 * Checkout is never refused while reports is; while checkout is active reports never holds more
 * than its 3; every permit released while checkout waited below its 7 went to checkout; and once
 * checkout is gone reports takes all 10. At the end no permit is held and every book balances.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckoutAndReportsTest {

  static final int TOTAL = 10;
  static final int CHECKOUT_CLIENTS = 12; // more than checkout's 7 and its lane's 10: it waits
  static final int REPORTS_FLOODERS = 3;
  static final long FLOOD_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
  static final Duration LEND_AFTER_IDLE = Duration.ofMillis(500);
  static final Duration PATIENCE = Duration.ofSeconds(60);

  final AtomicInteger reportsRunning = new AtomicInteger();
  final AtomicInteger reportsMostWhileCheckoutActive = new AtomicInteger();
  final AtomicInteger reportsMost = new AtomicInteger();
  final AtomicInteger allRunning = new AtomicInteger();
  final AtomicInteger allMost = new AtomicInteger();
  volatile boolean checkoutActive;

  void sleepMillis(int from, int to) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(from, to + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void checkoutKeepsItsShareWhileReportsFloodsAndReportsTakesEverythingOnceCheckoutIsGone()
      throws Exception {
    PriorityShares db = PriorityShares.builder("db", TOTAL).partition("checkout", 0.7)
        .partition("reports", 0.3).lendAfterIdle(LEND_AFTER_IDLE).build();
    // Checkout on virtual threads; reports on platform threads, 10 of them for a share of 3:
    // the ones beyond its share wait parked at the gate.
    Lane checkout = Lane.virtual("db-checkout", TOTAL).queueCapacity(100)
        .gate(db.gate("checkout")).build();
    Lane reports = Lane.blocking("db-reports", TOTAL).queueCapacity(20)
        .gate(db.gate("reports")).build();

    AtomicBoolean checkoutGo = new AtomicBoolean(true);
    AtomicBoolean reportsGo = new AtomicBoolean(true);
    AtomicLong checkoutRefused = new AtomicLong();
    AtomicLong checkoutDone = new AtomicLong();
    AtomicLong reportsRefused = new AtomicLong();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (int i = 0; i < CHECKOUT_CLIENTS; i++) {
        threads.add(Thread.ofPlatform().name("checkout-client-" + i).start(() -> {
          while (checkoutGo.get()) {
            try {
              checkout.submit(() -> {
                track(allRunning, allMost);
                try {
                  sleepMillis(1, 3);
                } finally {
                  allRunning.decrementAndGet();
                }
              }).get();
              checkoutDone.incrementAndGet();
            } catch (LaneRejectedException e) {
              checkoutRefused.incrementAndGet();
            } catch (ExecutionException e) {
              if (e.getCause() instanceof LaneRejectedException) {
                checkoutRefused.incrementAndGet();
              } else {
                failures.add(e);
              }
            } catch (InterruptedException e) {
              failures.add(e);
              return;
            }
          }
        }));
      }
      await().atMost(PATIENCE).until(() -> db.stats().partition("checkout").held() > 0);
      checkoutActive = true; // from now until its clients stop, checkout is never idle

      for (int i = 0; i < REPORTS_FLOODERS; i++) {
        threads.add(Thread.ofPlatform().name("reports-flooder-" + i).start(() -> {
          while (reportsGo.get()) {
            try {
              reports.submit(() -> {
                int now = reportsRunning.incrementAndGet();
                reportsMost.accumulateAndGet(now, Math::max);
                if (checkoutActive) {
                  reportsMostWhileCheckoutActive.accumulateAndGet(now, Math::max);
                }
                track(allRunning, allMost);
                try {
                  sleepMillis(2, 5);
                } finally {
                  allRunning.decrementAndGet();
                  reportsRunning.decrementAndGet();
                }
              });
            } catch (LaneRejectedException e) {
              reportsRefused.incrementAndGet();
            }
            LockSupport.parkNanos(FLOOD_PAUSE_NANOS);
          }
        }));
      }

      AtomicInteger reportsMostWaiting = new AtomicInteger();
      await().atMost(PATIENCE).until(() -> {
        reportsMostWaiting.accumulateAndGet(db.stats().partition("reports").waiting(), Math::max);
        PartitionStats c = db.stats().partition("checkout");
        return reportsRefused.get() > 100 && checkoutDone.get() > 1_000 && c.releasesOwed() > 100;
      });
      assertThat(reportsMostWaiting.get()).as("reports' threads parked at the gate").isPositive();

      // Checkout goes away; reports, still flooding, borrows all 10 once checkout was idle for
      // lendAfterIdle.
      checkoutActive = false;
      checkoutGo.set(false);
      for (int i = 0; i < CHECKOUT_CLIENTS; i++) {
        threads.get(i).join();
      }
      await().atMost(PATIENCE).until(() -> reportsMost.get() == TOTAL);
      assertThat(db.stats().partition("reports").borrowedTotal()).isPositive();
    } finally {
      checkoutActive = false;
      checkoutGo.set(false);
      reportsGo.set(false);
      for (Thread t : threads) {
        t.join();
      }
      checkout.close(); // waits for every accepted task
      reports.close();
    }
    assertThat(failures).isEmpty();

    // (a) No checkout task refused, while reports had refusals (its own full queue).
    LaneStats c = checkout.stats();
    LaneStats r = reports.stats();
    assertThat(checkoutRefused).hasValue(0);
    assertThat(c.rejected()).isZero();
    assertThat(reportsRefused.get()).isPositive();
    assertThat(r.rejected()).isEqualTo(reportsRefused.get());

    // (b) While checkout was active, reports never held more than its 3.
    SharesStats s = db.stats();
    assertThat(reportsMostWhileCheckoutActive.get()).isBetween(1, 3);
    assertThat(s.guaranteeBreaches()).isZero();
    assertThat(allMost.get()).isLessThanOrEqualTo(TOTAL);

    // (c) Every permit released while checkout waited below its guarantee went to checkout.
    PartitionStats cs = s.partition("checkout");
    assertThat(cs.releasesOwed()).isPositive();
    assertThat(cs.releasesOwedGranted()).isEqualTo(cs.releasesOwed());

    // (d) No permit left out; every book balances.
    await().atMost(PATIENCE).until(() -> db.stats().reserved() == 0); // unclaimed ones expire
    s = db.stats();
    assertThat(s.held()).isZero();
    assertThat(s.free()).isEqualTo(TOTAL);
    for (PartitionStats p : s.partitions()) {
      assertThat(p.granted()).as(p.partition()).isEqualTo(p.exited());
      assertThat(p.held()).as(p.partition()).isZero();
    }
    for (LaneStats l : List.of(c, r)) {
      assertThat(l.queued()).as(l.lane()).isZero();
      assertThat(l.running()).as(l.lane()).isZero();
      assertThat(l.submitted()).as(l.lane()).isEqualTo(l.endedTotal() + l.queued() + l.running());
    }
    assertThat(c.completed()).isEqualTo(checkoutDone.get());
  }

  @Test
  void reportsShedByItsOwnLaneWhileCheckoutHoldsThePermits() throws Exception {
    PriorityShares db = PriorityShares.builder("db", TOTAL).partition("checkout", 0.7)
        .partition("reports", 0.3).build();
    Lane checkout = Lane.virtual("db-checkout", TOTAL).queueCapacity(1_000)
        .gate(db.gate("checkout")).build();
    Lane reports = Lane.virtual("db-reports", TOTAL).queueCapacity(1_000)
        .shedWhenQueuedLongerThan(Duration.ofMillis(5), Duration.ofMillis(50))
        .gate(db.gate("reports")).build();
    AtomicBoolean go = new AtomicBoolean(true);
    AtomicLong reportsShed = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    try {
      for (int i = 0; i < CHECKOUT_CLIENTS; i++) {
        threads.add(Thread.ofPlatform().name("checkout-client-" + i).start(() -> {
          while (go.get()) {
            checkout.submit(() -> sleepMillis(1, 3)).join();
          }
        }));
      }
      await().atMost(PATIENCE).until(() -> db.stats().partition("checkout").held() > 0);
      threads.add(Thread.ofPlatform().name("reports-flooder").start(() -> {
        while (go.get()) {
          try {
            reports.submit(() -> sleepMillis(5, 10));
          } catch (LaneRejectedException e) {
            if (e.reason() == dev.lanes.TaskOutcome.SHED) {
              reportsShed.incrementAndGet();
            }
          }
          LockSupport.parkNanos(FLOOD_PAUSE_NANOS);
        }
      }));
      await().atMost(PATIENCE).until(() -> reportsShed.get() > 10);
    } finally {
      go.set(false);
      for (Thread t : threads) {
        t.join();
      }
      checkout.close();
      reports.close();
    }
    assertThat(reports.stats().count(dev.lanes.TaskOutcome.SHED)).isEqualTo(reportsShed.get());
    assertThat(checkout.stats().rejected()).isZero();
    assertThat(db.stats().held()).isZero();
  }

  static void track(AtomicInteger running, AtomicInteger most) {
    most.accumulateAndGet(running.incrementAndGet(), Math::max);
  }
}
