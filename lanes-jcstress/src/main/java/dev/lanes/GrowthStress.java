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
 * {@link TaskRing}'s growth (issue #27). A ring of two growing to eight holds 2 in its first
 * array and 3–6 in its second, which is full: one actor's append grows the ring (a new array from
 * the position it claims), racing the other actor, which takes 2 and 3 and then appends — and may
 * find the slot it wanted freed by its own take, checked in the old array, while the switch
 * happens at exactly its position before its CAS. Every entry is taken exactly once, with its
 * own stamp, in order (r1: entries taken right, 7 expected; r2: order broken; r3: torn or lost).
 */
@JCStressTest
@Outcome(id = "7, 0, 0", expect = ACCEPTABLE, desc = "each taken once, in order")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, duplicated, torn or out of order")
@State
public class GrowthStress {
  /** How often the arbiter looks for an entry claimed but not found before it calls it lost. */
  private static final int PATIENCE = 1_000_000;

  private final TaskRing ring = new TaskRing(2, 8);
  private final Taken taken = new Taken();
  private Object first;
  private long firstStamp;
  private Object second;
  private long secondStamp;

  public GrowthStress() {
    for (int i = 1; i <= 6; i++) {
      ring.append(i, i * 101L);
    }
    ring.poll(new Taken()); // 1
  }

  /** Takes 2 and 3 (freeing the slot 3 held) and then appends 7 (two actors: the machine has 2 CPUs). */
  @Actor
  public void consumerThenProducer() {
    first = ring.poll(taken);
    firstStamp = taken.stamp;
    second = ring.poll(taken);
    secondStamp = taken.stamp;
    ring.append(7, 707);
  }

  /** Finds the second array full (unless 3 was taken already) and grows the ring. */
  @Actor
  public void producer() {
    ring.append(8, 808);
  }

  @Arbiter
  public void rest(III_Result r) {
    int last = 1;
    last = check(r, first, firstStamp, last);
    last = check(r, second, secondStamp, last);
    Taken t = new Taken();
    for (int tries = 0; tries < PATIENCE && ring.hasClaimed(); tries++) {
      Object x = ring.poll(t);
      if (x != null) {
        last = check(r, x, t.stamp, last);
      }
    }
    if (ring.hasClaimed()) {
      r.r3 += 100; // claimed and never found: lost
    }
  }

  /** Counts one taken entry; 2–6 must come in order, and before 7 and 8. */
  private static int check(III_Result r, Object x, long stamp, int last) {
    if (x == null) {
      return last;
    }
    int v = (Integer) x;
    if (stamp != v * 101L) {
      r.r3 += 10; // torn: an entry with another's stamp
      return last;
    }
    r.r1++;
    if (v <= 6 ? v != last + 1 : last < 6) {
      r.r2++;
    }
    return Math.max(last, v);
  }
}
