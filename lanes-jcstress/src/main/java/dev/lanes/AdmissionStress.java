package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZJ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;
import org.openjdk.jcstress.infra.results.ZJ_Result;

/**
 * {@link Admission}: admissions and releases counted apart, releases read only when the lane
 * looks full. The lane must never hold more than its limit, must not refuse when a slot is free
 * and nothing races for it, and its unfinished count must end exact.
 */
public class AdmissionStress {
  private AdmissionStress() {}

  private static TimingBook book() {
    return new TimingBook(2, 1_000_000_000L, 0);
  }

  /** Two submitters, one free slot: exactly one gets it. */
  @JCStressTest
  @Outcome(id = {"true, false", "false, true"}, expect = ACCEPTABLE, desc = "one admitted")
  @Outcome(id = "true, true", expect = FORBIDDEN, desc = "admitted past the limit")
  @Outcome(id = "false, false", expect = FORBIDDEN, desc = "refused with a slot free")
  @State
  public static class OneSlotTwoSubmitters {
    private final Admission admission = new Admission(book());

    @Actor
    public void first(ZZ_Result r) {
      r.r1 = admission.tryAdmit(1);
    }

    @Actor
    public void second(ZZ_Result r) {
      r.r2 = admission.tryAdmit(1);
    }
  }

  /**
   * The lane is full (one of one taken); a worker gives the slot back through its own tally while
   * a submitter tries: it is admitted or refused, and the count ends exact either way.
   */
  @JCStressTest
  @Outcome(id = "true, 1", expect = ACCEPTABLE, desc = "saw the release, admitted")
  @Outcome(id = "false, 0", expect = ACCEPTABLE, desc = "refused before the release")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "count wrong")
  @State
  public static class ReleaseRacesAdmit {
    private final TimingBook book = book();
    private final Admission admission = new Admission(book);
    private final TimingBook.Tally workerTally = book.claim();

    {
      admission.tryAdmit(1);
    }

    @Actor
    public void worker() {
      admission.release(workerTally);
    }

    @Actor
    public void submitter(ZJ_Result r) {
      r.r1 = admission.tryAdmit(1);
    }

    @Arbiter
    public void count(ZJ_Result r) {
      r.r2 = admission.unfinished();
    }
  }

  /**
   * Two of two taken, by two workers; each gives its slot back through its own tally and then
   * submits: each must be admitted (its own release is a free slot it has seen, whatever a
   * stale shared "releases seen" says), and two end up taken. (Two actors: jcstress runs no test
   * with more actors than the machine has CPUs.)
   */
  @JCStressTest
  @Outcome(id = "true, true, 2", expect = ACCEPTABLE, desc = "both admitted, count exact")
  @Outcome(id = ".*", expect = FORBIDDEN, desc = "refused with a slot free, or count wrong")
  @State
  public static class ReleaseThenAdmitOnBothSides {
    private final TimingBook book = book();
    private final Admission admission = new Admission(book);
    private final TimingBook.Tally tallyA = book.claim();
    private final TimingBook.Tally tallyB = book.claim();

    {
      admission.tryAdmit(2);
      admission.tryAdmit(2);
    }

    @Actor
    public void workerA(ZZJ_Result r) {
      admission.release(tallyA);
      r.r1 = admission.tryAdmit(2);
    }

    @Actor
    public void workerB(ZZJ_Result r) {
      admission.release(tallyB);
      r.r2 = admission.tryAdmit(2);
    }

    @Arbiter
    public void count(ZZJ_Result r) {
      r.r3 = admission.unfinished();
    }
  }
}
