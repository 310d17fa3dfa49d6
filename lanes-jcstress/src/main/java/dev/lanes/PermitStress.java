package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A virtual lane's permits ({@link Permits}): its only worker, holding the only permit, finds
 * the ring empty and gives the permit back as a submitter appends a task and looks for a free
 * permit. Exactly one of them must end up holding the permit: neither would strand the task (no
 * thread, a permit free), both would break the cap.
 */
@JCStressTest
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker saw the task and kept going")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the submitter took the freed permit")
@Outcome(id = "false, false", expect = FORBIDDEN, desc = "task stranded with a permit free")
@Outcome(id = "true, true", expect = FORBIDDEN, desc = "two permits under a cap of one")
@State
public class PermitStress {
  private final TaskRing ring = new TaskRing(4);
  private final Permits permits = new Permits(1);

  public PermitStress() {
    permits.tryAcquire(); // the worker holds the only one
  }

  @Actor
  public void worker(ZZ_Result r) {
    r.r1 = permits.releaseAndRecheck(ring);
  }

  @Actor
  public void submitter(ZZ_Result r) {
    ring.offer("task", 1);
    r.r2 = permits.acquireForQueued(ring);
  }
}
