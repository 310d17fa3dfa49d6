package dev.lanes;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The reads behind {@code stats()}: a worker counts a start in its tally, runs, records the end;
 * a reader drains the tallies. Whatever the interleaving, the starts a drain reports are never
 * fewer than the ends it found (else {@code running} would go negative and the books would not
 * balance), and once the worker is done a drain finds every start and every end.
 */
@JCStressTest
@Outcome(id = "0, 2", expect = ACCEPTABLE, desc = "drain saw starts >= ends; the last drain saw both tasks")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a drain saw an end before its start, or lost one")
@State
public class BooksReadStress {
  private final TimingBook book = new TimingBook(2, Long.MAX_VALUE, 0);
  private final TimingBook.Tally tally = book.claim();

  @Actor
  public void worker() {
    for (int i = 0; i < 2; i++) {
      tally.addStarted();
      tally.record(10, 20, -1, 0);
    }
  }

  @Actor
  public void reader(JJ_Result r) {
    long[] oc = new long[4];
    book.read(0, oc);
    long ended = oc[0] + oc[1] + oc[2];
    r.r1 = oc[3] >= ended ? 0 : 1; // 1: an end without its start
  }

  @Arbiter
  public void after(JJ_Result r) {
    long[] oc = new long[4];
    book.read(0, oc);
    long ended = oc[0] + oc[1] + oc[2];
    r.r2 = oc[3] == 2 && ended == 2 ? 2 : 100 + oc[3] * 10 + ended;
  }
}
