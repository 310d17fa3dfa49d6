package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Discard-oldest's hand-over ({@code LaneExecutor.overflow}, case DISCARD_OLDEST), on a real lane:
 * a submitter that finds the lane full polls the oldest entry from the ring, takes ownership of
 * its task ({@code ownedEnvelope} → {@code LaneFuture.tryTake}, QUEUED → TAKEN), ends it as
 * DISCARDED_OLDEST <em>without</em> giving its admission slot back ({@code endQueued(victim,
 * outcome, false, true)}) and appends its own task into that slot.
 *
 * <p>The lane: {@code Lane.virtual(.., 1).queueCapacity(1).overflow(discardOldest())}, room for two
 * unfinished tasks, with A and B queued before the actors start (full). Submitter C (actor 1)
 * races one rival (actor 2), chosen per state in turn (r2): 0, the lane's worker taking one entry
 * ({@code takeLive}, then {@code Worker.runTask}, which gives the slot back after the run); 1, a
 * canceller of A, the oldest ({@code cancel} → {@code tryKill}, which gives the slot back and
 * leaves a dead entry); 2, a second discard-oldest submitter, D. (One test with a rotating rival
 * rather than three: jcstress schedules no more actors than the machine has CPUs, and the quick
 * run's time is per test.) The test's own {@link Worker} plays the lane's one elastic worker: it
 * holds the lane's only permit (taken before the first submission, so the lane never starts a
 * thread and nothing runs behind the test's back) and takes and runs entries exactly as {@code
 * Worker.runEntry} does an envelope. The arbiter then takes and runs what is left, so every task
 * has ended, and checks the books. (The lane is taken off the health thread's list at once:
 * nothing here needs it, and states wait in batches before their actors run, which it would log
 * as saturation.)
 *
 * <p>Must hold in every interleaving: each task ends exactly once (one {@link TaskRecord}: ran,
 * discarded or cancelled, never two, never none; its code ran once iff it ended COMPLETED), the
 * admission count is 0 once all ended (no slot leaked, none given back twice), {@code deadEntries}
 * is 0 once the ring is drained (each dead entry counted once, dropped once: never left negative),
 * the lane's stats balance (every task submitted ended, none queued or running) and the lane
 * terminates on shutdown.
 *
 * <p>Result: r1 = what broke, 0 if nothing (bits: 1 a task ended twice or never, 2 a task's code
 * ran twice, or ran and also ended another way, 4 admission count not 0, 8 {@code deadEntries} not
 * 0, 16 stats do not balance, 32 the lane did not terminate); r2 = the rival; r3, r4, r5 = tasks
 * that ran, were discarded, were cancelled. Every FORBIDDEN outcome is a bug in the hand-over or
 * in one of the paths it races.
 */
@JCStressTest
@Outcome(id = "0, 0, 3, 0, 0", expect = ACCEPTABLE, desc = "worker: it ran one first, C took the slot freed")
@Outcome(id = "0, 0, 2, 1, 0", expect = ACCEPTABLE, desc = "worker: C discarded the oldest not taken")
@Outcome(id = "0, 1, 2, 1, 0", expect = ACCEPTABLE, desc = "canceller: C discarded A first, the cancel failed")
@Outcome(id = "0, 1, 2, 0, 1", expect = ACCEPTABLE, desc = "canceller: A cancelled, C took its slot")
@Outcome(id = "0, 1, 1, 1, 1", expect = ACCEPTABLE, desc = "canceller: A cancelled, C discarded B before A's slot came back")
@Outcome(id = "0, 2, 2, 2, 0", expect = ACCEPTABLE, desc = "second submitter: each discarded a different task")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "books broken (r1 bits), or an ending no interleaving allows")
@State
public class DiscardOldestStress {
  private static final int TASKS = 4; // A, B queued; C, D to come
  private static final AtomicInteger ROLES = new AtomicInteger();

  private final int rival = Math.floorMod(ROLES.getAndIncrement(), 3);
  private final LaneExecutor lane;
  private final Worker worker;
  private final AtomicIntegerArray ends = new AtomicIntegerArray(TASKS);
  private final AtomicIntegerArray runs = new AtomicIntegerArray(TASKS);
  private final TaskOutcome[] outcome = new TaskOutcome[TASKS];
  private final CompletableFuture<?> a;

  public DiscardOldestStress() {
    lane = (LaneExecutor) Lane.virtual("discard-oldest", 1)
        .queueCapacity(1)
        .overflow(OverflowPolicy.discardOldest())
        .build();
    lane.health.unregister(); // see the class comment
    // The test's worker holds the only permit (as a running elastic worker would): submissions
    // find no free permit and start no thread.
    lane.pool.permits.tryAcquire();
    worker = new Worker(lane.ctx, lane.books, lane.admission, lane.pool, PoolWorker.Kind.ELASTIC);
    worker.holdsPermit = true;
    worker.tally = lane.timings.claim();
    lane.onTask(r -> {
      int i = r.label().charAt(0) - 'A';
      outcome[i] = r.outcome();
      ends.incrementAndGet(i);
    });
    a = submit(0);
    submit(1); // B: the lane is full now (limit 1 + 1)
  }

  private CompletableFuture<?> submit(int i) {
    return lane.submit(String.valueOf((char) ('A' + i)), () -> runs.incrementAndGet(i));
  }

  @Actor
  public void submitterC() {
    submit(2);
  }

  @Actor
  public void rival() {
    switch (rival) {
      case 0 -> { // one turn of the worker's loop
        Object x = lane.books.takeLive(worker.taken);
        if (x != null) {
          Worker.runTask(worker.taskRun, (LaneFuture<?>) x, -1);
        }
      }
      case 1 -> a.cancel(false);
      default -> submit(3);
    }
  }

  /** Runs what is left, checks the books, shuts the lane down (it must terminate). */
  @Arbiter
  public void books(IIIII_Result r) {
    for (Object x; (x = lane.books.takeLive(worker.taken)) != null; ) {
      Worker.runTask(worker.taskRun, (LaneFuture<?>) x, -1);
    }
    int tasks = rival == 2 ? TASKS : TASKS - 1;
    int bugs = 0;
    int ran = 0;
    int discarded = 0;
    int cancelled = 0;
    for (int i = 0; i < tasks; i++) {
      TaskOutcome o = outcome[i];
      if (ends.get(i) != 1) {
        bugs |= 1;
      }
      if (runs.get(i) != (o == TaskOutcome.COMPLETED ? 1 : 0)) {
        bugs |= 2;
      }
      if (o == TaskOutcome.COMPLETED) {
        ran++;
      } else if (o == TaskOutcome.DISCARDED_OLDEST) {
        discarded++;
      } else if (o == TaskOutcome.CANCELLED) {
        cancelled++;
      } else {
        bugs |= 1; // no ending, or one this test cannot produce
      }
    }
    if (lane.admission.unfinished() != 0) {
      bugs |= 4;
    }
    if (lane.books.deadEntries() != 0) {
      bugs |= 8;
    }
    LaneStats s = lane.stats();
    if (s.submitted() != tasks || s.endedTotal() != tasks || s.queued() != 0 || s.running() != 0
        || s.count(TaskOutcome.DISCARDED_OLDEST) != discarded
        || s.count(TaskOutcome.CANCELLED) != cancelled) {
      bugs |= 16;
    }
    lane.timings.release(worker.tally);
    worker.tally = null;
    worker.holdsPermit = false;
    lane.pool.permits.release(); // the test's worker leaves
    lane.shutdown();
    if (!lane.isTerminated()) {
      bugs |= 32;
    }
    r.r1 = bugs;
    r.r2 = rival;
    r.r3 = ran;
    r.r4 = discarded;
    r.r5 = cancelled;
  }
}
