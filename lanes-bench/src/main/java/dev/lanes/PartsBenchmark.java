package dev.lanes;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What each part of a lane's per-task path costs on one thread, with no other thread touching its
 * lines: the floor each part sets, to set beside what a task costs a lane in the full suites (its
 * CPU per task in {@code throughput}). A part that costs far more in a lane than here costs it in
 * the lines it shares with the other thread, not in its own instructions.
 *
 * <ul>
 *   <li>{@link #clock}: one {@code System.nanoTime()} (a lane reads two a task);
 *   <li>{@link #admitAndRelease}: the admission slot a submission takes and its worker gives back;
 *   <li>{@link #ringAppendAndTake}: the hand-off, one entry appended and taken back;
 *   <li>{@link #tallyStartRecordRelease}: the worker's books for one task (started, its timings
 *       recorded into the tally's histograms, its slot given back);
 *   <li>{@link #allParts}: the four in a task's order, with two clock reads.
 * </ul>
 *
 * And the hand-off across two threads, beside the bare pool's queue in the same run: one thread
 * offers entries, the other takes them, neither waits (an offer to a full array is refused, a take
 * from an empty one finds nothing), so each operation's time is its instructions plus the lines
 * it pulls from the other core. Counted in entries handed over a microsecond ({@code taken}, the
 * takes that found one), {@code ringHandOff} against {@code arrayBlockingQueueHandOff}.
 *
 * In package {@code dev.lanes} for the package-private parts. Not part of {@code ./lanes bench};
 * run it with {@code java -cp lanes-bench/target/lanes-bench.jar org.openjdk.jmh.Main
 * PartsBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
@State(Scope.Thread)
public class PartsBenchmark {
  private static final Runnable TASK = () -> { };

  private TimingBook book;
  private TimingBook.Tally tally;
  private Admission admission;
  private TaskRing ring;
  private final Taken taken = new Taken();
  private long fakeNanos;

  /** The two-thread hand-off's shared queues, one pair of threads each. */
  @State(Scope.Group)
  public static class Shared {
    final TaskRing ring = new TaskRing(16_384);
    final java.util.concurrent.ArrayBlockingQueue<Runnable> queue =
        new java.util.concurrent.ArrayBlockingQueue<>(16_384);
  }

  /** Takes that found an entry (JMH reports them per microsecond). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class HandedOver {
    public long taken;

    @Setup(Level.Iteration)
    public void reset() {
      taken = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    book = new TimingBook(2, TimeUnit.SECONDS.toNanos(10), System.nanoTime());
    tally = book.claim();
    admission = new Admission(book);
    ring = new TaskRing(16_384);
  }

  @Benchmark
  public long clock() {
    return System.nanoTime();
  }

  @Benchmark
  public boolean admitAndRelease() {
    boolean admitted = admission.tryAdmit(16_384);
    admission.release(tally);
    return admitted;
  }

  @Benchmark
  public Object ringAppendAndTake() {
    ring.append(TASK, 0L);
    return ring.pollClaimed(taken);
  }

  @Benchmark
  public void tallyStartRecordRelease() {
    // timings that vary a little, as real ones do, across a few histogram buckets
    long wait = 100 + (++fakeNanos & 63);
    tally.addStarted();
    tally.record(wait, wait * 3, -1, 0);
    tally.addReleased();
  }

  @Benchmark
  public Object allParts() {
    long accepted = System.nanoTime();
    admission.tryAdmit(16_384);
    ring.append(TASK, accepted);
    Object task = ring.pollClaimed(taken);
    tally.addStarted();
    long end = System.nanoTime();
    tally.record(end - taken.stamp, 0, -1, 0);
    admission.release(tally);
    return task;
  }

  @Benchmark
  @Group("ringHandOff")
  @GroupThreads(1)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long ringOffer(Shared shared) {
    return shared.ring.offer(TASK, 0L);
  }

  @Benchmark
  @Group("ringHandOff")
  @GroupThreads(1)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object ringPoll(Shared shared, HandedOver count) {
    Object entry = shared.ring.poll(taken);
    if (entry != null) {
      count.taken++;
    }
    return entry;
  }

  @Benchmark
  @Group("arrayBlockingQueueHandOff")
  @GroupThreads(1)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public boolean queueOffer(Shared shared) {
    return shared.queue.offer(TASK);
  }

  @Benchmark
  @Group("arrayBlockingQueueHandOff")
  @GroupThreads(1)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object queuePoll(Shared shared, HandedOver count) {
    Object entry = shared.queue.poll();
    if (entry != null) {
      count.taken++;
    }
    return entry;
  }
}
