package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Ownership of a queued task ({@link LaneFuture}): a worker that took its entry from the ring
 * ({@code tryTake}) races a canceller or the deadlock breaker ({@code tryKill}). Exactly one may
 * own it — else the task would run and be counted cancelled, or be counted twice.
 */
@JCStressTest
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker owns it")
@Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the canceller owns it (dead entry)")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "both or neither")
@State
public class TakeOrKillStress {
  private final LaneFuture<Void> task = LaneFuture.internal(null, () -> {}, null, "", 0);

  @Actor
  public void worker(ZZ_Result r) {
    r.r1 = task.tryTake();
  }

  @Actor
  public void canceller(ZZ_Result r) {
    r.r2 = task.tryKill();
  }
}
