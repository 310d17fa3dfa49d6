package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A late append to a stopped lane (DESIGN.md, "A late append to a stopped lane"; {@code
 * LaneBooks.endLateEntries}), on a real lane: submitter A (actor 1) appends a plain task to a
 * stopped lane and re-checks ({@code LaneExecutor.afterAppend}), which takes back everything in the
 * ring — B's plain task too, queued before A's. Its rival (actor 2), chosen per state in turn (r2):
 *
 * <ul>
 *   <li>0: B appended after {@code shutdownNow} drained the ring and re-checks now. B's {@code
 *       execute} must throw whether A took its entry back first (an orphan B claims, after waiting
 *       for A to keep it) or B took it itself; both tasks end SHUTDOWN.
 *   <li>1: B left before the stop (its entry was queued while the lane ran) and the rival is {@code
 *       shutdownNow}. A throws and {@code shutdownNow} returns B's task (whether it drained it
 *       itself or claimed it as A's orphan), or {@code shutdownNow} drained both and A's re-check
 *       finds nothing of its own: A returns normally, its task among those returned.
 * </ul>
 *
 * <p>The lane ({@code Lane.virtual(.., 1)}) never starts a thread: its entries are appended
 * directly (admitted, then {@code ring.append}, as {@code accept} does), so nobody but the actors
 * takes them. The arbiter checks the books.
 *
 * <p>Result: r1 = what broke, 0 if nothing (bits: 1 a task neither refused to its caller nor
 * returned, or both; 2 an admission slot left or given back twice; 4 stats do not balance or count
 * a task other than SHUTDOWN or RETURNED; 8 an orphan left behind); r2 = the rival; r3 = A's
 * {@code execute} threw (1) or not; r4 = in case 0, B's threw, in case 1, the tasks {@code
 * shutdownNow} returned. Without the wait for sweepers, B can look for its orphan before A has
 * kept it, find nothing, and return normally (bit 1, and 8: the orphan is left behind); without
 * the orphans, B never finds an entry A took back.
 */
@JCStressTest
@Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE, desc = "B's re-check: both refused to their callers")
@Outcome(id = "0, 1, 1, 1", expect = ACCEPTABLE, desc = "shutdownNow: A refused, B's task returned")
@Outcome(id = "0, 1, 0, 2", expect = ACCEPTABLE, desc = "shutdownNow drained both first: both returned")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task lost or ended twice (r1 bits)")
@State
public class LateAppendStress {
  private static final AtomicInteger ROLES = new AtomicInteger();

  private final int rival = Math.floorMod(ROLES.getAndIncrement(), 2);
  private final LaneExecutor lane;
  private final Runnable taskA = () -> { };
  private final Runnable taskB = () -> { };
  private volatile int aThrew;
  private volatile int rivalResult;
  private volatile boolean returnedA;
  private volatile boolean returnedB;

  public LateAppendStress() {
    lane = (LaneExecutor) Lane.virtual("late-append", 1).queueCapacity(4).build();
    lane.health.unregister(); // states wait in batches; the health thread has nothing to do here
    if (rival == 0) {
      lane.shutdownNow(); // nothing queued, no thread: stopped at once
      append(taskB); // B's append after the drain; its re-check is the rival
    } else {
      append(taskB); // queued while the lane ran; B re-checked then and left
      lane.runState.advanceTo(RunState.STOP); // shutdownNow's first step; the rest is the rival
    }
  }

  private void append(Runnable task) {
    if (!lane.admission.tryAdmit(1 + 4)) {
      throw new IllegalStateException("no room");
    }
    lane.ring.append(task, lane.ticker.read());
  }

  private static int threw(Runnable recheck) {
    try {
      recheck.run();
      return 0;
    } catch (LaneRejectedException e) {
      return 1;
    }
  }

  @Actor
  public void submitterA() {
    append(taskA);
    aThrew = threw(() -> lane.afterAppend(taskA));
  }

  @Actor
  public void rival() {
    if (rival == 0) {
      rivalResult = threw(() -> lane.afterAppend(taskB));
    } else {
      List<Runnable> returned = lane.shutdownNow();
      rivalResult = returned.size();
      returnedA = returned.contains(taskA);
      returnedB = returned.contains(taskB);
    }
  }

  @Arbiter
  public void books(IIII_Result r) {
    int bugs = 0;
    int refusedA = aThrew;
    int endedA;
    int endedB;
    if (rival == 0) {
      endedA = refusedA;
      endedB = rivalResult;
    } else {
      endedA = refusedA + (returnedA ? 1 : 0);
      endedB = returnedB ? 1 : 0;
    }
    if (endedA != 1 || endedB != 1) {
      bugs |= 1;
    }
    if (lane.admission.unfinished() != 0) {
      bugs |= 2;
    }
    LaneStats s = lane.stats();
    if (s.submitted() != 2 || s.endedTotal() != 2 || s.queued() != 0 || s.running() != 0
        || s.count(TaskOutcome.SHUTDOWN) + s.count(TaskOutcome.RETURNED) != 2
        || s.count(TaskOutcome.RETURNED) != (rival == 0 ? 0 : rivalResult)) {
      bugs |= 4;
    }
    if (!lane.books.claimOrphans().isEmpty()) {
      bugs |= 8;
    }
    r.r1 = bugs;
    r.r2 = rival;
    r.r3 = aThrew;
    r.r4 = rivalResult;
  }
}
