package dev.lanes;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Admission}, the lane's count of unfinished tasks against its limit, checked by Lincheck
 * against a counter (issue #24): {@code tryAdmit(limit)} takes a slot if fewer than {@code limit}
 * are taken, {@code release(null)} gives one back (the shared path: a canceller, {@code
 * shutdownNow}, a worker without a tally), {@code unfinished()} reads the count.
 *
 * <p>A slot is given back only by the thread that took it, as in a lane (a task's slot is released
 * once, after it was admitted): each thread keeps how many it holds, and {@code release} on a
 * thread that holds none does nothing and says so. {@code unfinished()} may overstate by design
 * (it reads the releases before the admissions: invariant (3) of {@code Admission}), so it is
 * compared as "at least the model's count" ({@link AtLeast}).
 */
class AdmissionLincheckTest {
  static final int LIMIT = 2;
  static final int ITERATIONS = Integer.getInteger("lanes.lincheck.iterations", 20);
  private static final int MAX_THREADS = 8;

  /** A reading or the model's count: they match when the reading is at least the count. */
  record AtLeast(long value, boolean fromModel) {
    @Override
    public boolean equals(Object o) {
      if (!(o instanceof AtLeast b)) {
        return false;
      }
      if (fromModel == b.fromModel) {
        return value == b.value;
      }
      AtLeast reading = fromModel ? b : this;
      AtLeast model = fromModel ? this : b;
      return reading.value >= model.value;
    }

    @Override
    public int hashCode() {
      return 0;
    }

    @Override
    public String toString() {
      return fromModel ? "count " + value : "read " + value;
    }
  }

  public static class Slots {
    private final Admission admission = new Admission(new TimingBook(1, 1_000_000_000L, 0));
    private final int[] held = new int[MAX_THREADS]; // each element written by one thread only

    @Operation
    public boolean tryAdmit(@Param(gen = ThreadIdGen.class) int thread) {
      boolean admitted = admission.tryAdmit(LIMIT);
      if (admitted) {
        held[thread]++;
      }
      return admitted;
    }

    @Operation
    public boolean release(@Param(gen = ThreadIdGen.class) int thread) {
      if (held[thread] == 0) {
        return false;
      }
      held[thread]--;
      admission.release(null);
      return true;
    }

    @Operation
    public AtLeast unfinished() {
      return new AtLeast(admission.unfinished(), false);
    }
  }

  /** The sequential model: a counter below {@code LIMIT}, and who holds what. */
  public static class Counter {
    private int taken;
    private final int[] held = new int[MAX_THREADS];

    public boolean tryAdmit(int thread) {
      if (taken >= LIMIT) {
        return false;
      }
      taken++;
      held[thread]++;
      return true;
    }

    public boolean release(int thread) {
      if (held[thread] == 0) {
        return false;
      }
      held[thread]--;
      taken--;
      return true;
    }

    public AtLeast unfinished() {
      return new AtLeast(taken, true);
    }
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void admissionIsALinearizableBoundedCounter() {
    new ModelCheckingOptions()
        .iterations(ITERATIONS)
        .invocationsPerIteration(500)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(0)
        .actorsAfter(0)
        .sequentialSpecification(Counter.class)
        .check(Slots.class);
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void admissionUnderStress() {
    new StressOptions()
        .iterations(ITERATIONS)
        .invocationsPerIteration(1_000)
        .threads(3)
        .actorsPerThread(4)
        .actorsBefore(0)
        .actorsAfter(0)
        .sequentialSpecification(Counter.class)
        .check(Slots.class);
  }
}
