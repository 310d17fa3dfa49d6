package dev.lanes.lab.experiments;

import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.AgentDemoProcess;
import dev.lanes.lab.support.AgentDemoProcess.Jars;
import dev.lanes.lab.support.Percentiles;
import dev.lanes.lab.support.Work;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * E14, "the queues you do not own" (seed writing 004, issue 25): a Spring Boot application with no
 * lanes code ({@code lanes-agent-demo}) runs under the lanes agent in a JVM of its own, and the lab
 * checks what the agent reports against what callers saw.
 *
 * <ol>
 *   <li><b>Tomcat, noisy neighbour.</b> Slow requests fill Tomcat's 4 request threads, fast ones
 *       queue behind them. The agent's mean queue wait for Tomcat's pool must agree, within 10 %,
 *       with what the callers waited, while Spring's own {@code http.server.requests} says the
 *       fast endpoint is fast.
 *   <li><b>Tomcat, kept-alive connections.</b> Clients send requests one after the other on the
 *       connections the JDK's HTTP client keeps alive, so one of Tomcat's tasks may serve several
 *       requests: the agent's wait per request (not per task) must agree, within 10 %, with what the
 *       callers waited, and the run must show fewer tasks than requests.
 *   <li><b>WebFlux on Netty.</b> CPU-heavy handlers run on the event loops; the agent must show
 *       the event loops and, in their run times, the handler (the writing's "missing" metric).
 *   <li><b>Common-pool fan-out.</b> Blocking calls fanned out to {@code ForkJoinPool.commonPool()}
 *       must be flagged ("blocking call on ...").
 *   <li><b>Nested submission.</b> The plain-pool deadlock must be reported ("starvation deadlock in
 *       pool ..."), and the time from the deadlock forming to the warning is measured (goal: under
 *       1 s).
 * </ol>
 *
 * A part the agent build does not measure (no pool of that kind in its table: event loops and the
 * common pool come with hooks of their own) is reported "not measured by this agent build", and
 * the experiment does not hold; nothing is inferred for it. Without the two jars, E14 reports
 * "Not run" and how to build them.
 */
public final class E14QueuesYouDoNotOwn implements Experiment {

  /** Tomcat's request threads in the demo application ({@code server.tomcat.threads.max}). */
  static final int TOMCAT_THREADS = 4;
  /** The bound on the agent's queue wait against the callers'. */
  static final double WAIT_TOLERANCE = 0.10;
  /** {@code http.server.requests} "says fast" when its mean is under this part of the callers' mean. */
  static final double FAST_METRIC_PART = 0.10;
  /** The event loops' longest run (a task or an IO turn) must cover this part of a CPU-heavy handler's time. */
  static final double HANDLER_PART = 0.8;
  /** Goal for the time from the nested deadlock forming to the agent's warning. */
  static final long DETECT_GOAL_MS = 1_000;
  /** The agent flags a task blocked this long on a thread that must not block. */
  static final int BLOCKING_WARN_MS = 200;
  static final String AGENT_OPTIONS = "blocking-warn=" + BLOCKING_WARN_MS + "ms";
  static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  /**
   * Kept-alive clients: three times Tomcat's threads, so that each request waits about two
   * services, well above what a caller's own side adds on a busy machine.
   */
  static final int KEEP_ALIVE_CLIENTS = 3 * TOMCAT_THREADS;
  /**
   * Kept-alive requests ask the demo to hold its thread this long after the answer left (afterMs,
   * outside http.server.requests): the JDK's client sends its next request meanwhile, so one task
   * serves several. Its next request may wait for that tail: the agent counts it no wait (it waited
   * for no thread), the callers do; short, so that it stays a small part of the wait.
   */
  static final int AFTER_ANSWER_MS = 5;

  /** Whether a goal was met, missed, or could not be judged because the agent does not measure it. */
  enum Status {
    MET("met"), MISSED("MISSED"), NOT_MEASURED("not measured by this agent build");

    final String label;

    Status(String label) {
      this.label = label;
    }
  }

  /** One goal of the issue, judged from this run. */
  record Goal(String measure, String goal, String measured, Status status, String note) {}

  private final Path root;

  public E14QueuesYouDoNotOwn() {
    this(null);
  }

  /** Looks for the jars under {@code root} (null: the lanes tree the lab runs from). */
  E14QueuesYouDoNotOwn(Path root) {
    this.root = root;
  }

  @Override
  public String id() {
    return "E14";
  }

  @Override
  public String question() {
    return "The queues you do not own: does the lanes agent, in an application with no lanes code,"
        + " see Tomcat's queue wait as callers did, the event loop's blocked time, blocking on the"
        + " common pool and a nested-submission deadlock?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    Path tree = root != null ? root : Jars.root();
    Jars jars = Jars.at(tree);
    if (Jars.find(tree).isEmpty()) {
      result.figure("ran", false);
      result.verdict(false, "Not run: " + jars.missing() + ".");
      return result;
    }
    Load load = new Load(ctx.scale(8, 16), ctx.scale(500, 1_000), ctx.scale(40, 100), 20);
    int cpuRequests = Math.max(ctx.cores(), 4); // Reactor Netty's default event loops: max(cores, 4)
    int cpuMs = ctx.scale(500, 1_000);
    int netFast = ctx.scale(20, 40);
    int fanCalls = ctx.scale(3, 4);
    int fanMs = ctx.scale(400, 500);
    KeepAliveLoad keepAlive = new KeepAliveLoad(KEEP_ALIVE_CLIENTS, ctx.scale(20, 40), ctx.scale(50, 100),
        AFTER_ANSWER_MS);
    result.setup(String.format(Locale.ROOT,
        "lanes-agent-demo, a Spring Boot application with no lanes code, in a JVM of its own under"
            + " -javaagent:lanes-agent.jar=table-file=...,%s. (1) Spring MVC on Tomcat with %d request"
            + " threads: %d requests to /slow (%d ms each) at once, then %d to /fast, one every %d ms;"
            + " each caller times its own request; the agent's table is read before and after the load"
            + " (lanes-agent attach --tsv) and Actuator's http.server.requests likewise. Then %d clients"
            + " on kept-alive connections (one new JDK HttpClient), each sending %d requests to /slow (%d ms,"
            + " and %d ms of work after the answer left, outside http.server.requests) one after the"
            + " other, read the same way. Then /fanout (%d"
            + " blocking calls of %d ms on ForkJoinPool.commonPool(), joined) and /nested (a pool of one"
            + " thread whose task submits another and waits for it). (2) The same application on"
            + " WebFlux and Reactor Netty: %d requests to /cpu (%d ms of spinning on the event loop) at"
            + " once, then %d to /fast, one every %d ms; the agent's table at exit.",
        AGENT_OPTIONS, TOMCAT_THREADS, load.slow, load.slowMs, load.fast, load.gapMs,
        keepAlive.clients, keepAlive.perClient, keepAlive.ms, keepAlive.afterMs, fanCalls, fanMs,
        cpuRequests, cpuMs, netFast, load.gapMs));
    Path dir = ctx.tempDir().resolve("E14");

    // 1. Tomcat: the noisy neighbour, then the fan-out and the nested deadlock.
    ctx.status("E14 starting the demo application on Tomcat under the agent");
    TomcatRun tomcat;
    KeepAliveRun keptAlive;
    List<Map<String, String>> tomcatExit;
    Optional<AgentDemoProcess.Line> blockingWarning;
    Optional<AgentDemoProcess.Line> deadlockWarning;
    long formedAtMicros;
    try (AgentDemoProcess app = AgentDemoProcess.start(jars, dir.resolve("tomcat"), AGENT_OPTIONS,
        List.of(), START_TIMEOUT); HttpClient client = LabContext.newClient()) {
      warmUp(client, app.url(), "/slow?ms=1");
      ctx.status("E14 Tomcat: noisy neighbour");
      tomcat = noisyNeighbour(client, app, load);
      ctx.status("E14 Tomcat: kept-alive connections");
      keptAlive = keptAlive(client, app, keepAlive);
      ctx.status("E14 Tomcat: common-pool fan-out");
      get(client, app.url() + "/fanout?calls=" + fanCalls + "&ms=" + fanMs);
      // Logged while the calls block (each lasts fanMs > BLOCKING_WARN_MS); a moment more for the pipe.
      blockingWarning = app.awaitLine(l -> isBlockingWarning(l.text()), Duration.ofSeconds(2));
      ctx.status("E14 Tomcat: nested submission");
      String nested = get(client, app.url() + "/nested");
      formedAtMicros = formedAt(nested);
      deadlockWarning = app.awaitLine(l -> isDeadlockWarning(l.text()), Duration.ofSeconds(10));
      tomcatExit = app.stopAndReadTable();
      if (tomcatExit.isEmpty()) {
        throw new IllegalStateException("E14: the agent wrote no table at exit; the application's"
            + " last lines:\n" + app.tail(30));
      }
    }

    // 2. WebFlux on Netty: CPU-heavy handlers on the event loops.
    ctx.status("E14 starting the demo application on WebFlux/Netty under the agent");
    List<Double> netFastMs;
    Actuator netFastMetric;
    List<Map<String, String>> nettyExit;
    try (AgentDemoProcess app = AgentDemoProcess.start(jars, dir.resolve("netty"), AGENT_OPTIONS,
        List.of("--spring.profiles.active=reactive"), START_TIMEOUT); HttpClient client = LabContext.newClient()) {
      warmUp(client, app.url(), "/cpu?ms=1");
      Actuator before = actuator(client, app.url(), "/fast");
      ctx.status("E14 WebFlux: CPU-heavy handlers on the event loops");
      Calls calls = burstThenTrickle(client, app.url(), "/cpu?ms=" + cpuMs, cpuRequests, "/fast", netFast,
          load.gapMs);
      netFastMs = calls.fastMs;
      netFastMetric = actuator(client, app.url(), "/fast").minus(before);
      nettyExit = app.stopAndReadTable();
    }

    // 3. The verdicts, from the figures above.
    Map<String, String> tomcatPool = tomcat.after.stream().filter(r -> "TOMCAT".equals(r.get("kind")))
        .findFirst().orElse(null);
    double fastClientMean = Percentiles.mean(tomcat.fastMs);
    double fastServerMean = tomcat.fastMetric.meanMs();
    double detectMs = deadlockWarning.map(l -> ChronoUnit.MICROS.between(
        java.time.Instant.EPOCH, l.at()) - formedAtMicros).map(us -> us / 1e3).orElse(-1.0);

    result.figure("ran", true);
    result.figure("load_requests", (long) tomcat.requests());
    result.figure("tomcat_agent_tasks", tomcat.agentTasks);
    result.figure("tomcat_agent_wait_mean_ms", tomcat.agentWaitMeanMs());
    result.figure("tomcat_callers_wait_mean_ms", tomcat.callersWaitMeanMs());
    result.figure("tomcat_wait_difference_pct", 100 * relativeDifference(tomcat.agentWaitMeanMs(),
        tomcat.callersWaitMeanMs()));
    result.figure("fast_client_mean_ms", fastClientMean);
    result.figure("fast_client_p99_ms", Percentiles.of(tomcat.fastMs, 99));
    result.figure("fast_http_server_requests_mean_ms", fastServerMean);
    result.figure("fast_http_server_requests_max_ms", tomcat.fastMetric.maxMs);
    result.figure("slow_client_mean_ms", Percentiles.mean(tomcat.slowMs));
    result.figure("tomcat_saturated_s", number(tomcatPool, "saturated_s"));
    Goal waitGoal = judgeQueueWait(tomcat.agentWaitMeanMs(), tomcat.callersWaitMeanMs(), tomcat.agentTasks,
        tomcat.requests());
    Goal keepAliveGoal = judgeKeptAliveWait(keptAlive.agentWaitPerRequestMs(),
        keptAlive.callersWaitMeanMs(), keptAlive.agentWaitPerTaskMs(), keptAlive.agentTasks,
        keptAlive.agentRequests, keptAlive.sent());
    result.figure("keepalive_requests_sent", (long) keptAlive.sent());
    result.figure("keepalive_agent_requests", keptAlive.agentRequests);
    result.figure("keepalive_agent_tasks", keptAlive.agentTasks);
    result.figure("keepalive_agent_wait_per_request_ms", keptAlive.agentWaitPerRequestMs());
    result.figure("keepalive_agent_wait_per_task_ms", keptAlive.agentWaitPerTaskMs());
    result.figure("keepalive_callers_wait_mean_ms", keptAlive.callersWaitMeanMs());
    result.figure("keepalive_wait_difference_pct", 100 * relativeDifference(
        keptAlive.agentWaitPerRequestMs(), keptAlive.callersWaitMeanMs()));
    Goal fastGoal = judgeFastLooksFast(fastClientMean, fastServerMean, tomcat.fastMetric.count, load.fast);
    Goal loopGoal = judgeEventLoop(nettyExit, cpuMs, Percentiles.mean(netFastMs), netFastMetric.meanMs());
    Goal fanGoal = judgeFanOut(tomcatExit, blockingWarning.map(AgentDemoProcess.Line::text).orElse(null));
    Goal nestedGoal = judgeNested(deadlockWarning.map(AgentDemoProcess.Line::text).orElse(null), detectMs);
    result.figure("netty_event_loops_measured", hasKind(nettyExit, "EVENT_LOOP"));
    result.figure("netty_event_loop_run_max_ms", maxOf(nettyExit, "EVENT_LOOP", "run_max_ms"));
    result.figure("netty_event_loop_io_turn_max_ms", maxOf(nettyExit, "EVENT_LOOP", "io_turn_max_ms"));
    result.figure("netty_cpu_handler_ms", (long) cpuMs);
    result.figure("netty_fast_client_mean_ms", Percentiles.mean(netFastMs));
    result.figure("netty_fast_http_server_requests_mean_ms", netFastMetric.meanMs());
    result.figure("common_pool_measured", hasKind(tomcatExit, "COMMON_POOL"));
    result.figure("fanout_flagged", blockingWarning.isPresent());
    result.figure("nested_deadlock_flagged", deadlockWarning.isPresent());
    result.figure("nested_detect_ms", detectMs);

    List<Goal> goals = List.of(waitGoal, fastGoal, keepAliveGoal, loopGoal, fanGoal, nestedGoal);
    List<List<String>> rows = new ArrayList<>();
    for (Goal g : goals) {
      rows.add(List.of(g.measure, g.goal, g.measured, g.status.label, g.note));
    }
    result.table(List.of("measure (issue 25)", "goal", "measured", "verdict", "why / how"), rows);
    long met = goals.stream().filter(g -> g.status == Status.MET).count();
    long notMeasured = goals.stream().filter(g -> g.status == Status.NOT_MEASURED).count();
    result.figure("goals_met", met);
    result.figure("goals_not_measured", notMeasured);
    chart(result, tomcat, tomcatExit, nettyExit);
    result.verdict(met == goals.size(), verdict(goals, tomcat, keptAlive, fastClientMean, fastServerMean));
    return result;
  }

  // --- the verdicts: pure functions of the figures (E14VerdictsTest) ---------------------------

  /** |a − b| / b; infinite when b is 0 and a is not. */
  static double relativeDifference(double agent, double callers) {
    if (callers == 0) {
      return agent == 0 ? 0 : Double.POSITIVE_INFINITY;
    }
    return Math.abs(agent - callers) / callers;
  }

  /**
   * (a) The agent's mean queue wait for Tomcat's pool against what the callers waited, both over
   * the load's requests; the callers' wait is their latency less the server's own time for the
   * request (http.server.requests), since that is all a caller can know of the server.
   */
  static Goal judgeQueueWait(double agentMeanMs, double callersMeanMs, long agentTasks, long requests) {
    double diff = relativeDifference(agentMeanMs, callersMeanMs);
    boolean met = diff <= WAIT_TOLERANCE && agentTasks > 0;
    String note = "callers' wait = their latency − http.server.requests' time, summed over every"
        + " request of the load and divided by their number; the agent's = the growth of its wait"
        + " sum over the load ÷ the tasks it ran meanwhile (" + agentTasks + " for " + requests
        + " requests). Left in the callers' figure: loopback, Tomcat's parsing, Spring's filters";
    return new Goal("Tomcat's queue wait, noisy neighbour",
        "agent's mean within " + pct(WAIT_TOLERANCE) + " of what callers waited",
        String.format(Locale.ROOT, "agent %s ms, callers %s ms (%s apart)", f(agentMeanMs),
            f(callersMeanMs), Double.isFinite(diff) ? pct(diff) : "—"),
        met ? Status.MET : Status.MISSED, agentTasks == 0 ? "the agent ran no task of Tomcat's pool"
            + " during the load" : note);
  }

  /**
   * (a') On kept-alive connections: the agent's mean wait per request against what the callers
   * waited (latency less http.server.requests' time, per request), the wait per task beside it.
   * Judged only when keep-alive showed (fewer tasks than requests) and the agent counted every
   * request sent; an agent build that counts no requests did not measure it.
   */
  static Goal judgeKeptAliveWait(double perRequestMs, double callersMeanMs, double perTaskMs,
      long agentTasks, long agentRequests, long sent) {
    String measure = "Tomcat's wait per request, kept-alive connections";
    String goal = "agent's wait per request within " + pct(WAIT_TOLERANCE) + " of what callers"
        + " waited; fewer tasks than requests";
    String measured = String.format(Locale.ROOT, "agent %s ms per request (%s ms per task), callers"
            + " %s ms (%s apart); %d tasks served %d requests (%d sent)", f(perRequestMs), f(perTaskMs),
        f(callersMeanMs), pct(relativeDifference(perRequestMs, callersMeanMs)), agentTasks,
        agentRequests, sent);
    if (agentRequests == 0) {
      return new Goal(measure, goal, measured, Status.NOT_MEASURED,
          "this agent build counts Tomcat's tasks, not its requests");
    }
    double diff = relativeDifference(perRequestMs, callersMeanMs);
    boolean keptAlive = agentTasks < agentRequests;
    boolean counted = agentRequests >= sent;
    boolean met = diff <= WAIT_TOLERANCE && keptAlive && counted;
    String note = !counted ? "the agent counted fewer requests than were sent"
        : !keptAlive ? "no task served more than one request: keep-alive did not show in this run"
        : "a task's first request waited the task's queue wait, a later one (read by the worker"
            + " already running) none; the wait per task divides the same wait by fewer tasks";
    return new Goal(measure, goal, measured, met ? Status.MET : Status.MISSED, note);
  }

  /** (a, continued) The server's own metric says the fast endpoint is fast while its callers waited. */
  static Goal judgeFastLooksFast(double fastClientMeanMs, double fastServerMeanMs, long metricCount,
      long fastRequests) {
    boolean met = metricCount >= fastRequests && fastServerMeanMs < FAST_METRIC_PART * fastClientMeanMs;
    return new Goal("http.server.requests for /fast meanwhile",
        "says fast: its mean under " + pct(FAST_METRIC_PART) + " of the fast callers' latency",
        String.format(Locale.ROOT, "metric %s ms (%d requests), callers %s ms", f(fastServerMeanMs),
            metricCount, f(fastClientMeanMs)),
        met ? Status.MET : Status.MISSED, metricCount < fastRequests
            ? "the metric counted fewer /fast requests than were sent (" + fastRequests + ")"
            : "Spring times the request from its filter on: the time queued in Tomcat's pool is not in it");
  }

  /**
   * (b) The event loops are in the agent's table and their longest run (a task, or an IO turn:
   * where a handler runs) covers the CPU handler.
   */
  static Goal judgeEventLoop(List<Map<String, String>> table, int cpuMs, double fastClientMeanMs,
      double fastServerMeanMs) {
    String measure = "WebFlux: CPU-heavy handler on the event loop";
    String goal = "the agent shows the event loops, a run (task or IO turn) of ≥ " + pct(HANDLER_PART)
        + " of the handler's " + cpuMs + " ms";
    String callers = String.format(Locale.ROOT, "fast callers waited %s ms on average while"
        + " http.server.requests said %s ms", f(fastClientMeanMs), f(fastServerMeanMs));
    if (!hasKind(table, "EVENT_LOOP")) {
      return new Goal(measure, goal, "no pool of kind EVENT_LOOP in the agent's table; " + callers,
          Status.NOT_MEASURED, "this agent build has no hook for Netty's event loops; the writing's"
              + " missing metric is still missing here");
    }
    double taskMax = maxOf(table, "EVENT_LOOP", "run_max_ms");
    double turnMax = maxOf(table, "EVENT_LOOP", "io_turn_max_ms"); // 0 where IO turns are not apart
    double runMax = Math.max(taskMax, turnMax);
    double waitMax = maxOf(table, "EVENT_LOOP", "wait_max_ms");
    boolean met = runMax >= HANDLER_PART * cpuMs;
    return new Goal(measure, goal, String.format(Locale.ROOT, "%d event loops, longest task run %s"
            + " ms, longest IO turn %s ms, longest queue wait %s ms; %s", countKind(table, "EVENT_LOOP"),
            f(taskMax), f(turnMax), f(waitMax), callers),
        met ? Status.MET : Status.MISSED, met ? "the handler held its loop for a run the agent timed"
            : "the agent measured the loops but no run as long as the handler");
  }

  /** (c) The fan-out of blocking calls on the common pool is flagged. */
  static Goal judgeFanOut(List<Map<String, String>> table, String warning) {
    String measure = "blocking calls fanned out to the common pool";
    String goal = "flagged: \"blocking call on ...\" for ForkJoinPool.commonPool";
    if (!hasKind(table, "COMMON_POOL") && warning == null) {
      return new Goal(measure, goal, "no pool of kind COMMON_POOL in the agent's table, no warning",
          Status.NOT_MEASURED, "this agent build has no hook for ForkJoinPool");
    }
    return new Goal(measure, goal, warning != null ? "warned: " + clip(warning) : "no warning",
        warning != null ? Status.MET : Status.MISSED, "each call blocks longer than the agent's"
            + " blocking-warn (" + BLOCKING_WARN_MS + " ms)");
  }

  /** (d) The nested-submission deadlock is reported, within the goal's time. */
  static Goal judgeNested(String warning, double detectMs) {
    boolean met = warning != null && detectMs >= 0 && detectMs < DETECT_GOAL_MS;
    return new Goal("plain-pool nested submission (1 thread)",
        "\"starvation deadlock in pool ...\" within " + DETECT_GOAL_MS + " ms of the deadlock forming",
        warning == null ? "no warning within 10 s" : String.format(Locale.ROOT, "warned %s ms after"
            + " the outer task began to wait: %s", f(detectMs), clip(warning)),
        met ? Status.MET : Status.MISSED, "timed from the instant the outer task called get() (the"
            + " application reports it) to the instant the lab read the warning line (one clock)");
  }

  static boolean isBlockingWarning(String line) {
    return line.contains("blocking call on") && (line.contains("commonPool") || line.contains("common pool"));
  }

  static boolean isDeadlockWarning(String line) {
    return line.contains("starvation deadlock in pool \"nested-");
  }

  static boolean hasKind(List<Map<String, String>> table, String kind) {
    return countKind(table, kind) > 0;
  }

  private static long countKind(List<Map<String, String>> table, String kind) {
    return table.stream().filter(r -> kind.equals(r.get("kind"))).count();
  }

  /** The largest figure of a column over the pools of one kind; 0 if none has it. */
  static double maxOf(List<Map<String, String>> table, String kind, String column) {
    return table.stream().filter(r -> kind.equals(r.get("kind")))
        .mapToDouble(r -> number(r, column)).filter(Double::isFinite).max().orElse(0);
  }

  /** A cell as a number; NaN when empty or absent (no task gave the figure). */
  static double number(Map<String, String> row, String column) {
    String v = row == null ? null : row.get(column);
    return v == null || v.isEmpty() ? Double.NaN : Double.parseDouble(v);
  }

  private static String verdict(List<Goal> goals, TomcatRun tomcat, KeepAliveRun keptAlive,
      double fastClientMean, double fastServerMean) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "On Tomcat, fast callers waited %s ms on average while http.server.requests said %s ms; the"
            + " agent's mean queue wait for Tomcat's pool was %s ms against %s ms that the callers"
            + " waited (%s apart). ", f(fastClientMean), f(fastServerMean), f(tomcat.agentWaitMeanMs()),
        f(tomcat.callersWaitMeanMs()), pct(relativeDifference(tomcat.agentWaitMeanMs(),
            tomcat.callersWaitMeanMs()))));
    b.append(String.format(Locale.ROOT, "On kept-alive connections, %d tasks served %d requests; the"
            + " agent's wait per request was %s ms against %s ms that the callers waited (%s apart),"
            + " its wait per task %s ms. ", keptAlive.agentTasks, keptAlive.agentRequests,
        f(keptAlive.agentWaitPerRequestMs()), f(keptAlive.callersWaitMeanMs()),
        pct(relativeDifference(keptAlive.agentWaitPerRequestMs(), keptAlive.callersWaitMeanMs())),
        f(keptAlive.agentWaitPerTaskMs())));
    List<String> missed = new ArrayList<>();
    List<String> unmeasured = new ArrayList<>();
    for (Goal g : goals) {
      if (g.status == Status.MISSED) {
        missed.add(g.measure + " (" + g.measured + ")");
      } else if (g.status == Status.NOT_MEASURED) {
        unmeasured.add(g.measure);
      }
    }
    if (missed.isEmpty() && unmeasured.isEmpty()) {
      b.append("Every goal of issue 25 was met in this run.");
    } else {
      if (!missed.isEmpty()) {
        b.append("Missed here: ").append(String.join("; ", missed)).append(". ");
      }
      if (!unmeasured.isEmpty()) {
        b.append("Not measured by this agent build, so not judged: ").append(String.join("; ", unmeasured))
            .append('.');
      }
    }
    return b.toString().strip();
  }

  // --- the chart --------------------------------------------------------------------------------

  /** Per pool that ran tasks: mean queue wait against mean run time. */
  private static void chart(ExperimentResult result, TomcatRun load,
      List<Map<String, String>> tomcatExit, List<Map<String, String>> nettyExit) {
    List<String> names = new ArrayList<>();
    List<Double> waits = new ArrayList<>();
    List<Double> runs = new ArrayList<>();
    if (load.agentTasks > 0) {
      names.add("MVC: Tomcat pool (load)");
      waits.add(load.agentWaitMeanMs());
      runs.add(orZero(load.agentRunMeanMs()));
    }
    Map<String, List<Map<String, String>>> tables = new LinkedHashMap<>();
    tables.put("MVC", tomcatExit);
    tables.put("WebFlux", nettyExit);
    for (Map.Entry<String, List<Map<String, String>>> t : tables.entrySet()) {
      for (Map<String, String> r : t.getValue()) {
        double tasks = number(r, "tasks");
        if (!(tasks > 0) || "Catalina-utility".equals(r.get("pool"))) {
          continue; // no task, or Tomcat's housekeeping timer: nothing to compare
        }
        // Tomcat's pool is named after its threads (http-nio-127.0.0.1-auto-1-exec): too long for an axis.
        names.add(t.getKey() + ": " + ("TOMCAT".equals(r.get("kind")) ? "Tomcat pool (whole run)" : r.get("pool")));
        waits.add(orZero(number(r, "wait_mean_ms")));
        runs.add(orZero(number(r, "run_mean_ms")));
      }
    }
    if (names.isEmpty()) {
      return;
    }
    result.chart("E14-pools", "Each pool the agent measured in the demo application (no lanes code):"
            + " mean queue wait against mean run time per task, from the agent's table at exit (the"
            + " whole run: warm-up, load, fan-out, nested), and for Tomcat's pool also over the load"
            + " alone (the verdict's figures). Tomcat's queue wait is the time http.server.requests"
            + " leaves out. The deadlocked pool ran no task, so it has no bar; a pool missing here"
            + " was not measured by this agent build.",
        Charts.barsLog("E14: queue wait against run time, per pool", "ms per task (mean)", names,
            Charts.series("queue wait", waits, "run time", runs)));
  }

  private static double orZero(double v) {
    return Double.isFinite(v) ? v : 0;
  }

  // --- the load ---------------------------------------------------------------------------------

  /** The noisy neighbour's shape: {@code slow} requests of {@code slowMs} at once, then fast ones. */
  record Load(int slow, int slowMs, int fast, int gapMs) {}

  /** Kept-alive clients: {@code clients} callers, {@code perClient} requests of {@code ms} each. */
  record KeepAliveLoad(int clients, int perClient, int ms, int afterMs) {}

  /** The kept-alive run: each request's latency, Actuator's and the agent's figures over it. */
  private record KeepAliveRun(List<Double> latencyMs, Actuator metric, long agentTasks,
      long agentRequests, double agentTaskWaitSumMs, double agentRequestWaitSumMs) {
    int sent() {
      return latencyMs.size();
    }

    double agentWaitPerRequestMs() {
      return agentRequests == 0 ? Double.NaN : agentRequestWaitSumMs / agentRequests;
    }

    double agentWaitPerTaskMs() {
      return agentTasks == 0 ? Double.NaN : agentTaskWaitSumMs / agentTasks;
    }

    double callersWaitMeanMs() {
      return (latencyMs.stream().mapToDouble(Double::doubleValue).sum() - metric.totalMs) / sent();
    }
  }

  /**
   * Each client sends its requests one after the other through one new HttpClient, which keeps
   * its connections alive between them (a new one: the noisy neighbour's client holds dozens of
   * idle connections and would hand each request another one); the agent's table before and after.
   */
  private static KeepAliveRun keptAlive(HttpClient client, AgentDemoProcess app, KeepAliveLoad load)
      throws Exception {
    Actuator before = actuator(client, app.url(), "/slow");
    long[] b = tomcatSums(app.snapshot());
    List<Double> latency = new ArrayList<>();
    try (HttpClient keptAlive = LabContext.newClient();
        ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<List<Double>>> each = new ArrayList<>();
      for (int c = 0; c < load.clients; c++) {
        each.add(callers.submit(() -> {
          List<Double> mine = new ArrayList<>();
          for (int i = 0; i < load.perClient; i++) {
            mine.add(timed(keptAlive, app.url() + "/slow?ms=" + load.ms + "&afterMs=" + load.afterMs));
          }
          return mine;
        }));
      }
      for (Future<List<Double>> f : each) {
        latency.addAll(f.get());
      }
    }
    List<Map<String, String>> after = app.snapshot();
    for (int i = 0; i < 3 && tomcatSums(after)[3] - b[3] < latency.size(); i++) {
      after = app.snapshot(); // a request counts when it starts: at most a read late
    }
    long[] a = tomcatSums(after);
    Actuator metric = actuator(client, app.url(), "/slow").minus(before);
    return new KeepAliveRun(latency, metric, a[0] - b[0], a[3] - b[3], (a[1] - b[1]) / 1e3,
        (a[4] - b[4]) / 1e3);
  }

  /** Each request's latency as its caller measured it, by kind. */
  private record Calls(List<Double> slowMs, List<Double> fastMs) {}

  /** What Actuator's http.server.requests says for one uri: count, total and max. */
  record Actuator(long count, double totalMs, double maxMs) {
    double meanMs() {
      return count == 0 ? Double.NaN : totalMs / count;
    }

    /** The requests since {@code before} (max stays the current window's). */
    Actuator minus(Actuator before) {
      return new Actuator(count - before.count, totalMs - before.totalMs, maxMs);
    }
  }

  /** The Tomcat run's figures: the callers', Actuator's and the agent's (before and after). */
  private record TomcatRun(List<Double> slowMs, List<Double> fastMs, Actuator slowMetric,
      Actuator fastMetric, long agentTasks, double agentWaitSumMs, double agentRunSumMs,
      List<Map<String, String>> after) {
    int requests() {
      return slowMs.size() + fastMs.size();
    }

    double agentWaitMeanMs() {
      return agentTasks == 0 ? Double.NaN : agentWaitSumMs / agentTasks;
    }

    double agentRunMeanMs() {
      return agentTasks == 0 ? Double.NaN : agentRunSumMs / agentTasks;
    }

    /** Latency less the server's own time, over every request of the load. */
    double callersWaitMeanMs() {
      double latency = slowMs.stream().mapToDouble(Double::doubleValue).sum()
          + fastMs.stream().mapToDouble(Double::doubleValue).sum();
      return (latency - slowMetric.totalMs - fastMetric.totalMs) / requests();
    }
  }

  private static TomcatRun noisyNeighbour(HttpClient client, AgentDemoProcess app, Load load)
      throws Exception {
    Actuator slowBefore = actuator(client, app.url(), "/slow");
    Actuator fastBefore = actuator(client, app.url(), "/fast");
    long[] before = tomcatSums(app.snapshot());
    Calls calls = burstThenTrickle(client, app.url(), "/slow?ms=" + load.slowMs, load.slow, "/fast",
        load.fast, load.gapMs);
    int requests = load.slow + load.fast;
    // The callers have their answers; a task may end a moment after its answer left, so read again
    // (a few times at most) until the agent counted as many tasks as there were requests.
    List<Map<String, String>> after = app.snapshot();
    for (int i = 0; i < 3 && tomcatSums(after)[0] - before[0] < requests; i++) {
      after = app.snapshot();
    }
    long[] a = tomcatSums(after);
    Actuator slow = actuator(client, app.url(), "/slow").minus(slowBefore);
    Actuator fast = actuator(client, app.url(), "/fast").minus(fastBefore);
    return new TomcatRun(calls.slowMs, calls.fastMs, slow, fast, a[0] - before[0],
        (a[1] - before[1]) / 1e3, (a[2] - before[2]) / 1e3, after);
  }

  /**
   * Tomcat's pool in a table: {tasks with a known wait, wait sum in µs, run sum in µs, requests,
   * requests' wait sum in µs}. (With -javaagent every task's and request's wait is known; the run
   * sum counts the same tasks then. A table without request columns gives 0 requests.)
   */
  private static long[] tomcatSums(List<Map<String, String>> table) {
    for (Map<String, String> r : table) {
      if ("TOMCAT".equals(r.get("kind"))) {
        long waited = (long) (number(r, "tasks") - number(r, "unknown_wait"));
        double wait = number(r, "wait_mean_ms");
        double run = number(r, "run_mean_ms");
        double requests = number(r, "requests");
        double requestWait = number(r, "request_wait_mean_ms");
        return new long[] {waited, Double.isFinite(wait) ? Math.round(wait * waited * 1e3) : 0,
            Double.isFinite(run) ? Math.round(run * number(r, "tasks") * 1e3) : 0,
            Double.isFinite(requests) ? (long) requests : 0,
            Double.isFinite(requestWait) ? Math.round(requestWait * requests * 1e3) : 0};
      }
    }
    return new long[] {0, 0, 0, 0, 0};
  }

  /** {@code burst} requests to {@code burstPath} at once, then {@code trickle} to {@code trickPath}. */
  private static Calls burstThenTrickle(HttpClient client, String url, String burstPath, int burst,
      String trickPath, int trickle, int gapMs) throws Exception {
    try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Double>> slow = new ArrayList<>();
      List<Future<Double>> fast = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        slow.add(callers.submit(() -> timed(client, url + burstPath)));
      }
      Work.pause(50); // the burst is queued at the server before the first fast request
      for (int i = 0; i < trickle; i++) {
        fast.add(callers.submit(() -> timed(client, url + trickPath)));
        Work.pause(gapMs);
      }
      List<Double> slowMs = new ArrayList<>();
      for (Future<Double> f : slow) {
        slowMs.add(f.get());
      }
      List<Double> fastMs = new ArrayList<>();
      for (Future<Double> f : fast) {
        fastMs.add(f.get());
      }
      return new Calls(slowMs, fastMs);
    }
  }

  /** One GET, timed by its caller from before sending to the whole answer read. */
  private static double timed(HttpClient client, String url) throws IOException, InterruptedException {
    long start = System.nanoTime();
    get(client, url);
    return (System.nanoTime() - start) / 1e6;
  }

  private static String get(HttpClient client, String url) throws IOException, InterruptedException {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("E14: GET " + url + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** First requests load classes and set Spring's dispatcher up: done before anything is measured. */
  private static void warmUp(HttpClient client, String url, String slowPath) throws Exception {
    for (int i = 0; i < 10; i++) {
      get(client, url + "/fast");
      get(client, url + slowPath);
    }
    actuator(client, url, "/fast");
  }

  private static final Pattern STATISTIC =
      Pattern.compile("\"statistic\"\\s*:\\s*\"(COUNT|TOTAL_TIME|MAX)\"\\s*,\\s*\"value\"\\s*:\\s*([-0-9.Ee+]+)");

  static Actuator actuator(HttpClient client, String url, String uri) throws IOException, InterruptedException {
    return parseActuator(get(client, url + "/actuator/metrics/http.server.requests?tag=uri:" + uri));
  }

  /** Actuator's metric JSON (seconds) as counts and milliseconds. */
  static Actuator parseActuator(String json) {
    Matcher m = STATISTIC.matcher(json);
    long count = -1;
    double total = Double.NaN;
    double max = Double.NaN;
    while (m.find()) {
      double v = Double.parseDouble(m.group(2));
      switch (m.group(1)) {
        case "COUNT" -> count = (long) v;
        case "TOTAL_TIME" -> total = v * 1e3;
        default -> max = v * 1e3;
      }
    }
    if (count < 0 || Double.isNaN(total)) {
      throw new IllegalStateException("E14: not an http.server.requests metric: " + json);
    }
    return new Actuator(count, total, max);
  }

  private static final Pattern FORMED_AT = Pattern.compile("formed_at_epoch_us=(\\d+)");

  static long formedAt(String body) {
    Matcher m = FORMED_AT.matcher(body);
    if (!m.find()) {
      throw new IllegalStateException("E14: /nested did not say when the deadlock formed: " + body);
    }
    return Long.parseLong(m.group(1));
  }

  private static String clip(String line) {
    String s = line.replaceAll(".*lanes-agent: ", "");
    return s.length() <= 140 ? s : s.substring(0, 139) + "…";
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, fraction < 0.1 && fraction != 0 ? "%.1f %%" : "%.0f %%", 100 * fraction);
  }

  static String f(double ms) {
    return Double.isFinite(ms) ? E1PoolOrThreadPerTask.fmt(ms) : "—";
  }
}
