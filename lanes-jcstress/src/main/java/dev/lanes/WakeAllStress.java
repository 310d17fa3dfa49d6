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
 * {@link TaskRing#wakeAll} (a shutdown, a lowered concurrency) against a worker about to park with
 * nothing in the ring: the worker must come back even if the wake-all ran before it was on the
 * idle stack (it re-reads the wake-all epoch after it announced itself).
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker came back")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the wake-all was missed")
@State
public class WakeAllStress {
  private final TaskRing ring = new TaskRing(4);
  private final Worker worker = new Worker(null, Worker.Kind.CORE);

  @Actor
  public void worker() {
    worker.thread = Thread.currentThread();
    while (!ring.await(worker, -1)) {
      // untimed
    }
  }

  @Signal
  public void shutdown() {
    ring.wakeAll();
  }
}
