package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lane's operations checked by Lincheck against a sequential model of its books (issue #24).
 *
 * <p><b>Why stress mode.</b> A lane runs its tasks on threads it starts itself, which Lincheck's
 * model checker does not control; {@link #modelCheckingCannotDriveALiveLane} records what happens
 * when it is tried. The operations are therefore run in Lincheck's stress mode (real threads, many
 * invocations), each operation synchronous from its caller's view: it submits and waits for the
 * task's outcome, so a sequential history leaves nothing queued between operations.
 *
 * <p><b>What the operations answer</b>, chosen so that the lane's promises make them
 * linearizable: a submission answers "ok" (its task ran) or the reason it was refused; a task
 * that {@code shutdownNow} returned — or that a submitter's re-check took back after it, failing
 * its future with {@code LaneRejectedException(SHUTDOWN)} — never ran because the lane shut down,
 * so its submitter answers {@code SHUTDOWN}, as if refused by the shutdown (linearized after it). Left out because they are
 * racy by design: {@code queued}, {@code running}, {@code workers} and the outcome counts while
 * tasks run (a task's future may complete before its outcome is counted); how many tasks {@code
 * shutdownNow} returned (only a submission still in flight can be returned, which a sequential
 * history never has: its total is checked against {@code stats().returned()} after each
 * invocation instead); two figures read one after the other in one operation (a snapshot's
 * {@code submitted} beside {@code concurrency()}, or {@code stats().shutdown()} beside {@code
 * isShutdown()}: the first version did, and Lincheck rightly found a resize or a shutdown between
 * the two reads), so each such figure has an operation of its own; and {@code submitted} when {@code invokeAll} or a shutdown is in the mix
 * ({@code invokeAll} submits one task after the other, so a reader can see half of it, and a
 * shutdown can refuse its second task after the first was accepted).
 *
 * <p>After every invocation ({@link Validate}) the lane goes through the books checker ({@link
 * Books#check}): it balances, shuts down and terminates. Quick by default; {@code
 * -Dlanes.lincheck.iterations=N} runs more.
 */
class LaneLincheckTest {
  static final int ITERATIONS = Integer.getInteger("lanes.lincheck.iterations", 10);
  static final int INVOCATIONS = Integer.getInteger("lanes.lincheck.invocations", 200);

  /**
   * The lanes of invocations not yet validated (one whose invocation failed stays), shut down after
   * the test whatever happened.
   */
  static final Queue<Lane> BUILT = new ConcurrentLinkedQueue<>();

  @AfterEach
  void shutDownEveryLane() {
    for (Lane lane; (lane = BUILT.poll()) != null; ) {
      lane.shutdownNow();
    }
  }

  static Lane build(String name) {
    // Room for every task the scenario can have at once: a lane with room never refuses.
    Lane lane = Lane.blocking(name, 2).queueCapacity(64).build();
    BUILT.add(lane);
    return lane;
  }

  /** An {@code execute} task that says whether it ran or was returned by {@code shutdownNow}. */
  static final class Signal implements Runnable {
    final CompletableFuture<String> outcome = new CompletableFuture<>();

    @Override
    public void run() {
      outcome.complete("ok");
    }
  }

  static String await(Future<?> f, String value) {
    try {
      f.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      return value;
    } catch (CancellationException e) {
      return TaskOutcome.SHUTDOWN.name(); // returned by shutdownNow: see the class comment
    } catch (ExecutionException e) {
      if (e.getCause() instanceof LaneRejectedException l && l.reason() == TaskOutcome.SHUTDOWN) {
        // Accepted as shutdownNow raced it, and taken back by a submitter's re-check after
        // shutdownNow's own drain had passed: ended SHUTDOWN through its future (LaneExecutor,
        // "Lifecycle"), not returned. The same answer as a returned task: it never ran because
        // the lane shut down. (Lincheck found the case: invokeAll answered "failed: …".)
        return TaskOutcome.SHUTDOWN.name();
      }
      return "failed: " + e.getCause();
    } catch (TimeoutException e) {
      return "hung";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  static String reason(RejectedExecutionException e) {
    return e instanceof LaneRejectedException l ? l.reason().name() : e.toString();
  }

  static boolean balanced(LaneStats s) {
    return s.submitted() == s.endedTotal() + s.queued() + s.running() && s.started() <= s.submitted();
  }

  /** The operations every scenario uses. */
  abstract static class LaneOps {
    final Lane lane;

    LaneOps(String name) {
      lane = build(name);
    }

    @Operation
    public String submitAndGet() {
      try {
        return await(lane.submit(() -> "ok"), "ok");
      } catch (RejectedExecutionException e) {
        return reason(e);
      }
    }

    @Operation
    public String executeAndWait() {
      Signal task = new Signal();
      try {
        lane.execute(task);
      } catch (RejectedExecutionException e) {
        return reason(e);
      }
      return await(task.outcome, "ok");
    }

    /** Submits and cancels at once: whichever wins, the future is done and counted once. */
    @Operation
    public String cancelQueued() {
      CompletableFuture<String> f;
      try {
        f = lane.submit(() -> "ran");
      } catch (RejectedExecutionException e) {
        return reason(e);
      }
      f.cancel(false);
      return f.isDone() ? "done" : "not done";
    }
  }

  // ------------------------------------------------------------------ a running lane

  /** A running lane: submissions of every kind, cancellation, resizing and the books. */
  public static class RunningLane extends LaneOps {
    public RunningLane() {
      super("lincheck-running");
    }

    @Operation
    public void setConcurrency(@Param(gen = IntGen.class, conf = "1:3") int n) {
      lane.setConcurrency(n);
    }

    /** Figures of one snapshot, each deterministic in a sequential history. */
    @Operation
    public String stats() {
      LaneStats s = lane.stats();
      return "submitted=" + s.submitted() + " rejected=" + s.rejected() + " balanced=" + balanced(s)
          + " shutdown=" + s.shutdown();
    }

    /** Read on its own: a snapshot's figures are read one after another, not at one instant. */
    @Operation
    public int concurrency() {
      return lane.concurrency();
    }

    @Validate
    public void books() {
      Books.check(lane);
      BUILT.remove(lane); // terminated: let it go (thousands of invocations each build one)
    }
  }

  public static class RunningModel {
    private long submitted;
    private int concurrency = 2;

    public String submitAndGet() {
      submitted++;
      return "ok";
    }

    public String executeAndWait() {
      submitted++;
      return "ok";
    }

    public String cancelQueued() {
      submitted++;
      return "done";
    }

    public void setConcurrency(int n) {
      concurrency = n;
    }

    public String stats() {
      return "submitted=" + submitted + " rejected=0 balanced=true shutdown=false";
    }

    public int concurrency() {
      return concurrency;
    }
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void aRunningLaneAgreesWithItsModel() {
    new StressOptions()
        .iterations(ITERATIONS)
        .invocationsPerIteration(INVOCATIONS)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .sequentialSpecification(RunningModel.class)
        .check(RunningLane.class);
  }

  // ------------------------------------------------------------------ shutting down

  /** Submissions racing {@code shutdown}, {@code shutdownNow} and {@code invokeAll}. */
  public static class ShuttingDownLane extends LaneOps {
    private final AtomicLong returned = new AtomicLong();

    public ShuttingDownLane() {
      super("lincheck-shutdown");
    }

    @Operation
    public String invokeAll() {
      List<Callable<String>> tasks = List.of(() -> "a", () -> "b", () -> "c");
      List<Future<String>> fs;
      try {
        fs = lane.invokeAll(tasks);
      } catch (RejectedExecutionException e) {
        return reason(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
      StringBuilder out = new StringBuilder();
      for (Future<String> f : fs) {
        if (!f.isDone()) {
          return "not done"; // invokeAll returns only done futures
        }
        String r = await(f, "ok");
        if (!r.equals("ok")) {
          return r; // a task returned by a racing shutdownNow: linearized after it
        }
        out.append(r).append(',');
      }
      return out.toString();
    }

    @Operation
    public void shutdown() {
      lane.shutdown();
    }

    /** Ends what it returns, as a caller would: a returned execute task says so to its waiter. */
    @Operation
    public void shutdownNow() {
      List<Runnable> never = lane.shutdownNow();
      returned.addAndGet(never.size());
      for (Runnable r : never) {
        if (r instanceof Signal s) {
          s.outcome.complete(TaskOutcome.SHUTDOWN.name());
        }
      }
    }

    @Operation
    public String stats() {
      LaneStats s = lane.stats();
      return "balanced=" + balanced(s) + " shutdown=" + s.shutdown();
    }

    /** Read on its own, not beside a snapshot: two reads are two instants. */
    @Operation
    public boolean isShutdown() {
      return lane.isShutdown();
    }

    @Validate
    public void books() {
      Books.check(lane);
      assertThat(lane.stats().returned()).as("tasks returned by shutdownNow").isEqualTo(returned.get());
      BUILT.remove(lane);
    }
  }

  public static class ShuttingDownModel {
    private boolean shutdown;

    private String submit(String ok) {
      return shutdown ? TaskOutcome.SHUTDOWN.name() : ok;
    }

    public String submitAndGet() {
      return submit("ok");
    }

    public String executeAndWait() {
      return submit("ok");
    }

    public String cancelQueued() {
      return submit("done");
    }

    public String invokeAll() {
      return submit("ok,ok,ok,");
    }

    public void shutdown() {
      shutdown = true;
    }

    public void shutdownNow() {
      shutdown = true;
    }

    public String stats() {
      return "balanced=true shutdown=" + shutdown;
    }

    public boolean isShutdown() {
      return shutdown;
    }
  }

  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  void aLaneShuttingDownAgreesWithItsModel() {
    new StressOptions()
        .iterations(ITERATIONS)
        .invocationsPerIteration(INVOCATIONS)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .sequentialSpecification(ShuttingDownModel.class)
        .check(ShuttingDownLane.class);
  }

  // ------------------------------------------------------------------ model checking

  /**
   * Tried on 2026-11-25 with Lincheck 3.7 on JDK 25: the model checker reports "The execution has
   * hung, see the thread dump" after about 35 s, with its thread parked in {@code
   * ReentrantLock.lock} under {@code HealthMonitor.saturatedNanos} ← {@code LaneExecutor.stats}:
   * the lock was held by a thread the checker does not control (the process-wide {@code
   * lanes-health} thread, or one of the lane's workers), so no interleaving it can choose lets its
   * own thread proceed. Any lane operation that meets a worker or the health thread on a lock or
   * a park does the same. Kept, disabled, so it can be tried again with a later Lincheck.
   */
  @Test
  @Timeout(600) // a hang guard: model checking takes what the machine gives it
  @org.junit.jupiter.api.Disabled("not a lanes bug: Lincheck's model checker controls only its own"
      + " threads, and hangs on a lock held by the lane's (see the javadoc)")
  void modelCheckingCannotDriveALiveLane() {
    new ModelCheckingOptions()
        .iterations(1)
        .invocationsPerIteration(10)
        .threads(2)
        .actorsPerThread(1)
        .actorsBefore(0)
        .actorsAfter(0)
        .sequentialSpecification(RunningModel.class)
        .check(RunningLane.class);
  }
}
