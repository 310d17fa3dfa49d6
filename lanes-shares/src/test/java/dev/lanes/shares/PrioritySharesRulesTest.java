package dev.lanes.shares;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.LaneGate;
import dev.lanes.TaskOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every rule of the gates, called directly as a lane's workers call them, with stand-in workers
 * (a {@code ready} that counts its runs) and a manual clock: counts, not wall-clock time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PrioritySharesRulesTest {

  static final Duration LEND_AFTER_IDLE = Duration.ofMillis(100);
  static final Duration CLAIM_TIMEOUT = Duration.ofMillis(50);
  /** Clock readings awaited after a change of time: the first may be a recheck already under way. */
  static final int RECHECKS = 3;

  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  /** The test's own thread, if set: its reads of {@link #clock} are not counted. */
  volatile Thread caller;
  /** How often other threads read {@link #clock}: the rechecks, once each. */
  final AtomicInteger recheckReads = new AtomicInteger();

  /** A stand-in worker: its {@code ready}, counting how often the gate ran it. */
  static final class Worker implements Runnable {
    final AtomicInteger readies = new AtomicInteger();

    @Override
    public void run() {
      readies.incrementAndGet();
    }
  }

  PriorityShares.Builder shares(int total) {
    return PriorityShares.builder("db", total).ticker(this::readClock).lendAfterIdle(LEND_AFTER_IDLE)
        .claimTimeout(CLAIM_TIMEOUT);
  }

  static List<LaneGate.Pass> enter(LaneGate gate, int n) {
    List<LaneGate.Pass> passes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      LaneGate.Pass p = gate.tryEnter(new Worker());
      assertThat(p).as("pass %d of %d", i + 1, n).isNotNull();
      passes.add(p);
    }
    return passes;
  }

  long readClock() {
    if (Thread.currentThread() != caller) {
      recheckReads.incrementAndGet();
    }
    return clock.get();
  }

  void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  @Test
  void guaranteedPermitsAreTakenAtOnceAndNoMoreThanTheTotalIsOut() {
    PriorityShares db = shares(10).partition("checkout", 0.7).partition("reports", 0.3).build();
    assertThat(db.guaranteed("checkout")).isEqualTo(7);
    assertThat(db.guaranteed("reports")).isEqualTo(3);
    enter(db.gate("checkout"), 7);
    enter(db.gate("reports"), 3);
    assertThat(db.gate("checkout").tryEnter(new Worker())).isNull();
    assertThat(db.gate("reports").tryEnter(new Worker())).isNull();
    SharesStats s = db.stats();
    assertThat(s.held()).isEqualTo(10);
    assertThat(s.free()).isZero();
    assertThat(s.partition("checkout").waiting()).isEqualTo(1);
    assertThat(s.partition("reports").waiting()).isEqualTo(1);
  }

  @Test
  void aPartitionThatWasNeverActiveLendsEverything() {
    PriorityShares db = shares(10).partition("checkout", 0.7).partition("reports", 0.3).build();
    enter(db.gate("reports"), 10);
    PartitionStats reports = db.stats().partition("reports");
    assertThat(reports.held()).isEqualTo(10);
    assertThat(reports.borrowed()).isEqualTo(7);
    assertThat(reports.borrowedTotal()).isEqualTo(7);
    assertThat(db.gate("reports").tryEnter(new Worker())).isNull();
  }

  @Test
  void anActivePartitionsGuaranteeIsNotLentEvenWhenItUsesLessOfIt() {
    PriorityShares db = shares(10).partition("checkout", 0.7).partition("reports", 0.3).build();
    enter(db.gate("checkout"), 1); // active, 6 of its 7 unused
    enter(db.gate("reports"), 3);
    Worker beyond = new Worker();
    assertThat(db.gate("reports").tryEnter(beyond)).as("reports beyond its 3").isNull();
    assertThat(db.stats().free()).isEqualTo(6);
    enter(db.gate("checkout"), 6); // checkout's guarantee was kept for it
    assertThat(db.stats().guaranteeBreaches()).isZero();
    assertThat(beyond.readies).hasValue(0);
  }

  @Test
  void whatTheSharesLeaveOverAnyoneMayBorrowAtAnyTime() {
    // 0.5 + 0.3 of 10: 2 permits belong to nobody.
    PriorityShares db = shares(10).partition("checkout", 0.5).partition("reports", 0.3).build();
    enter(db.gate("checkout"), 1);
    enter(db.gate("reports"), 5); // 3 guaranteed + the 2 left over
    assertThat(db.gate("reports").tryEnter(new Worker())).isNull();
    enter(db.gate("checkout"), 4); // its guarantee is intact
    assertThat(db.stats().free()).isZero();
  }

  @Test
  void aPartitionLendsOnlyAfterBeingIdleForLendAfterIdle() {
    PriorityShares db = shares(10).partition("checkout", 0.7).partition("reports", 0.3).build();
    LaneGate.Pass checkout = enter(db.gate("checkout"), 1).get(0);
    enter(db.gate("reports"), 3);
    Worker waiting = new Worker();
    assertThat(db.gate("reports").tryEnter(waiting)).isNull();

    checkout.exit(TaskOutcome.COMPLETED); // checkout idle from now
    assertThat(db.stats().partition("checkout").lendable()).isFalse();
    advance(LEND_AFTER_IDLE.minusNanos(1));
    assertThat(db.gate("reports").tryEnter(waiting)).as("1 ns before lendAfterIdle").isNull();
    assertThat(db.stats().partition("checkout").lendable()).isFalse();

    advance(Duration.ofNanos(1)); // the recheck notices and wakes the waiting worker
    await().atMost(Duration.ofSeconds(10)).until(() -> waiting.readies.get() == 1);
    assertThat(db.stats().partition("reports").reserved()).isEqualTo(1);
    assertThat(db.gate("reports").tryEnter(waiting)).isNotNull();
    // Nobody else waits, so the rest is taken by asking.
    enter(db.gate("reports"), 6);
    PartitionStats reports = db.stats().partition("reports");
    assertThat(reports.held()).isEqualTo(10);
    assertThat(reports.borrowed()).isEqualTo(7);
    assertThat(db.stats().guaranteeBreaches()).isZero();
  }

  @Test
  void aFreedPermitGoesFirstToAPartitionBelowItsGuaranteeEvenIfALowerOne() {
    PriorityShares db = shares(10).partition("checkout", 0.5).partition("reports", 0.5).build();
    enter(db.gate("checkout"), 5);
    List<LaneGate.Pass> reports = enter(db.gate("reports"), 5);
    Worker checkoutWaits = new Worker();
    Worker reportsWaits = new Worker();
    assertThat(db.gate("checkout").tryEnter(checkoutWaits)).isNull();
    assertThat(db.gate("reports").tryEnter(reportsWaits)).isNull();

    reports.get(0).exit(TaskOutcome.COMPLETED); // reports below its guarantee: rule 1
    assertThat(reportsWaits.readies).hasValue(1);
    assertThat(checkoutWaits.readies).hasValue(0);
    PartitionStats r = db.stats().partition("reports");
    assertThat(r.reserved()).isEqualTo(1);
    assertThat(r.releasesOwed()).isEqualTo(1);
    assertThat(r.releasesOwedGranted()).isEqualTo(1);
    assertThat(db.stats().partition("checkout").releasesOwed()).isZero();
  }

  @Test
  void aFreedPermitGoesToTheHighestPriorityBelowItsGuarantee() {
    double third = 1.0 / 3;
    PriorityShares db = shares(6).partition("a", third).partition("b", third)
        .partition("c", third).build();
    assertThat(db.guaranteed("b")).isEqualTo(2);
    List<LaneGate.Pass> c = enter(db.gate("c"), 4); // a and b never active: c borrows 2
    enter(db.gate("b"), 1);
    enter(db.gate("a"), 1);
    Worker bWaits = new Worker();
    Worker aWaits = new Worker();
    Worker cWaits = new Worker();
    assertThat(db.gate("c").tryEnter(cWaits)).isNull();
    assertThat(db.gate("b").tryEnter(bWaits)).isNull(); // b waited before a
    assertThat(db.gate("a").tryEnter(aWaits)).isNull();

    c.get(0).exit(TaskOutcome.COMPLETED); // a and b below their 2: a first
    assertThat(aWaits.readies).hasValue(1);
    assertThat(bWaits.readies).hasValue(0);
    c.get(1).exit(TaskOutcome.COMPLETED); // a has its 2 (one reserved): b
    assertThat(bWaits.readies).hasValue(1);
    c.get(2).exit(TaskOutcome.COMPLETED); // c below its 2 now, with a worker waiting
    assertThat(cWaits.readies).hasValue(1);
    SharesStats s = db.stats();
    assertThat(s.partition("a").releasesOwed()).isEqualTo(1);
    assertThat(s.partition("a").releasesOwedGranted()).isEqualTo(1);
    assertThat(s.partition("b").releasesOwed()).isEqualTo(1);
    assertThat(s.partition("b").releasesOwedGranted()).isEqualTo(1);
    assertThat(s.partition("c").releasesOwedGranted()).isEqualTo(1);
    assertThat(s.partition("c").borrowedTotal()).isEqualTo(2);
    assertThat(s.reserved()).isEqualTo(3);
    assertThat(s.held() + s.reserved() + s.free()).isEqualTo(6);
  }

  @Test
  void permitsLentByAnIdlePartitionGoToTheHighestPriorityBorrowerFirst() {
    PriorityShares db = PriorityShares.builder("db", 10).ticker(clock::get)
        .lendAfterIdle(Duration.ZERO).claimTimeout(CLAIM_TIMEOUT)
        .partition("checkout", 0.3).partition("reports", 0.3).partition("batch", 0.4).build();
    List<LaneGate.Pass> batch = enter(db.gate("batch"), 4);
    enter(db.gate("checkout"), 3);
    enter(db.gate("reports"), 3);
    List<Worker> checkoutWaits = List.of(new Worker(), new Worker(), new Worker(), new Worker());
    Worker reportsWaits = new Worker();
    assertThat(db.gate("reports").tryEnter(reportsWaits)).isNull();
    for (Worker w : checkoutWaits) {
      assertThat(db.gate("checkout").tryEnter(w)).isNull();
    }
    for (int i = 0; i < 3; i++) {
      batch.get(i).exit(TaskOutcome.COMPLETED); // batch still active: its guarantee is kept
    }
    assertThat(db.stats().free()).isEqualTo(3);
    assertThat(checkoutWaits).allMatch(w -> w.readies.get() == 0);
    batch.get(3).exit(TaskOutcome.COMPLETED); // batch idle (lendAfterIdle 0): 4 to lend
    assertThat(checkoutWaits).allMatch(w -> w.readies.get() == 1);
    assertThat(reportsWaits.readies).hasValue(0);
    assertThat(db.stats().partition("checkout").reserved()).isEqualTo(4);
    assertThat(db.stats().guaranteeBreaches()).isZero();
  }

  @Test
  void anyWorkerOfThePartitionMayTakeAReservedPermit() {
    PriorityShares db = shares(2).partition("a", 0.5).partition("b", 0.5).build();
    LaneGate.Pass a = enter(db.gate("a"), 1).get(0);
    enter(db.gate("b"), 1);
    Worker woken = new Worker();
    assertThat(db.gate("a").tryEnter(woken)).isNull();
    a.exit(TaskOutcome.COMPLETED);
    assertThat(woken.readies).hasValue(1);
    Worker other = new Worker();
    assertThat(db.gate("a").tryEnter(other)).isNotNull(); // took the reservation
    assertThat(db.gate("a").tryEnter(woken)).isNull(); // came late: waits again
    SharesStats s = db.stats();
    assertThat(s.reserved()).isZero();
    assertThat(s.partition("a").waiting()).isEqualTo(1);
  }

  @Test
  void aReservationNobodyClaimsIsGivenBackAndTheOtherWaitersAreWoken() {
    PriorityShares db = shares(2).partition("a", 0.5).partition("b", 0.5).build();
    LaneGate.Pass a = enter(db.gate("a"), 1).get(0);
    enter(db.gate("b"), 1);
    Worker gone = new Worker();
    Worker idleToo = new Worker();
    assertThat(db.gate("a").tryEnter(gone)).isNull();
    assertThat(db.gate("a").tryEnter(idleToo)).isNull();
    a.exit(TaskOutcome.COMPLETED);
    assertThat(gone.readies).hasValue(1);
    assertThat(idleToo.readies).hasValue(0);

    advance(CLAIM_TIMEOUT);
    await().atMost(Duration.ofSeconds(10)).until(() -> idleToo.readies.get() == 1);
    SharesStats s = db.stats();
    assertThat(s.partition("a").reservationsExpired()).isEqualTo(1);
    assertThat(s.partition("a").waiting()).isZero();
    assertThat(s.reserved()).isZero();
    assertThat(s.free()).isEqualTo(1);
    assertThat(db.gate("a").tryEnter(idleToo)).isNotNull();
  }

  @Test
  void aReservationIsKeptUntilTheClaimTimeout() {
    PriorityShares db = shares(2).partition("a", 0.5).partition("b", 0.5).build();
    LaneGate.Pass a = enter(db.gate("a"), 1).get(0);
    enter(db.gate("b"), 1);
    Worker slow = new Worker();
    assertThat(db.gate("a").tryEnter(slow)).isNull();
    a.exit(TaskOutcome.COMPLETED);
    caller = Thread.currentThread();
    advance(CLAIM_TIMEOUT.minusNanos(1));
    // Once RECHECKS more rechecks read the clock, at least RECHECKS - 1 ran to the end 1 ns short
    // of the claim timeout, however busy the machine. None may give it back.
    int before = recheckReads.get();
    await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() ->
        recheckReads.get() >= before + RECHECKS
            || db.stats().partition("a").reservationsExpired() > 0);
    assertThat(db.stats().partition("a").reservationsExpired()).isZero();
    assertThat(db.gate("a").tryEnter(slow)).isNotNull();
  }

  @Test
  void aPassExitedTwiceCountsOnceAndTheBooksBalance() {
    PriorityShares db = shares(4).partition("a", 0.5).partition("b", 0.5).build();
    List<LaneGate.Pass> a = enter(db.gate("a"), 3);
    a.get(0).exit(TaskOutcome.COMPLETED);
    a.get(0).exit(TaskOutcome.COMPLETED);
    a.get(1).exit(null); // unused pass
    PartitionStats s = db.stats().partition("a");
    assertThat(s.granted()).isEqualTo(3);
    assertThat(s.exited()).isEqualTo(2);
    assertThat(s.granted() - s.exited()).isEqualTo(s.held()).isEqualTo(1);
    assertThat(db.stats().free()).isEqualTo(3);
  }

  @Test
  void aReadyThatThrowsDoesNotKeepTheOthersFromRunning() {
    PriorityShares db = shares(2).partition("a", 0.5).partition("b", 0.5).build();
    LaneGate.Pass a = enter(db.gate("a"), 1).get(0);
    enter(db.gate("b"), 1);
    Worker first = new Worker();
    Runnable throwing = () -> {
      throw new IllegalStateException("expected by the test: a ready that throws");
    };
    Worker last = new Worker();
    assertThat(db.gate("a").tryEnter(first)).isNull();
    assertThat(db.gate("a").tryEnter(throwing)).isNull();
    assertThat(db.gate("a").tryEnter(last)).isNull();
    a.exit(TaskOutcome.COMPLETED); // reserves for `first`, which never claims it
    advance(CLAIM_TIMEOUT); // the recheck wakes `throwing`, then `last`
    await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10)).until(() -> last.readies.get() == 1);
  }
}
