package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * The gate's park/wake handshake ({@code Worker.takeThroughGate} / {@code awaitGate}, the worker's
 * {@code gateReady}, and {@code LaneExecutor.wakeAll} → {@code WorkerPool.wakeGateWaiters}), on a
 * real gated lane: {@code Lane.virtual(.., 1).gate(gate)} with one task queued. The actor thread
 * <em>is</em> the lane's one elastic worker: the test registers a {@link Worker} as the pool does
 * when it starts one (a permit, a live worker, in {@code workers}; taken before the task is
 * submitted, so the lane starts no thread of its own) and the actor runs its real loop ({@link
 * Worker#run()}). The worker clears {@code gateOpened}, asks the gate, gets null, sets {@code
 * atGate}, re-checks {@code gateOpened}, the ring's epoch and the run state, and parks (untimed:
 * the gate never throws, so there is no back-off).
 *
 * <p>Each test: the worker must come back — get through the gate, run the task, find the ring
 * empty and leave (the actor returns). STALE (the actor still parked) means a wake-up was missed:
 * the worker parked for good after the one signal that was going to come.
 */
public class GateWakeStress {

  abstract static class GatedLane {
    final LaneExecutor lane;
    final Worker worker;
    /** The {@code ready} the gate was given with its "not now"; null until then. */
    volatile Runnable waiting;

    GatedLane() {
      lane = (LaneExecutor) Lane.virtual("gated", 1).gate(this::tryEnter).build();
      // What WorkerPool.dispatch/startWorker do for an elastic worker, less starting a thread:
      // the actor's thread runs it. Done before the submission, so the lane starts none.
      lane.pool.permits.set(1);
      worker = new Worker(lane, Worker.Kind.ELASTIC);
      worker.holdsPermit = true;
      lane.pool.liveWorkers.incrementAndGet();
      lane.pool.workers.add(worker);
      lane.execute(() -> { });
    }

    abstract LaneGate.Pass tryEnter(Runnable ready);

    /** The actor: the worker's loop, until it leaves; then the lane goes (it must terminate). */
    final void runWorker() {
      worker.run();
      lane.shutdown();
    }
  }

  /**
   * The gate says "not now" once (keeping {@code ready}) and later, from another thread, opens and
   * runs {@code ready}; that may happen while {@code tryEnter} has not returned yet, before the
   * worker set {@code atGate}, between its re-check and its park, or while it is parked.
   */
  @JCStressTest(Mode.Termination)
  @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker saw ready, passed, ran the task")
  @Outcome(id = "STALE", expect = FORBIDDEN, desc = "ready was missed: parked at the gate for good")
  @State
  public static class Ready extends GatedLane {
    private volatile boolean open;

    @Override
    LaneGate.Pass tryEnter(Runnable ready) {
      if (open) {
        return outcome -> { };
      }
      waiting = ready; // from here on the signal may run it, before this call has returned
      return null;
    }

    @Actor
    public void worker() {
      runWorker();
    }

    @Signal
    public void release() {
      Runnable r;
      while ((r = waiting) == null) {
        Thread.onSpinWait(); // the gate has not said "not now" yet
      }
      open = true;
      r.run();
    }
  }

  /**
   * The gate says "not now" while the lane runs and never runs {@code ready}; it lets tasks
   * through once the lane is shut down. {@code shutdown()} moves the state, then {@code wakeAll}
   * moves the ring's epoch and unparks the workers it sees {@code atGate}: that is the worker's
   * only wake-up, so it must not be missed whichever side goes first.
   */
  @JCStressTest(Mode.Termination)
  @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker saw the wake-all, passed, ran the task")
  @Outcome(id = "STALE", expect = FORBIDDEN, desc = "the wake-all was missed: parked at the gate for good")
  @State
  public static class WakeAll extends GatedLane {
    @Override
    LaneGate.Pass tryEnter(Runnable ready) {
      if (lane.isShutdown()) {
        return outcome -> { };
      }
      waiting = ready; // never run
      return null;
    }

    @Actor
    public void worker() {
      runWorker();
    }

    @Signal
    public void shutdown() {
      lane.shutdown();
    }
  }
}
