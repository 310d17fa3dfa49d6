package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * {@link Worker}'s idle-interrupt protocol: {@code shutdown} may interrupt a core worker only while
 * it is idle on the queue, and the worker absorbs that interrupt before it runs anything, so it
 * never reaches a task. r1: the worker's interrupt flag after it became busy again (must be
 * false); r2: whether shutdown's interrupt was delivered.
 */
@JCStressTest
@Outcome(id = "false, false", expect = ACCEPTABLE, desc = "shutdown missed the idle window")
@Outcome(id = "false, true", expect = ACCEPTABLE_INTERESTING, desc = "interrupted while idle, absorbed")
@Outcome(id = "true, .*", expect = FORBIDDEN, desc = "an interrupt leaked past markBusy")
@State
public class IdleInterruptStress {
  private final Worker worker = new Worker(null, Worker.Kind.CORE, 0);

  @Actor
  public void worker(ZZ_Result r) {
    worker.thread = Thread.currentThread();
    worker.markIdle();
    worker.markBusy(); // the worker would now run a task
    r.r1 = Thread.interrupted();
  }

  @Actor
  public void shutdown(ZZ_Result r) {
    r.r2 = worker.interruptIfIdle();
  }
}
