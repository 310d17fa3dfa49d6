package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The deadlock detector reads a lane's capacity and its worker set without locks; a worker being
 * started (its permit taken, not yet in the set) or leaving (out of the set, its permit not yet
 * given back) must not make a healthy lane look stuck.
 */
class DeadlockRaceTest {
  /** Nesting rounds per lane in the probe (each starts and ends a few virtual workers). */
  private static final int ROUNDS = 20_000;

  @Test
  void aPermitTakenForAWorkerNotYetInTheSetIsNoDeadlock() throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    LaneExecutor lane = (LaneExecutor) Lane.virtual("starting", 2).failOnDeadlock().build();
    lane.onHealth(events::add);
    // The state WorkerPool.dispatch leaves between its permit CAS and startWorker: a permit
    // taken for a worker that is not in the set yet (held here until the child must run).
    lane.pool.permits.tryAcquire();
    CountDownLatch childQueued = new CountDownLatch(1);
    CompletableFuture<String> parent = lane.submit(() -> {
      CompletableFuture<String> child = lane.submit(() -> "child");
      childQueued.countDown();
      return child.get(); // analysed at once: one worker seen, blocked, on a queued child
    });
    Work.await(childQueued);
    Awaitility.await().until(() -> lane.pool.workers.stream()
        .anyMatch(w -> w.waitingOn() != null && w.thread().getState() == Thread.State.WAITING));
    lane.checkHealth();
    assertThat(lane.health()).isNotEqualTo(LaneHealth.DEADLOCKED);
    lane.pool.permits.release(); // the worker being started takes the child
    lane.pool.dispatch();
    assertThat(parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("child");
    lane.close();
    assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
    assertThat(lane.stats().count(TaskOutcome.DEADLOCK)).isZero();
  }

  @Test
  void healthyNestingOnVirtualLanesWithNoKeepAliveIsNeverCalledADeadlock() throws Exception {
    Work.JvmRun run = Work.runJvm(List.of("-Xmx128m", "-Dlanes.virtualKeepAliveMicros=0"),
        HealthyNestingProbe.class, Integer.toString(ROUNDS));
    Map<String, String> out = new HashMap<>();
    for (String line : run.lines()) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.contains(" ")) {
        out.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(out.get("deadlocked")).as(run.output()).isEqualTo("0");
    assertThat(out.get("failed")).as(run.output()).isEqualTo("0");
  }
}
