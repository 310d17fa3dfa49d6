package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A surplus worker's put-back racing {@code shutdownNow} (DESIGN.md, "Live changes"; {@code
 * Worker.giveBackUnrun}), on a real lane: the worker took the lane's one queued task, then found
 * its permit surplus (the concurrency was lowered) and puts the task back at the head of the
 * queue, unrun (actor 1), while {@code shutdownNow} stops the lane and drains the queue (actor 2).
 * The task is a plain {@code execute} entry or a submitted future, in turn (r3).
 *
 * <p>Whatever the order, the task ends exactly once: returned by {@code shutdownNow} (the drain
 * found it back in the queue) or ended SHUTDOWN by the worker (the drain had passed: nobody else
 * would end it), its admission slot given back and the stats balanced. Without the worker's
 * re-check of the run state after its put-back, a drain that passed first leaves the task in the
 * queue of a stopped lane for good: r1 bit 1.
 *
 * <p>The lane ({@code Lane.virtual(.., 1)}) never starts a thread: the test's worker holds its
 * only permit, as a running worker would, so the submission starts none. The arbiter checks the
 * books.
 *
 * <p>Result: r1 = what broke, 0 if nothing (bits: 1 the task not ended exactly once; 2 an
 * admission slot left or given back twice; 4 stats do not balance or count an outcome other than
 * SHUTDOWN or RETURNED; 8 an entry left in the queue); r2 = {@code shutdownNow} returned the task
 * (1) or the worker ended it (0); r3 = a submitted future (1) or a plain task (0).
 */
@JCStressTest
@Outcome(id = "0, 1, [01]", expect = ACCEPTABLE, desc = "the drain found the task put back: returned")
@Outcome(id = "0, 0, [01]", expect = ACCEPTABLE, desc = "the drain passed first: the worker ended it")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "the task lost or ended twice (r1 bits)")
@State
public class PutBackStress {
  private static final AtomicInteger ROLES = new AtomicInteger();

  private final int submitted = Math.floorMod(ROLES.getAndIncrement(), 2);
  private final LaneExecutor lane;
  private final Worker worker;
  private final Runnable plain = () -> { };
  private final Future<?> future;
  /** What the worker took, to put back. */
  private final Object taken;
  private volatile List<Runnable> returned;

  public PutBackStress() {
    lane = (LaneExecutor) Lane.virtual("put-back", 1).queueCapacity(4).build();
    lane.health.unregister(); // nothing here needs the health thread
    lane.pool.permits.tryAcquire(); // the test's worker holds the only permit
    worker = new Worker(lane.ctx, lane.books, lane.admission, lane.pool, PoolWorker.Kind.ELASTIC);
    worker.holdsPermit = true;
    if (submitted == 1) {
      future = lane.submit(() -> { });
    } else {
      future = null;
      lane.execute(plain);
    }
    taken = lane.books.takeLive(worker.taken);
    if (taken == null) {
      throw new IllegalStateException("the queued task was not taken");
    }
  }

  @Actor
  public void surplusWorker() {
    worker.giveBackUnrun(taken, worker.taken);
  }

  @Actor
  public void shutdownNow() {
    returned = lane.shutdownNow();
  }

  @Arbiter
  public void books(III_Result r) {
    int bugs = 0;
    LaneStats s = lane.stats();
    boolean wasReturned = returned.size() == 1
        && returned.get(0) == (submitted == 1 ? future : plain);
    long endedShutdown = s.count(TaskOutcome.SHUTDOWN);
    if (returned.size() > 1 || (wasReturned ? 1 : 0) + endedShutdown != 1) {
      bugs |= 1;
    }
    if (lane.admission.unfinished() != 0) {
      bugs |= 2;
    }
    if (s.submitted() != 1 || s.endedTotal() != 1 || s.queued() != 0 || s.running() != 0
        || s.count(TaskOutcome.SHUTDOWN) + s.count(TaskOutcome.RETURNED) != 1
        || s.count(TaskOutcome.RETURNED) != (wasReturned ? 1 : 0)) {
      bugs |= 4;
    }
    if (lane.ring.hasClaimed()) {
      bugs |= 8;
    }
    r.r1 = bugs;
    r.r2 = wasReturned ? 1 : 0;
    r.r3 = submitted;
  }
}
