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
 * {@link TaskRing}'s idle protocol: a worker that found the ring empty parks in {@code await}
 * while a producer appends and calls {@code wakeIdle}, in any interleaving. The worker must always
 * come back (the producer sees it idle and wakes it, or the worker sees the entry before it
 * parks); a worker left parked with an entry in the ring is a lost wake-up.
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker came back")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wake-up: parked with work waiting")
@State
public class IdleWakeStress {
  private final TaskRing ring = new TaskRing(4);
  private final Worker worker = new Worker(null, null, null, null, PoolWorker.Kind.CORE);

  @Actor
  public void worker() {
    worker.thread = Thread.currentThread();
    while (!ring.await(worker.idler, -1, 0)) {
      // untimed: returns only once woken or an entry is claimed
    }
  }

  @Signal
  public void producer() {
    ring.offer("task", 1);
    ring.wakeIdle();
  }
}
