package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link TaskRing}'s hand-off, two threads at a time (the machines lanes is tested on have two
 * cores): two producers; two consumers; a producer and a consumer. Every entry must be taken
 * exactly once, with the stamp it was appended with. r1, r2: how many times entry 1 and entry 2
 * were taken with the right stamp (a torn entry adds 100). And {@link Size}: the size read while
 * entries pass through never exceeds what the ring held.
 */
public class RingStress {
  private static final Integer ONE = 1;
  private static final Integer TWO = 2;

  static void count(II_Result r, Object x, long stamp) {
    if (x == ONE && stamp == 101) {
      r.r1++;
    } else if (x == TWO && stamp == 202) {
      r.r2++;
    } else if (x != null) {
      r.r1 += 100;
    }
  }

  static void drain(TaskRing ring, II_Result r) {
    Taken t = new Taken();
    for (Object x; (x = ring.poll(t)) != null; ) {
      count(r, x, t.stamp);
    }
  }

  /** Two producers claim positions by CAS on the tail; the arbiter takes both. */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both appended, each taken once")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, duplicated or torn")
  @State
  public static class Producers {
    private final TaskRing ring = new TaskRing(2);

    @Actor
    public void producer1() {
      ring.offer(ONE, 101);
    }

    @Actor
    public void producer2() {
      ring.offer(TWO, 202);
    }

    @Arbiter
    public void rest(II_Result r) {
      drain(ring, r);
    }
  }

  /** Two consumers race for two published entries by CAS on the head. */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "each entry taken once")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, taken twice or torn")
  @State
  public static class Consumers {
    private final TaskRing ring = new TaskRing(2);
    private final Taken t1 = new Taken();
    private final Taken t2 = new Taken();
    private Object got1;
    private Object got2;

    public Consumers() {
      ring.offer(ONE, 101);
      ring.offer(TWO, 202);
    }

    @Actor
    public void consumer1() {
      got1 = ring.poll(t1);
    }

    @Actor
    public void consumer2() {
      got2 = ring.poll(t2);
    }

    @Arbiter
    public void rest(II_Result r) {
      count(r, got1, t1.stamp);
      count(r, got2, t2.stamp);
      drain(ring, r);
    }
  }

  /**
   * A producer appends while a consumer takes: the consumer sees the entry whole or not at all
   * (then the arbiter takes it), never a slot half written. The ring starts with one lap behind
   * it, so the slot is reused.
   */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "each entry taken once, stamp intact")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "an entry lost, duplicated or torn")
  @State
  public static class HandOff {
    private final TaskRing ring = new TaskRing(2);
    private final Taken t = new Taken();
    private Object got;

    public HandOff() {
      Taken warm = new Taken();
      ring.offer("lap", 0);
      ring.poll(warm); // slot 0 now waits for its second lap
      ring.offer(ONE, 101);
    }

    @Actor
    public void producer() {
      ring.offer(TWO, 202);
    }

    @Actor
    public void consumer() {
      got = ring.pollClaimed(t); // takes ONE (published), or waits out TWO's publication
      if (got != null) {
        Object second = ring.pollClaimed(t2);
        got2 = second;
      }
    }

    private final Taken t2 = new Taken();
    private Object got2;

    @Arbiter
    public void rest(II_Result r) {
      count(r, got, t.stamp);
      count(r, got2, t2.stamp);
      drain(ring, r);
    }
  }

  /**
   * Entries pass through a ring one at a time (it never holds more than one) while another thread
   * reads its size twice: each read is 0 or 1, never the 2 or 3 that reading head and then tail
   * could give when entries were taken between the two reads.
   */
  @JCStressTest
  @Outcome(id = {"0, 0", "0, 1", "1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "a size it held")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "a size the ring never held")
  @State
  public static class Size {
    private final TaskRing ring = new TaskRing(4);
    private final Taken t = new Taken();

    @Actor
    public void passThrough() {
      for (int i = 0; i < 3; i++) {
        ring.offer(ONE, 101);
        ring.poll(t);
      }
    }

    @Actor
    public void reader(II_Result r) {
      r.r1 = ring.size();
      r.r2 = ring.size();
    }
  }
}
