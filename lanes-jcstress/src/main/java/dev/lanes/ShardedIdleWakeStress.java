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
 * {@link TaskRing}'s idle protocol on a ring of two shards (issue #27): a worker whose home is
 * shard 0 parks in {@code await} while a producer appends to shard 1 and calls {@code wakeIdle}.
 * The worker announces itself and then re-reads every shard's {@code tail}, so it must always come
 * back; if {@code await} looked at its home shard alone, the entry in shard 1 would leave it
 * parked (a lost wake-up).
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker came back")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wake-up: parked with work in the other shard")
@State
public class ShardedIdleWakeStress {
  private final TaskRing ring = new TaskRing(4, 4, false, 2);
  private final Worker worker = new Worker(null, null, null, null, PoolWorker.Kind.CORE); // home shard 0

  @Actor
  public void worker() {
    worker.thread = Thread.currentThread();
    while (!ring.await(worker.idler, -1, 0)) {
      // untimed: returns only once woken or an entry is claimed
    }
  }

  @Signal
  public void producer() {
    ring.appendTo(1, "task", 1);
    ring.wakeIdle();
  }
}
