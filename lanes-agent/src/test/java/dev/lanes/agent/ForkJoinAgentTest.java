package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lanes.agent.apps.CommonPoolApp;
import dev.lanes.agent.apps.ForkJoinPoolApp;
import dev.lanes.agent.apps.RecursiveApp;
import dev.lanes.apps.BlockingCommonPoolApp;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The agent on fork-join pools, the common pool included, in JVMs of their own. */
class ForkJoinAgentTest {
  /** CompletableFuture runs its async tasks on the common pool only when its parallelism is > 1. */
  static final List<String> COMMON_PARALLELISM_2 =
      List.of("-Djava.util.concurrent.ForkJoinPool.common.parallelism=2");
  static final String COMMON = "ForkJoinPool.commonPool";

  private static double figure(String out, String name) {
    Matcher m = Pattern.compile(name + "=([0-9.]+)").matcher(out);
    assertThat(m.find()).as("the app printed %s: %s", name, out).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static long count(String text, String part) {
    return text.lines().filter(l -> l.contains(part)).count();
  }

  @Test
  void externalSubmissionsWaitAndRunAsTheTasksThemselvesMeasured() throws Exception {
    AgentJvm.Result r = AgentJvm.run(ForkJoinPoolApp.class, "");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("failing task completed abnormally: true",
        "rejected after shutdown: true", "threads not mine: [lanes-agent]");
    assertThat(r.err()).doesNotContain("lanes-agent:");
    double appWait = figure(r.out(), "wait_mean_ms");
    double appRun = figure(r.out(), "run_mean_ms");
    assertThat(r.pool("fj-worker").get("kind")).isEqualTo("FORK_JOIN");
    // 400 measured tasks and the failing one; every one stamped at its submission.
    assertThat(r.number("fj-worker", "tasks")).isEqualTo(ForkJoinPoolAppTasks.ALL);
    assertThat(r.number("fj-worker", "unknown_wait")).isZero();
    assertThat(r.number("fj-worker", "failed")).isEqualTo(1);
    assertThat(r.number("fj-worker", "rejected")).isEqualTo(1);
    // Both measured in the same run (the failing task, one in 401, moves the agent's figures by
    // well under 1 %).
    r.agreesWithTheTasksOwn("fj-worker");
    assertThat(appWait).isGreaterThan(10 * appRun); // 400 tasks on 2 threads: the wait dominates
  }

  /** The figures of {@link ForkJoinPoolApp} the test relies on. */
  private static final class ForkJoinPoolAppTasks {
    static final int ALL = 400 + 1;
  }

  @Test
  void supplyAsyncOnTheDefaultExecutorIsCountedInTheCommonPool() throws Exception {
    AgentJvm.Result r = AgentJvm.run(CommonPoolApp.class, "", COMMON_PARALLELISM_2);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("sum = 19900", "threads not mine: [lanes-agent]");
    assertThat(r.err()).doesNotContain("lanes-agent:");
    assertThat(r.pool(COMMON).get("kind")).isEqualTo("COMMON_POOL");
    assertThat(r.number(COMMON, "tasks")).isEqualTo(200);
    assertThat(r.number(COMMON, "unknown_wait")).isZero();
    double appWait = figure(r.out(), "wait_mean_ms");
    double appRun = figure(r.out(), "run_mean_ms");
    assertThat(r.number(COMMON, "wait_mean_ms")).isCloseTo(appWait, within(appWait * 0.10));
    assertThat(r.number(COMMON, "run_mean_ms")).isCloseTo(appRun, within(appRun * 0.10));
  }

  @Test
  void aFanOutOfBlockingCallsOnTheCommonPoolIsWarnedOnceWithItsStack() throws Exception {
    AgentJvm.Result r = AgentJvm.run(BlockingCommonPoolApp.class, "blocking-warn=100ms",
        COMMON_PARALLELISM_2, "supply");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("sum = 6");
    assertThat(count(r.err(), "blocking call on")).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("blocking call on ForkJoinPool common pool \"" + COMMON + "\"",
        "a task has been parked", "at dev.lanes.apps.BlockingCommonPoolApp.slowLookup:",
        "at dev.lanes.apps.BlockingCommonPoolApp.lambda$main$"); // the site, then the stack
    assertThat(r.number(COMMON, "tasks")).isEqualTo(4);
  }

  @Test
  void aParallelStreamBlockingTheCommonPoolIsWarnedThoughItsSubtasksAreForks() throws Exception {
    AgentJvm.Result r = AgentJvm.run(BlockingCommonPoolApp.class, "blocking-warn=100ms",
        COMMON_PARALLELISM_2, "stream");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("sum = 28");
    assertThat(count(r.err(), "blocking call on")).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("blocking call on ForkJoinPool common pool \"" + COMMON + "\"",
        "at dev.lanes.apps.BlockingCommonPoolApp.slowLookup:", "ReduceOps$ReduceTask");
  }

  @Test
  void tasksThatComputeWithoutBlockingAreNotWarned() throws Exception {
    AgentJvm.Result r = AgentJvm.run(BlockingCommonPoolApp.class, "blocking-warn=100ms",
        COMMON_PARALLELISM_2, "spin");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("spun: true");
    assertThat(r.err()).doesNotContain("blocking call on");
    assertThat(r.number(COMMON, "tasks")).isEqualTo(2);
  }

  @Test
  void aTaskParkedInTheJoinOfASubtaskAnotherWorkerComputesIsNotWarned() throws Exception {
    AgentJvm.Result r = AgentJvm.run(BlockingCommonPoolApp.class, "blocking-warn=100ms",
        COMMON_PARALLELISM_2, "join");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("joined: true");
    assertThat(r.err()).doesNotContain("blocking call on");
    // The supplyAsync task that joined is the one task counted (the subtask is a fork); it started
    // before its subtask's spin and ended after it.
    assertThat(r.number(COMMON, "tasks")).isEqualTo(1);
    assertThat(r.number(COMMON, "run_mean_ms")).isGreaterThanOrEqualTo(BlockingCommonPoolApp.BLOCK_MILLIS);
  }

  @Test
  void recursiveForkJoinComputesTheSameAndItsForksAreNotCountedAsTasks() throws Exception {
    AgentJvm.Result without = AgentJvm.run(RecursiveApp.class, null);
    AgentJvm.Result with = AgentJvm.run(RecursiveApp.class, "");
    assertThat(without.exit()).as(without.err()).isZero();
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(without.out()).contains("pool fib(24) = 46368", "common fib(22) = 17711",
        "threads not mine: []");
    assertThat(with.out()).isEqualTo(without.out().replace("threads not mine: []",
        "threads not mine: [lanes-agent]"));
    assertThat(with.err()).doesNotContain("lanes-agent:");
    // 6 Callables submitted, each forking tens of thousands of subtasks: the 6 are counted, the
    // forks are not, not even those the other worker steals and runs from its scan (and none has
    // an unknown wait); the invoke is one more when a worker took it before its caller did.
    assertThat(with.number("fj-recursive", "tasks")).isBetween(6.0, 7.0);
    assertThat(with.number("fj-recursive", "unknown_wait")).isZero();
  }
}
