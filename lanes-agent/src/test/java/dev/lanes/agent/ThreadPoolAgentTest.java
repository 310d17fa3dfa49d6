package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lanes.agent.apps.BehaviourApp;
import dev.lanes.agent.apps.FixedPoolApp;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The agent on the JDK's own thread pools, in JVMs of their own. */
class ThreadPoolAgentTest {

  private static double figure(String out, String name) {
    Matcher m = Pattern.compile(name + "=([0-9.]+)").matcher(out);
    assertThat(m.find()).as("the app printed %s: %s", name, out).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void queueWaitAndRunTimeAgreeWithWhatTheTasksThemselvesMeasured() throws Exception {
    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "");
    assertThat(r.exit()).as(r.err()).isZero();
    double appWait = figure(r.out(), "wait_mean_ms");
    double appRun = figure(r.out(), "run_mean_ms");
    assertThat(r.number("fixed-worker", "tasks")).isEqualTo(400);
    assertThat(r.number("fixed-worker", "unknown_wait")).isZero();
    assertThat(r.pool("fixed-worker").get("kind")).isEqualTo("THREAD_POOL");
    // Both measured in the same run.
    r.agreesWithTheTasksOwn("fixed-worker");
    // CPU time is sampled (parking tasks use little of it): some tasks were, and used less than they ran.
    assertThat(r.number("fixed-worker", "cpu_per_task_ms")).isPositive().isLessThan(appRun);
    // The wait is the bulk of the time here (400 tasks, 2 threads): what the table must show.
    assertThat(appWait).isGreaterThan(10 * appRun);
    assertThat(r.number("ticker", "tasks")).isEqualTo(20);
    assertThat(r.pool("ticker").get("kind")).isEqualTo("SCHEDULED");
    assertThat(r.number("ticker", "unknown_wait")).isZero();
  }

  @Test
  void theApplicationSeesExactlyWhatItSeesWithoutTheAgent() throws Exception {
    AgentJvm.Result without = AgentJvm.run(BehaviourApp.class, null);
    AgentJvm.Result with = AgentJvm.run(BehaviourApp.class, "");
    assertThat(without.exit()).as(without.err()).isZero();
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(with.out()).isEqualTo(without.out());
    assertThat(with.out()).contains("queue holds my objects: true", "shutdownNow returned my objects: true",
        "future's cause is the thrown object: true", "afterExecute saw the thrown object: true",
        "rejected: true", "caller-runs ran on: main");
    // The pool that rejected counts both refusals (the thrown one and the caller-run one).
    assertThat(with.number("full", "rejected")).isEqualTo(2);
    assertThat(with.number("hooked", "failed")).isEqualTo(1); // execute's throw; submit's is the future's
  }

  @Test
  void sampledModeCountsEveryTaskAndItsMeansAgreeWithTheTasksOwn() throws Exception {
    AgentJvm.Result r = AgentJvm.run(FixedPoolApp.class, "sample=4,table");
    assertThat(r.exit()).as(r.err()).isZero();
    double appWait = figure(r.out(), "wait_mean_ms");
    double appRun = figure(r.out(), "run_mean_ms");
    assertThat(r.number("fixed-worker", "tasks")).isEqualTo(400);
    assertThat(r.number("fixed-worker", "failed")).isZero();
    assertThat(r.number("fixed-worker", "timed_one_in")).isEqualTo(4);
    // about 100 of 400 timed (binomial: ± 8.7; the bounds are 5.7 standard deviations)
    assertThat(r.number("fixed-worker", "timed_tasks")).isBetween(50.0, 150.0);
    assertThat(r.number("fixed-worker", "unknown_wait")).isZero();
    // The mean of a random sample of n of the 400 tasks is the tasks' own mean within 5 standard
    // errors (sd / √n, finite-population corrected; a miss once in a million runs), plus the 2 %
    // by which the agent's and the app's stamps may differ.
    double n = r.number("fixed-worker", "timed_tasks");
    double correction = Math.sqrt((400 - n) / (400 - 1));
    double waitBound = 5 * figure(r.out(), "wait_sd_ms") / Math.sqrt(n) * correction + 0.02 * appWait;
    double runBound = 5 * figure(r.out(), "run_sd_ms") / Math.sqrt(n) * correction + 0.02 * appRun;
    assertThat(r.number("fixed-worker", "run_mean_ms")).isCloseTo(appRun, within(runBound));
    assertThat(r.number("fixed-worker", "wait_mean_ms")).isCloseTo(appWait, within(waitBound));
    // A scheduled pool is sampled too (by its worker); its count stays exact.
    assertThat(r.number("ticker", "tasks")).isEqualTo(20);
    assertThat(r.number("ticker", "timed_one_in")).isEqualTo(4);
    assertThat(r.err()).contains("tasks in ", ", timed 1 task in 4 (sampled)",
        "sampled: timed 1 task in 4 of each thread pool (option sample=4)");
  }

  @Test
  void sampledModeKeepsFailuresAndRejectionsExactAndChangesNothingForTheApplication()
      throws Exception {
    AgentJvm.Result without = AgentJvm.run(BehaviourApp.class, null);
    AgentJvm.Result with = AgentJvm.run(BehaviourApp.class, "sample=1024");
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(with.out()).isEqualTo(without.out());
    assertThat(with.number("full", "rejected")).isEqualTo(2);
    assertThat(with.number("hooked", "failed")).isEqualTo(1);
  }
}
