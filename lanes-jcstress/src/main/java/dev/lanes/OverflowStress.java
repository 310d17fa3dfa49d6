package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link TaskRing}'s overflow (the linked part that takes what the array cannot): entries pass
 * through it exactly once, in order, with their stamps, and the idle protocol sees an entry there
 * as it sees one in the array.
 */
public class OverflowStress {
  private static final Integer A = 1;
  private static final Integer B = 2;
  private static final Integer C = 3;

  static void count(III_Result r, Object x, long stamp) {
    if (x == A && stamp == 101) {
      r.r1++;
    } else if (x == B && stamp == 202) {
      r.r2++;
    } else if (x == C && stamp == 303) {
      r.r3++;
    } else if (x != null) {
      r.r1 += 100; // torn: an entry with another's stamp
    }
  }

  /**
   * A full array of two (A, B): a producer appends C while a consumer takes the head. C goes to
   * the array if the consumer freed A's slot first, else to the overflow; the consumer always
   * gets A (the oldest), and the arbiter finds B and then C. r1..r3: times A, B, C were taken
   * right (+10 on r1 if the consumer got something other than A, +10 on r3 if C came out before B).
   */
  @JCStressTest
  @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "each taken once, in order")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, duplicated, torn or out of order")
  @State
  public static class ThroughAFullArray {
    private final TaskRing ring = new TaskRing(2);
    private final Taken taken = new Taken();
    private Object first;
    private long firstStamp;

    public ThroughAFullArray() {
      ring.append(A, 101);
      ring.append(B, 202);
    }

    @Actor
    public void producer() {
      ring.append(C, 303);
    }

    @Actor
    public void consumer() {
      first = ring.poll(taken);
      firstStamp = taken.stamp;
    }

    @Arbiter
    public void rest(III_Result r) {
      count(r, first, firstStamp);
      if (first != A) {
        r.r1 += 10;
      }
      Taken t = new Taken();
      boolean sawB = false;
      for (Object x; (x = ring.poll(t)) != null; ) {
        if (x == B) {
          sawB = true;
        } else if (x == C && !sawB && first != B) {
          r.r3 += 10;
        }
        count(r, x, t.stamp);
      }
    }
  }

  /**
   * The idle protocol through the overflow: the producer's entry goes to the overflow (as when
   * its slot of the array is still held by a consumer of the last lap); a worker parked in {@code
   * await} on the empty ring must come back.
   */
  @JCStressTest(Mode.Termination)
  @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker came back")
  @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wake-up: parked with work in the overflow")
  @State
  public static class IdleWake {
    private final TaskRing ring = new TaskRing(2);
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
      ring.spill(C, 303);
      ring.wakeIdle();
    }
  }
}
