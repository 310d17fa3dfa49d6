package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * {@link LaneFuture}'s cancel-interrupt protocol: {@code cancel(true)} may interrupt the running
 * thread only while this task runs, and the worker's {@code finishRun} waits out an interrupt in
 * progress and clears it, so it never reaches the next task on the same thread. r1: interrupted
 * during the run; r2: the flag after {@code finishRun} (must be false); r3: whether the canceller
 * interrupted.
 */
@JCStressTest
@Outcome(id = "false, false, false", expect = ACCEPTABLE, desc = "cancelled before or after the run")
@Outcome(id = "true, false, true", expect = ACCEPTABLE_INTERESTING, desc = "interrupted during the run, cleared")
@Outcome(id = "false, false, true", expect = ACCEPTABLE_INTERESTING, desc = "interrupted at the end of the run, cleared")
@Outcome(id = ".*, true, .*", expect = FORBIDDEN, desc = "an interrupt leaked past finishRun")
@Outcome(id = "true, false, false", expect = FORBIDDEN, desc = "interrupted by nobody")
@State
public class CancelInterruptStress {
  private final LaneFuture<Void> task = LaneFuture.internal(null, () -> {}, null, "", 0);

  @Actor
  public void worker(ZZZ_Result r) {
    task.markRunning(Thread.currentThread());
    r.r1 = Thread.currentThread().isInterrupted(); // the task's body would run here
    task.finishRun(false);
    r.r2 = Thread.interrupted();
  }

  @Actor
  public void canceller(ZZZ_Result r) {
    r.r3 = task.interruptIfRunning();
  }
}
