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
 * A tally's single-writer phase against a reader's swap of its buffers (issue #27: one volatile
 * store a record instead of two atomic increments): a worker records queue waits of 1, 2 and 4 ns
 * while a reader drains the book. Every record must land whole in exactly one drain: a reader sees
 * a prefix of the records, with a count and a sum that agree (0, 1 with 1, 2 with 3, 3 with 7), and
 * after both are done the book holds all three once (3 with 7). A count without its sum, or a sum
 * without its count, is a record the reader merged while the writer was still in it; a final count
 * other than 3 is a record lost or counted twice.
 */
@JCStressTest
@Outcome(id = {"0, 307", "101, 307", "203, 307", "307, 307"}, expect = ACCEPTABLE,
    desc = "the reader saw a whole prefix; the book ends with all three once")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a torn, lost or doubled record")
@State
public class TallySwapStress {
  private final TimingBook book = new TimingBook(1, Long.MAX_VALUE, 0);
  private final TimingBook.Tally tally = book.claim();

  @Actor
  public void worker() {
    tally.record(1, 10, -1, 0);
    tally.record(2, 10, -1, 0);
    tally.record(4, 10, -1, 0);
  }

  @Actor
  public void reader(JJ_Result r) {
    r.r1 = countAndSum(book.read(0)[0].queueWait());
  }

  @Arbiter
  public void after(JJ_Result r) {
    r.r2 = countAndSum(book.read(0)[0].queueWait());
  }

  private static long countAndSum(Distribution d) {
    return d.count() * 100 + Math.round(d.mean() * d.count());
  }
}
