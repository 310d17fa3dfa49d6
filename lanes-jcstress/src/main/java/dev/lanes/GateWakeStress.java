package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * The gate's park/wake handshake ({@code Worker.takeThroughGate} / {@code awaitGate}, the worker's
 * {@code gateReady}, and {@code WorkerPool.wakeAll} → {@code WorkerPool.wakeGateWaiters}), on a
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
 *
 * <p>Aiming the signal: jcstress calls the signal a millisecond or more after the actor started,
 * when the worker would long be parked, so the actor waits for the signal to start ({@code go})
 * and the signal waits for the gate's "not now"; then the gate and the signal each wait a delay
 * taken in turn per state (none, a short or long spin, a yield), so the signal lands inside the
 * gate's call, before {@code atGate}, or on a parked worker. What this cannot reach is a window of
 * a few instructions inside {@code awaitGate} itself (between the re-check and the park, or a
 * waker's epoch move and its read of {@code atGate}): jcstress runs a one-actor test on one CPU,
 * so only a preemption there would show it. Broken on purpose (clearing {@code gateOpened} after
 * asking the gate; no epoch re-check; {@code wakeAll} not unparking the workers at the gate),
 * the quick run reported STALE in every configuration; announcing {@code atGate} after the re-check
 * it did not catch.
 */
public class GateWakeStress {

  /**
   * Delays for the gate's "not now" and for the signal after it, in turn per state, so the signal
   * lands in each window of the handshake: none, a short or a long spin, or a yield. (jcstress
   * gives a one-actor test one CPU, so actor and signal share it: a yield is what lets the signal
   * run inside the gate's call; the spins matter where they have a CPU each.)
   */
  private static final int DELAYS = 4;
  private static final AtomicInteger STATES = new AtomicInteger();

  static void delay(int kind) {
    switch (kind) {
      case 0 -> { }
      case 1 -> spin(100);
      case 2 -> Thread.yield();
      default -> spin(1000);
    }
  }

  private static void spin(int n) {
    for (int i = 0; i < n; i++) {
      Thread.onSpinWait();
    }
  }

  abstract static class GatedLane {
    final LaneExecutor lane;
    final Worker worker;
    /** The {@code ready} the gate was given with its "not now"; null until then. */
    volatile Runnable waiting;
    /** Set when the signal starts: the worker starts then, so the two overlap. */
    volatile boolean go;
    /** How long the gate's "not now" takes, and how long the signal waits after it. */
    final int gateDelay;
    final int signalDelay;

    GatedLane() {
      int n = STATES.getAndIncrement();
      gateDelay = Math.floorMod(n, DELAYS);
      signalDelay = Math.floorMod(n / DELAYS, DELAYS);
      lane = (LaneExecutor) Lane.virtual("gated", 1).gate(this::tryEnter).build();
      lane.health.unregister(); // off the health thread's list: nothing here needs it
      // What WorkerPool.dispatch/startWorker do for an elastic worker, less starting a thread:
      // the actor's thread runs it. Done before the submission, so the lane starts none.
      lane.pool.permits.tryAcquire();
      worker = new Worker(lane.ctx, lane.books, lane.admission, lane.pool, PoolWorker.Kind.ELASTIC);
      worker.holdsPermit = true;
      lane.pool.liveWorkers.incrementAndGet();
      lane.pool.workers.add(worker);
      lane.execute(() -> { });
    }

    /** The signal's start: lets the worker go, then waits for the gate's "not now" and spins. */
    final Runnable awaitNotNow() {
      go = true;
      Runnable r;
      while ((r = waiting) == null) {
        Thread.yield(); // on a shared CPU the worker must get it to reach the gate
      }
      delay(signalDelay);
      return r;
    }

    abstract LaneGate.Pass tryEnter(Runnable ready);

    /**
     * The actor: waits for the signal to start (jcstress may call it well after the actor began,
     * when the worker would long be parked), then runs the worker's loop until it leaves; then the
     * lane goes (it must terminate).
     */
    final void runWorker() {
      while (!go) {
        Thread.yield();
      }
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
      delay(gateDelay);
      return null;
    }

    @Actor
    public void worker() {
      runWorker();
    }

    @Signal
    public void release() {
      Runnable r = awaitNotNow();
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
      delay(gateDelay); // the shutdown may come now: this "not now" is stale when it returns
      return null;
    }

    @Actor
    public void worker() {
      runWorker();
    }

    @Signal
    public void shutdown() {
      awaitNotNow();
      lane.shutdown();
    }
  }
}
