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
 * The two Dekker pairs that let an idle lane rest (issue #27, {@link HealthMonitor}, "Resting"),
 * raced as the lane runs them: {@link HealthMonitor.Rest} and {@link HealthMonitor.LongPark}.
 */
public class RestWakeStress {
  private RestWakeStress() {}

  /**
   * A submitter appends to an empty ring and then calls {@code wake} (as {@code noteWork} does)
   * while the health thread, having seen the ring quiet, puts the lane to rest and re-checks. A
   * lane that still rests once both are done, with an entry in its ring, is a lost wake: the health
   * thread would skip it while its task waits unwatched. (r1: the thread rested it; r2: the
   * submitter ended the rest; r3: resting at the end.)
   */
  @JCStressTest
  @Outcome(id = {"0, 0, 0", "0, 1, 0", "1, 1, 0"}, expect = ACCEPTABLE,
      desc = "the lane did not rest, or the submitter woke it")
  @Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "lost wake: resting with an entry queued")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "impossible")
  @State
  public static class Append {
    private final TaskRing ring = new TaskRing(4);
    private final HealthMonitor.Rest rest = new HealthMonitor.Rest();

    @Actor
    public void submitter(III_Result r) {
      ring.append("task", 1);
      r.r2 = rest.wake() ? 1 : 0;
    }

    @Actor
    public void healthThread(III_Result r) {
      long appended = ring.appended();
      if (ring.hasClaimed()) {
        return; // not quiet at the first look: the thread does not try
      }
      r.r1 = rest.tryRest(() -> ring.appended() == appended && !ring.hasClaimed()) ? 1 : 0;
    }

    @Arbiter
    public void end(III_Result r) {
      r.r3 = rest.resting() ? 1 : 0;
    }
  }

  /**
   * Every lane rested when the health thread looked; it decides to park long while a submitter
   * wakes the one lane and then reads {@code sleepingLong} to unpark the thread. The thread
   * parking long although the lane was woken and nobody told it is forbidden: the lane's health
   * would go unwatched for the long park. (r1: the thread parks long; r2: the submitter ended the
   * rest; r3: the submitter unparks the thread.)
   */
  @JCStressTest
  @Outcome(id = {"0, 1, 0", "0, 1, 1", "1, 1, 1"}, expect = ACCEPTABLE,
      desc = "the thread saw the wake, or the submitter unparks it")
  @Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "parks long, untold, with a lane awake")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "impossible")
  @State
  public static class LongPark {
    private final HealthMonitor.Rest rest = new HealthMonitor.Rest();
    private final HealthMonitor.LongPark park = new HealthMonitor.LongPark();

    public LongPark() {
      rest.tryRest(() -> true); // the lane rests, as every lane did when the thread looked
    }

    @Actor
    public void healthThread(III_Result r) {
      r.r1 = park.decide(rest::resting) ? 1 : 0;
    }

    @Actor
    public void submitter(III_Result r) {
      boolean woke = rest.wake();
      r.r2 = woke ? 1 : 0;
      r.r3 = woke && park.sleepingLong ? 1 : 0;
    }
  }
}
