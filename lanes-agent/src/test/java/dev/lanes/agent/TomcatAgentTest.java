package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.TomcatApp;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The agent on embedded Tomcat 11's request pool (Tomcat's copy of ThreadPoolExecutor), in JVMs of their own. */
class TomcatAgentTest {
  private static final String CLASS_PATH = AgentJvm.classPathWith("tomcat-");

  @Test
  void tomcatsRequestPoolIsMeasuredAndItsRequestsAnsweredAsWithoutTheAgent() throws Exception {
    AgentJvm.Result without = AgentJvm.runOn(CLASS_PATH, TomcatApp.class, null, List.of());
    AgentJvm.Result with = AgentJvm.runOn(CLASS_PATH, TomcatApp.class, "", List.of());
    assertThat(without.exit()).as(without.err()).isZero();
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(transcript(with.out())).isEqualTo(transcript(without.out()))
        .contains("20 x /slow -> 200 slow", "20 x /fast -> 200 fast");

    String pool = figure(with.out(), "request threads: (\\S+)");
    assertThat(pool).startsWith("http-nio-127.0.0.1-auto-").endsWith("-exec");
    assertThat(with.pool(pool).get("kind")).isEqualTo("TOMCAT");
    double tasks = with.number(pool, "tasks");
    assertThat(tasks).isGreaterThanOrEqualTo(TomcatApp.REQUESTS);
    assertThat(with.number(pool, "unknown_wait")).isZero();
    assertThat(with.number(pool, "failed")).isZero();
    assertThat(with.number(pool, "rejected")).isZero();

    // Same run: what the callers waited beyond the servlets' own run bounds the queue wait the
    // agent saw (each request's tasks queued and ran inside its caller's latency), and the queue
    // is a good part of it (40 requests on 4 threads). Measured: 0.46-0.76 of it.
    double latency = Double.parseDouble(figure(with.out(), "latency_total_ms=([0-9.]+)"));
    double servletRun = Double.parseDouble(figure(with.out(), "servlet_run_total_ms=([0-9.]+)"));
    double agentWait = with.number(pool, "wait_mean_ms") * tasks;
    double agentRun = with.number(pool, "run_mean_ms") * tasks;
    assertThat(agentWait).isBetween(0.2 * (latency - servletRun), 1.05 * (latency - servletRun));
    // Each task's run holds the servlet's run.
    assertThat(agentRun).isGreaterThanOrEqualTo(0.99 * servletRun);

    // Tomcat's pool used directly: 3 tasks ran (one after waiting in the queue), the fourth was
    // refused to its caller once Tomcat's second offer to its queue failed: counted once.
    assertThat(with.out()).contains("fourth task: refused (RejectedExecutionException)",
        "direct pool ended: true");
    assertThat(with.pool("tomcat-direct").get("kind")).isEqualTo("TOMCAT");
    assertThat(with.number("tomcat-direct", "tasks")).isEqualTo(3);
    assertThat(with.number("tomcat-direct", "rejected")).isEqualTo(1);
    assertThat(with.number("tomcat-direct", "unknown_wait")).isZero();

    // Requests counted apart from tasks: the burst's 40 requests, each on a connection of its own.
    assertThat(with.number(pool, "requests")).isEqualTo(TomcatApp.REQUESTS);
    keptAliveRequestsAreCountedAndTheirWaitIsTheClients(with);
  }

  /**
   * The second connector's pool served kept-alive connections: every request counted once, fewer
   * tasks than requests (the pipelined ones at least were read by one task), the requests' wait
   * sum no more than the tasks' (the requests' is the wait sum of the tasks that served requests;
   * the tasks that served none, a connection's close, add to the tasks' only), and the wait per
   * request what the clients waited: their latency less the servlet's run, which bounds it from
   * above (it also holds the loopback and Tomcat's parsing). Measured: 0.7-0.9 of it.
   */
  private static void keptAliveRequestsAreCountedAndTheirWaitIsTheClients(AgentJvm.Result with) {
    int sent = TomcatApp.PIPELINED + TomcatApp.CLIENTS * TomcatApp.REQUESTS_PER_CLIENT;
    assertThat(with.out()).contains("pipelined: " + TomcatApp.PIPELINED + " x 200",
        "kept-alive: " + TomcatApp.CLIENTS * TomcatApp.REQUESTS_PER_CLIENT + " x 200 ka")
        .doesNotContain("keep-alive client failed");
    String pool = figure(with.out(), "keep-alive request threads: (\\S+)");
    assertThat(with.pool(pool).get("kind")).isEqualTo("TOMCAT");
    double requests = with.number(pool, "requests");
    double requestTasks = with.number(pool, "request_tasks");
    double tasks = with.number(pool, "tasks");
    assertThat(requests).isEqualTo(sent);
    assertThat(requestTasks).isLessThanOrEqualTo(tasks).isLessThanOrEqualTo(sent - (TomcatApp.PIPELINED - 1));
    double requestWait = with.number(pool, "request_wait_mean_ms") * requests;
    double taskWait = with.number(pool, "wait_mean_ms") * tasks;
    assertThat(requestWait).isLessThanOrEqualTo(taskWait * 1.000001);

    double latency = Double.parseDouble(figure(with.out(), "keep_alive_latency_total_ms=([0-9.]+)"));
    double servletRun = Double.parseDouble(figure(with.out(), "keep_alive_servlet_run_total_ms=([0-9.]+)"));
    double clientsWait = latency - servletRun;
    assertThat(requestWait).as("per request %s ms, clients %s ms, per task %s ms (%s tasks, %s"
            + " requests)", requestWait / requests, clientsWait / (sent - TomcatApp.PIPELINED),
            taskWait / tasks, tasks, requests)
        .isBetween(0.5 * clientsWait, 1.05 * clientsWait);
  }

  static String transcript(String out) {
    return out.lines().filter(l -> !l.startsWith("figures:") && !l.startsWith("threads:"))
        .collect(Collectors.joining("\n"));
  }

  static String figure(String out, String regex) {
    Matcher m = Pattern.compile(regex).matcher(out);
    assertThat(m.find()).as("the app printed %s: %s", regex, out).isTrue();
    return m.group(1);
  }
}
