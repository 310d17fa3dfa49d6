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
 * A shutdown (the lane's state changes, then {@link TaskRing#wakeAll}) against a worker's loop with
 * nothing in the ring: the worker reads the wake-all epoch, then the state, and parks only if the
 * lane still runs. It must come back in every interleaving: if the shutdown came before its state
 * read it sees it and does not park; if after, the epoch it read is stale and {@code await}
 * returns (it re-reads the epoch after it announced itself idle).
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker came back")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the wake-all was missed")
@State
public class WakeAllStress {
  private final TaskRing ring = new TaskRing(4);
  private final Worker worker = new Worker(null, null, null, null, PoolWorker.Kind.CORE);
  private volatile boolean shutDown;

  @Actor
  public void worker() {
    worker.thread = Thread.currentThread();
    for (; ; ) {
      int epoch = ring.epoch();
      if (shutDown) {
        return; // the loop's exit
      }
      ring.await(worker.idler, -1, epoch);
    }
  }

  @Signal
  public void shutdown() {
    shutDown = true;
    ring.wakeAll();
  }
}
