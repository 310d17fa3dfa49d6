package dev.lanes.lab.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.experiments.E14QueuesYouDoNotOwn.Goal;
import dev.lanes.lab.experiments.E14QueuesYouDoNotOwn.Status;
import dev.lanes.lab.support.AgentDemoProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** E14's verdicts are pure functions of the figures: each goal met, missed, or not measured. */
class E14VerdictsTest {

  private static final String HEAD = "pool\tkind\tthreads\tqueued\ttasks\tfailed\trejected\twait_p50_ms"
      + "\twait_p99_ms\twait_max_ms\trun_p50_ms\trun_p99_ms\trun_max_ms\tcpu_per_task_ms\tunknown_wait"
      + "\tstate\tsaturated_s\twait_mean_ms\trun_mean_ms\n";

  /** The agent's table as the agent writes it (the columns of PoolTable.tsv, no lanes-agent classes here). */
  private static List<Map<String, String>> table(String... rows) {
    return AgentDemoProcess.parseTsv(HEAD + String.join("\n", rows) + "\n");
  }

  private static final String TOMCAT = "http-nio-127.0.0.1-auto-1-exec\tTOMCAT\t4\t0\t48\t0\t0\t500\t900"
      + "\t950\t0.5\t500\t510\t\t0\tOK\t1.2\t523.9\t80";

  @Test
  void tomcatsQueueWaitIsMetWithinTenPercentAndMissedBeyond() {
    assertThat(E14QueuesYouDoNotOwn.judgeQueueWait(524, 542, 48, 48).status()).isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeQueueWait(488, 542, 48, 48).status()).isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeQueueWait(480, 542, 48, 48).status()).isEqualTo(Status.MISSED);
    assertThat(E14QueuesYouDoNotOwn.judgeQueueWait(600, 542, 48, 48).status()).isEqualTo(Status.MISSED);
    // No task of Tomcat's pool seen: nothing agrees with anything.
    Goal none = E14QueuesYouDoNotOwn.judgeQueueWait(Double.NaN, 542, 0, 48);
    assertThat(none.status()).isEqualTo(Status.MISSED);
    assertThat(none.note()).contains("no task");
  }

  @Test
  void keptAliveWaitIsJudgedPerRequestOnlyWhenTasksServedSeveralRequests() {
    // The finding: 9,987 tasks served 16,659 requests; 28.6 ms per request, 47.7 per task, callers 29.8.
    Goal met = E14QueuesYouDoNotOwn.judgeKeptAliveWait(28.6, 29.8, 47.7, 9_987, 16_659, 16_659);
    assertThat(met.status()).isEqualTo(Status.MET);
    assertThat(met.measured()).contains("28.6 ms per request", "47.7 ms per task", "29.8",
        "9987 tasks served 16659 requests");
    // The per-task figure would have missed: the verdict reads the per-request one.
    assertThat(E14QueuesYouDoNotOwn.judgeKeptAliveWait(47.7, 29.8, 47.7, 9_987, 16_659, 16_659)
        .status()).isEqualTo(Status.MISSED);
    assertThat(E14QueuesYouDoNotOwn.judgeKeptAliveWait(26.0, 29.8, 47.7, 9_987, 16_659, 16_659)
        .status()).isEqualTo(Status.MISSED);
    // No task served two requests: keep-alive did not show, nothing was tested.
    Goal flat = E14QueuesYouDoNotOwn.judgeKeptAliveWait(29.0, 29.8, 29.0, 400, 400, 400);
    assertThat(flat.status()).isEqualTo(Status.MISSED);
    assertThat(flat.note()).contains("keep-alive did not show");
    // Fewer requests counted than sent.
    assertThat(E14QueuesYouDoNotOwn.judgeKeptAliveWait(29.0, 29.8, 40, 300, 399, 400).note())
        .contains("fewer requests");
    // An agent build that counts no requests did not measure it.
    assertThat(E14QueuesYouDoNotOwn.judgeKeptAliveWait(Double.NaN, 29.8, 40, 300, 0, 400).status())
        .isEqualTo(Status.NOT_MEASURED);
  }

  @Test
  void anEventLoopsHandlerInAnIoTurnCountsAsItsLongestRun() {
    String head = HEAD.replace("\n", "\tio_turns\tio_turn_max_ms\n");
    String loop = "reactor-http-nio\tEVENT_LOOP\t1\t0\t100\t0\t0\t0.1\t300\t310\t0.2\t4\t12\t\t0\tOK\t0\t5"
        + "\t20\t3\t%s\n";
    assertThat(E14QueuesYouDoNotOwn.judgeEventLoop(AgentDemoProcess.parseTsv(head + String.format(loop,
        "498")), 500, 290, 2.8).status()).isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeEventLoop(AgentDemoProcess.parseTsv(head + String.format(loop,
        "40")), 500, 290, 2.8).status()).isEqualTo(Status.MISSED);
  }

  @Test
  void theServerMetricSaysFastOnlyWhenUnderATenthOfWhatCallersSaw() {
    assertThat(E14QueuesYouDoNotOwn.judgeFastLooksFast(600, 2.2, 40, 40).status()).isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeFastLooksFast(600, 70, 40, 40).status()).isEqualTo(Status.MISSED);
    // The metric must have counted the fast requests sent, or it says nothing about them.
    assertThat(E14QueuesYouDoNotOwn.judgeFastLooksFast(600, 2.2, 39, 40).status()).isEqualTo(Status.MISSED);
  }

  @Test
  void eventLoopsAbsentFromTheTableAreNotMeasuredNotMissed() {
    Goal g = E14QueuesYouDoNotOwn.judgeEventLoop(table("boundedElastic\tSCHEDULED\t1\t0\t3\t0\t0\t0.1"
        + "\t0.1\t0.1\t1\t1\t1\t\t0\tOK\t0\t0.1\t1"), 500, 290, 2.8);
    assertThat(g.status()).isEqualTo(Status.NOT_MEASURED);
    assertThat(g.measured()).contains("no pool of kind EVENT_LOOP").contains("290");
  }

  @Test
  void eventLoopsThatShowTheHandlersRunAreMetAndOnesThatDoNotAreMissed() {
    String loop = "reactor-http-nio\tEVENT_LOOP\t1\t0\t100\t0\t0\t0.1\t300\t310\t0.2\t490\t%s\t\t0\tOK\t0\t5\t20";
    assertThat(E14QueuesYouDoNotOwn.judgeEventLoop(table(String.format(loop, "498")), 500, 290, 2.8).status())
        .isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeEventLoop(table(String.format(loop, "12")), 500, 290, 2.8).status())
        .isEqualTo(Status.MISSED);
  }

  @Test
  void theFanOutIsNotMeasuredWithoutACommonPoolRowAndMissedWithOneButNoWarning() {
    assertThat(E14QueuesYouDoNotOwn.judgeFanOut(table(TOMCAT), null).status()).isEqualTo(Status.NOT_MEASURED);
    String common = "ForkJoinPool.commonPool\tCOMMON_POOL\t1\t0\t3\t0\t0\t0.1\t400\t400\t400\t400\t400\t\t0\tOK\t0\t300\t400";
    assertThat(E14QueuesYouDoNotOwn.judgeFanOut(table(TOMCAT, common), null).status()).isEqualTo(Status.MISSED);
    String warning = "2026-01-01 WARN lanes-agent: blocking call on ForkJoinPool common pool"
        + " \"ForkJoinPool.commonPool\": a task has been parked for 201 ms";
    assertThat(E14QueuesYouDoNotOwn.isBlockingWarning(warning)).isTrue();
    assertThat(E14QueuesYouDoNotOwn.isBlockingWarning("blocking call on Tomcat ThreadPoolExecutor \"x\"")).isFalse();
    assertThat(E14QueuesYouDoNotOwn.judgeFanOut(table(TOMCAT, common), warning).status()).isEqualTo(Status.MET);
  }

  @Test
  void theNestedDeadlockIsMetWhenWarnedWithinASecond() {
    String warning = "WARN lanes-agent: starvation deadlock in pool \"nested-1-worker\" (ThreadPoolExecutor)";
    assertThat(E14QueuesYouDoNotOwn.isDeadlockWarning(warning)).isTrue();
    assertThat(E14QueuesYouDoNotOwn.judgeNested(warning, 280).status()).isEqualTo(Status.MET);
    assertThat(E14QueuesYouDoNotOwn.judgeNested(warning, 1_500).status()).isEqualTo(Status.MISSED);
    assertThat(E14QueuesYouDoNotOwn.judgeNested(null, -1).status()).isEqualTo(Status.MISSED);
  }

  @Test
  void actuatorsMetricIsReadInMillisecondsAndDifferenced() {
    E14QueuesYouDoNotOwn.Actuator a = E14QueuesYouDoNotOwn.parseActuator("{\"name\":\"http.server.requests\","
        + "\"baseUnit\":\"seconds\",\"measurements\":[{\"statistic\":\"COUNT\",\"value\":52.0},"
        + "{\"statistic\":\"TOTAL_TIME\",\"value\":0.125},{\"statistic\":\"MAX\",\"value\":0.029267}]}");
    assertThat(a.count()).isEqualTo(52);
    assertThat(a.totalMs()).isEqualTo(125.0);
    E14QueuesYouDoNotOwn.Actuator d = a.minus(new E14QueuesYouDoNotOwn.Actuator(12, 25, 3));
    assertThat(d.count()).isEqualTo(40);
    assertThat(d.meanMs()).isEqualTo(2.5);
    assertThat(E14QueuesYouDoNotOwn.formedAt("nested formed_at_epoch_us=1795651755302309\n"))
        .isEqualTo(1795651755302309L);
  }

  @Test
  void withoutTheJarsE14ReportsNotRunAndHowToBuildThemInOneLine(@TempDir Path emptyTree) throws Exception {
    Files.createDirectories(emptyTree.resolve("lanes-agent"));
    try (LabContext ctx = new LabContext(true, 1, s -> {})) {
      ExperimentResult r = new E14QueuesYouDoNotOwn(emptyTree).run(ctx);
      assertThat(r.crashed()).isFalse();
      assertThat(r.holds()).isFalse();
      assertThat(r.verdict()).startsWith("Not run: missing ").contains("lanes-agent.jar")
          .contains("lanes-agent-demo.jar").contains("./mvnw -pl lanes-agent,lanes-agent-demo -am package")
          .doesNotContain("\n");
      assertThat(r.figures()).containsEntry("ran", false);
      assertThat(r.charts()).isEmpty();
    }
  }
}
