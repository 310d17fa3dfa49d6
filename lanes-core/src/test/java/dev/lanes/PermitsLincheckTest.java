package dev.lanes;

import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A virtual lane's permit protocol, model-checked by Lincheck with the limit moving (issue #40):
 * the real {@link Permits} and {@link TaskRing}, driven by submitters, virtual workers and
 * changes of the concurrency in every interleaving Lincheck's model checker explores.
 *
 * <p>A worker is a token: a thread that holds a permit and will look for work again. {@code
 * work()} picks one up and makes one pass of {@code Worker.elasticLoop} in its order — the
 * surplus check before the take, the take, the surplus check after it (a surplus worker puts the
 * task back at the head), the run, the surplus check after it; with nothing queued, the
 * keep-alive expires and the permit goes back with a re-check of the ring. {@code setLimit(n)}
 * is {@code WorkerPool.concurrencyChanged}: the new limit, then threads for queued tasks.
 *
 * <p>Two properties, each an {@link AssertionError} that no sequential run can throw (so Lincheck
 * reports any interleaving that throws one):
 *
 * <ul>
 *   <li><b>Never more running than the limit in force once the change returned.</b> A change
 *       marks its return by bumping an epoch after it set the limit; a task whose worker's whole
 *       pass ran within one epoch must start with at most that epoch's limit running, itself
 *       included. (A pass that overlapped a change may be ordered before it.)
 *   <li><b>Never a queued task beside a free permit with no thread coming</b>: once every
 *       operation returned, every permit is held by a token, and a non-empty ring has a token.
 * </ul>
 */
class PermitsLincheckTest {
  static final int ITERATIONS = Integer.getInteger("lanes.lincheck.iterations", 20);
  private static final Object TASK = "task";

  /** The permit operations a virtual lane's workers, submitters and changes use. */
  interface Protocol {
    boolean surplus();

    boolean tryAcquire();

    boolean releaseIfSurplus();

    boolean acquireForQueued(TaskRing ring);

    boolean releaseAndRecheck(TaskRing ring);

    void setLimit(int n);

    int held();
  }

  /** Today's protocol: {@link Permits}, the limit and the permits held in one word. */
  static final class OneWord implements Protocol {
    private final Permits p = new Permits(2);

    public boolean surplus() { return p.surplus(); }

    public boolean tryAcquire() { return p.tryAcquire(); }

    public boolean releaseIfSurplus() { return p.releaseIfSurplus(); }

    public boolean acquireForQueued(TaskRing ring) { return p.acquireForQueued(ring); }

    public boolean releaseAndRecheck(TaskRing ring) { return p.releaseAndRecheck(ring); }

    public void setLimit(int n) { p.setLimit(n); }

    public int held() { return p.held(); }

    @Override
    public String toString() { return p.toString(); }
  }

  /**
   * The protocol as it was on 5cd05d4, for {@link #theModelFindsTheStrandOfTheTwoFieldProtocol}:
   * the permits in one atomic, the limit in a volatile field read apart from them (the worker
   * read it before its release), and no look before a take.
   */
  static final class TwoFields implements Protocol {
    private final AtomicInteger permits = new AtomicInteger();
    private volatile int limit = 2;

    public boolean surplus() { return permits.get() > limit; }

    public boolean tryAcquire() { return WorkerPool.incrementBelow(permits, limit); }

    public boolean releaseIfSurplus() {
      permits.decrementAndGet(); // it released whenever it read more permits than the limit
      return true;
    }

    public boolean acquireForQueued(TaskRing ring) {
      int l = limit;
      return permits.get() < l && ring.hasClaimed() && WorkerPool.incrementBelow(permits, l);
    }

    public boolean releaseAndRecheck(TaskRing ring) {
      int l = limit; // read as the call's argument, before the release
      permits.decrementAndGet();
      return ring.hasClaimed() && WorkerPool.incrementBelow(permits, l);
    }

    public void setLimit(int n) { limit = n; }

    public int held() { return permits.get(); }

    @Override
    public String toString() { return permits.get() + " of " + limit + " permits held"; }
  }

  public static class VirtualLane {
    private final TaskRing ring = new TaskRing(8, 8, false, 1, true); // a lane's: takes put-backs
    private final Protocol permits;

    public VirtualLane() {
      this(new OneWord());
    }

    VirtualLane(Protocol permits) {
      this.permits = permits;
    }
    /** Threads holding a permit and not inside an operation now (worker tokens). */
    private final AtomicInteger threads = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    /** The limit the last change that returned set, and how many changes returned. */
    private volatile int limitInForce = 2;
    private final AtomicInteger changesReturned = new AtomicInteger();
    private final java.util.concurrent.locks.ReentrantLock mainLock =
        new java.util.concurrent.locks.ReentrantLock();

    /** A submission: append, then a thread for it if a permit is free. */
    @Operation
    public void submit() {
      ring.offer(TASK, 0);
      if (permits.acquireForQueued(ring)) {
        threads.incrementAndGet();
      }
    }

    /** One pass of a virtual worker's loop, by a thread that holds a permit (if any does). */
    @Operation
    public void work() {
      if (!takeToken()) {
        return;
      }
      int epoch = changesReturned.get(); // read before the limit: a pass within one epoch sees it
      int limit = limitInForce;
      if (permits.surplus() && !permits.releaseAndRecheck(ring)) {
        return; // the cap was lowered while this worker was idle: its permit went
      }
      Taken tk = new Taken();
      Object x = ring.poll(tk);
      if (x == null) {
        if (permits.releaseAndRecheck(ring)) { // the keep-alive ran out
          threads.incrementAndGet();
        }
        return;
      }
      if (permits.surplus() && permits.releaseIfSurplus()) {
        ring.putBack(x, tk.stamp, tk.position);
        if (permits.tryAcquire()) {
          threads.incrementAndGet(); // a permit came free meanwhile: it takes the task again
        }
        return;
      }
      run(epoch, limit);
      if (permits.surplus() && !permits.releaseAndRecheck(ring)) {
        return;
      }
      threads.incrementAndGet();
    }

    /** A task runs (and ends): checked against the limit in force since the pass began. */
    private void run(int epoch, int limit) {
      int now = running.incrementAndGet();
      if (changesReturned.get() == epoch && now > limit) {
        throw new AssertionError(now + " running under a limit of " + limit
            + " in force since before this worker looked");
      }
      running.decrementAndGet();
    }

    /** A change of the concurrency to {@code n}, raising or lowering it. */
    @Operation
    public void setLimit(@Param(gen = IntGen.class, conf = "1:3") int n) {
      mainLock.lock(); // a lane makes its changes one at a time
      try {
        permits.setLimit(n);
        while (permits.acquireForQueued(ring)) {
          threads.incrementAndGet();
        }
        limitInForce = n;
        changesReturned.incrementAndGet();
      } finally {
        mainLock.unlock();
      }
    }

    private boolean takeToken() {
      for (; ; ) {
        int n = threads.get();
        if (n == 0) {
          return false;
        }
        if (threads.compareAndSet(n, n - 1)) {
          return true;
        }
      }
    }

    /** One pass of a worker as 5cd05d4's loop made it: no look at the limit before the run. */
    void workAsBefore() {
      if (!takeToken()) {
        return;
      }
      int epoch = changesReturned.get();
      int limit = limitInForce;
      Taken tk = new Taken();
      Object x = ring.poll(tk);
      if (x == null) {
        if (permits.releaseAndRecheck(ring)) {
          threads.incrementAndGet();
        }
        return;
      }
      run(epoch, limit);
      if (permits.surplus() && !permits.releaseAndRecheck(ring)) {
        return;
      }
      threads.incrementAndGet();
    }

    @Validate
    public void noTaskStrandedAndNoPermitLeaked() {
      int held = permits.held();
      if (held != threads.get()) {
        throw new AssertionError(permits + " but " + threads.get() + " threads hold one");
      }
      if (ring.hasClaimed() && held == 0) {
        throw new AssertionError("a task is queued, " + permits + ", and no thread is coming");
      }
    }
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void thePermitProtocolHoldsWithTheLimitRaisedAndLowered() {
    modelCheck(ITERATIONS).check(VirtualLane.class);
  }

  /** Three threads of three operations after one, {@code iterations} scenarios. */
  private static ModelCheckingOptions modelCheck(int iterations) {
    return new ModelCheckingOptions()
        .iterations(iterations)
        .invocationsPerIteration(1_000)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(0);
  }

  /** The same lane on 5cd05d4's protocol: two fields, read apart. */
  public static class TwoFieldLane extends VirtualLane {
    public TwoFieldLane() {
      super(new TwoFields());
    }

    @Override
    @Operation
    public void work() {
      workAsBefore();
    }
  }

  /**
   * The model is not toothless: on the protocol as it was on 5cd05d4 it finds what issue #40
   * reported — two tasks running under a lowered limit of one, or a queued task left beside a
   * free permit with no thread coming after a raise.
   */
  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void theModelFindsTheStrandOfTheTwoFieldProtocol() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> modelCheck(ITERATIONS * 5)
            .minimizeFailedScenario(false) // the first failure found is enough here
            .check(TwoFieldLane.class))
        .satisfiesAnyOf(
            e -> org.assertj.core.api.Assertions.assertThat(e).hasMessageContaining(
                "no thread is coming"),
            e -> org.assertj.core.api.Assertions.assertThat(e).hasMessageContaining(
                "running under a limit"));
  }
}
