package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Discard-oldest's look past the entries a free worker is about to take ({@link
 * TaskRing#pollBehind}) racing that worker's take ({@link TaskRing#poll}), on a lane's ring (one
 * shard, entries put back served first). A and B are queued; the discarder spares one entry (one
 * worker is free) and takes the next as its victim, while the worker takes one.
 *
 * <p>The worker must take A, the oldest: the discarder moves A to the head (the put-back list)
 * before it polls B, and a worker that checked the head while it was still empty and then polled
 * the shard behind A's move would take B, leaving A, the task it was spared for, to the next
 * discard. The discarder gets B, or nothing if the worker took A first (it then finds only B,
 * spares it and retries; the lane's {@code sparedTasks} is 0 once the worker runs A).
 *
 * <p>Result: r1 = the worker's entry (1 A, 2 B, 0 none); r2 = the discarder's; r3 = entries left
 * in the ring.
 */
@JCStressTest
@Outcome(id = "1, 2, 0", expect = ACCEPTABLE, desc = "worker took A, the discarder B")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "worker took A first; B spared, left")
@Outcome(id = "2, .*", expect = FORBIDDEN, desc = "the worker passed A, the entry spared for it")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, taken twice or not taken")
@State
public class SparedEntryStress {
  private static final Object A = "A";
  private static final Object B = "B";

  private final TaskRing ring = new TaskRing(4, 4, false, 1, true);
  private final Taken workerTaken = new Taken();
  private final Taken discarderTaken = new Taken();
  private Object worker;
  private Object discarder;

  public SparedEntryStress() {
    ring.append(A, 1);
    ring.append(B, 2);
  }

  @Actor
  public void worker() {
    worker = ring.poll(workerTaken);
  }

  @Actor
  public void discarder() {
    discarder = ring.pollBehind(1, discarderTaken);
  }

  @Arbiter
  public void arbiter(III_Result r) {
    r.r1 = code(worker);
    r.r2 = code(discarder);
    int left = 0;
    Taken t = new Taken();
    while (ring.poll(t) != null) {
      left++;
    }
    r.r3 = left;
  }

  private static int code(Object x) {
    return x == A ? 1 : x == B ? 2 : 0;
  }
}
