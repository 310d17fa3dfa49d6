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
 * {@link TaskRing}'s growth (issue #27): the switch to a larger array, made by a consumer that
 * finds the array empty and the overflow not, races a second consumer and a producer whose append
 * may find the overflow empty and go to the array — old or new — while the switch is under way.
 * Every entry is taken exactly once, with its own stamp, and C (queued before the producer
 * started) is never taken after D.
 */
@JCStressTest
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "each taken once, in order")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, duplicated, torn or out of order")
@State
public class GrowthStress {
  private static final Integer A = 1;
  private static final Integer B = 2;
  private static final Integer C = 3;
  private static final Integer D = 4;

  private final TaskRing ring = new TaskRing(2, 8);
  private final TaskRing.Taken taken1 = new TaskRing.Taken();
  private final TaskRing.Taken taken2 = new TaskRing.Taken();
  private Object got1;
  private Object got2;

  public GrowthStress() {
    // A and B fill the array of two; C spills and asks for growth; A and B are taken: the array
    // is empty, the overflow holds C, and the next consumer to look switches arrays.
    ring.append(A, 101);
    ring.append(B, 202);
    ring.append(C, 303);
    TaskRing.Taken t = new TaskRing.Taken();
    ring.poll(t);
    ring.poll(t);
  }

  @Actor
  public void consumer1() {
    got1 = ring.poll(taken1);
  }

  @Actor
  public void consumer2() {
    got2 = ring.poll(taken2);
  }

  @Actor
  public void producer() {
    ring.append(D, 404);
  }

  @Arbiter
  public void rest(III_Result r) {
    boolean dTakenByActor = false;
    dTakenByActor |= count(r, got1, taken1.stamp);
    dTakenByActor |= count(r, got2, taken2.stamp);
    TaskRing.Taken t = new TaskRing.Taken();
    boolean sawD = dTakenByActor;
    for (Object x; (x = ring.pollClaimed(t)) != null; ) {
      if (x == C && sawD) {
        r.r3 += 1; // C came out after D
      }
      if (x == D) {
        sawD = true;
      }
      count(r, x, t.stamp);
    }
    if (ring.size() != 0 || ring.hasClaimed()) {
      r.r3 += 10;
    }
  }

  /** Counts a taken entry; true if it was D. */
  private static boolean count(III_Result r, Object x, long stamp) {
    if (x == C && stamp == 303) {
      r.r1++;
    } else if (x == D && stamp == 404) {
      r.r2++;
      return true;
    } else if (x != null) {
      r.r3 += 100; // torn (an entry with another's stamp) or one taken twice (A, B)
    }
    return false;
  }
}
