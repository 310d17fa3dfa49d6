package dev.lanes.agent;

import static dev.lanes.agent.TomcatAgentTest.figure;
import static dev.lanes.agent.TomcatAgentTest.transcript;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lanes.agent.apps.NettyFailuresApp;
import dev.lanes.agent.apps.NettyLoopApp;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The agent on Netty's event loops (4.2, and 4.1), in JVMs of their own. */
class NettyAgentTest {
  private static final Pattern BLOCKING_WARNING = Pattern.compile("blocking call on Netty event loop");

  @Test
  void loopTasksAreTimedAndATaskOrHandlerThatBlocksItsLoopIsWarnedOnceWithItsStack() throws Exception {
    String classPath = AgentJvm.classPathWith("netty-");
    AgentJvm.Result without = AgentJvm.runOn(classPath, NettyLoopApp.class, null, List.of());
    AgentJvm.Result with = AgentJvm.runOn(classPath, NettyLoopApp.class, "", List.of());
    assertThat(without.exit()).as(without.err()).isZero();
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(transcript(with.out())).isEqualTo(transcript(without.out()));
    assertThat(BLOCKING_WARNING.matcher(without.err()).find()).isFalse();
    assertMeasured(with);

    // No thread but the agent's own is left (Netty's global executor ends by itself, a second
    // after its last task, so it may or may not be alive at the end of either run).
    Set<String> added = threads(with.out());
    added.removeAll(threads(without.out()));
    assertThat(added).containsExactly("lanes-agent");
    assertThat(threads(without.out())).isSubsetOf(threads(with.out()));
  }

  @Test
  void nettyFourOneLoopsAreMeasuredTheSameWay() throws Exception {
    Path jars = Path.of(System.getProperty("lanes.agent.netty41", "target/netty-4.1"));
    String classPath;
    try (Stream<Path> files = Files.list(jars)) {
      classPath = Stream.concat(Stream.of(AgentJvm.CLASSES),
          files.map(Path::toString).filter(f -> f.endsWith(".jar")).sorted())
          .collect(Collectors.joining(java.io.File.pathSeparator));
    }
    assertThat(classPath).contains("netty-common-4.1.", "netty-transport-4.1.");
    AgentJvm.Result with = AgentJvm.runOn(classPath, NettyLoopApp.class, "", List.of(), "nio-group");
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(with.out()).contains("tasks ran: 200", "scheduled ran: 10",
        "periodic ran: 5, cancelled: true", "echoed bytes: 80");
    assertMeasured(with);
  }

  @Test
  void aLoopTaskThatThrowsCountsAsFailedThoughNettyCatchesIt() throws Exception {
    AgentJvm.Result r = AgentJvm.runOn(AgentJvm.classPathWith("netty-"), NettyFailuresApp.class, "",
        List.of());
    assertThat(r.exit()).as(r.err()).isZero();
    String loop = figure(r.out(), "loop thread: (\\S+)");
    assertThat(r.pool(loop).get("kind")).isEqualTo("EVENT_LOOP");
    assertThat(r.number(loop, "tasks")).isEqualTo(10);
    assertThat(r.number(loop, "failed")).isEqualTo(3);
  }

  /** What the agent must have seen of one run of {@link NettyLoopApp}. */
  private static void assertMeasured(AgentJvm.Result r) {
    String loop = figure(r.out(), "loop thread: (\\S+)");
    assertThat(r.pool(loop).get("kind")).isEqualTo("EVENT_LOOP");
    // 1 probe, the tasks, 10 scheduled (each passes through the loop's queue first unless it is
    // due when the loop takes it: at least the one due at once), 1 task scheduling the periodic
    // one, its 5 runs.
    int atLeast = 1 + NettyLoopApp.TASKS + 10 + 1 + 5;
    assertThat(r.number(loop, "tasks")).isBetween((double) atLeast, atLeast + 9.0);
    // Scheduled and periodic tasks too: each waits from its due time.
    assertThat(r.number(loop, "unknown_wait")).isZero();
    assertThat(r.number(loop, "failed")).isZero();
    // Both measured in the same run: the agent's sums within 5 % of the tasks' own (the other
    // 26 tasks wait and run for little; their run, on a busy machine, may include being
    // descheduled, hence the wider bound above the tasks' own run).
    double appWait = Double.parseDouble(figure(r.out(), "wait_total_ms=([0-9.]+)"));
    double appRun = Double.parseDouble(figure(r.out(), "run_total_ms=([0-9.]+)"));
    double tasks = r.number(loop, "tasks");
    assertThat(r.number(loop, "wait_mean_ms") * tasks).isCloseTo(appWait, within(appWait * 0.05));
    assertThat(r.number(loop, "run_mean_ms") * tasks).isBetween(appRun, appRun * 1.5);

    // The bounded executor: its blocker, 16 queued tasks and 1 probe ran; the 17th was refused.
    assertThat(r.out()).contains("17th pending task: refused (RejectedExecutionException)");
    String bounded = figure(r.out(), "bounded executor thread: (\\S+)");
    assertThat(r.pool(bounded).get("kind")).isEqualTo("EVENT_LOOP");
    assertThat(r.number(bounded, "tasks")).isEqualTo(1 + 1 + 16);
    assertThat(r.number(bounded, "rejected")).isEqualTo(1);
    assertThat(r.number(bounded, "unknown_wait")).isZero();

    // The loop blocked 1.5 s by one task: its longest run, and a warning naming the loop, with
    // the stack of the task that blocked it (one of two warnings).
    String blockedLoop = figure(r.out(), "blocking task ran on: (\\S+)");
    assertThat(r.pool(blockedLoop).get("kind")).isEqualTo("EVENT_LOOP");
    assertThat(r.number(blockedLoop, "run_max_ms")).isGreaterThanOrEqualTo(NettyLoopApp.BLOCK_MS * 0.99);
    Matcher warnings = BLOCKING_WARNING.matcher(r.err());
    int count = 0;
    while (warnings.find()) {
      count++;
    }
    assertThat(count).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("blocking call on Netty event loop \"" + blockedLoop + "\"",
        "at " + NettyLoopApp.class.getName() + ".sleepOnTheLoop(");
    // The other one: a handler that slept on its loop while handling a read (an IO turn, not a
    // task: warned about with its stack, and its time in the loop's IO turns, not in its tasks).
    String handlerLoop = figure(r.out(), "handler slept on: (\\S+)");
    assertThat(r.err()).contains("blocking call on Netty event loop \"" + handlerLoop + "\"",
        "at " + NettyLoopApp.class.getName() + ".sleepInTheHandler(");
    assertThat(r.number(handlerLoop, "io_turn_max_ms")).isGreaterThanOrEqualTo(NettyLoopApp.BLOCK_MS * 0.99);
    assertThat(r.number(handlerLoop, "io_turn_mean_ms") * r.number(handlerLoop, "io_turns"))
        .isGreaterThanOrEqualTo(NettyLoopApp.BLOCK_MS * 0.99);
    assertThat(r.number(handlerLoop, "io_turn_p99_ms")).isLessThanOrEqualTo(r.number(handlerLoop, "io_turn_max_ms"));
    // Tasks and IO turns are separate columns, each with its own count, percentiles and mean: on
    // the handler's loop (not the blocked one) no task ran as long as the handler's IO turn.
    assertThat(r.number(handlerLoop, "io_turns")).isPositive();
    assertThat(r.number(handlerLoop, "tasks")).isPositive();
    if (!handlerLoop.equals(blockedLoop)) {
      assertThat(r.number(handlerLoop, "run_max_ms")).isLessThan(NettyLoopApp.BLOCK_MS * 0.5);
      assertThat(r.number(handlerLoop, "run_mean_ms") * r.number(handlerLoop, "tasks"))
          .isLessThan(NettyLoopApp.BLOCK_MS * 0.5);
    }
    // The group's other loop is a pool of its own, named after its thread.
    String otherLoop = blockedLoop.endsWith("-1") ? blockedLoop.replaceAll("-1$", "-2")
        : blockedLoop.replaceAll("-\\d+$", "-1");
    assertThat(r.pool(otherLoop).get("kind")).isEqualTo("EVENT_LOOP");
    assertThat(r.number(otherLoop, "tasks")).isPositive();
    // Channel registration, accepts and writes reach the loops through execute: all stamped.
    assertThat(r.number(blockedLoop, "unknown_wait")).isZero();
    assertThat(r.number(otherLoop, "unknown_wait")).isZero();
  }

  private static Set<String> threads(String out) {
    Set<String> names = new TreeSet<>(Arrays.asList(figure(out, "threads: (.*)").split(",")));
    names.removeIf(n -> n.startsWith("globalEventExecutor-"));
    return names;
  }

  /**
   * The view lists what a loop holds (its queue and its schedule), so the stamp sweep keeps the
   * stamps of tasks still waiting there. In this JVM, on a real loop, without the agent.
   */
  @Test
  void theLoopsViewListsItsQueuedAndScheduledTasks() throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      ScheduledFuture<?> scheduled = loop.submit(() -> loop.schedule(() -> { }, 1, TimeUnit.HOURS)).get();
      loop.execute(() -> {
        started.countDown();
        awaitUninterruptibly(release);
      });
      started.await();
      Runnable queued = () -> { };
      loop.execute(queued);
      PoolView view = PoolView.of(PoolKind.of(loop), loop);
      assertThat(view).isInstanceOf(EventLoopView.class);
      assertThat(view.threads(loop)).isEqualTo(1);
      assertThat(view.queued(loop)).isEqualTo(loop.pendingTasks()).isPositive();
      // By identity, as the sweep compares.
      assertThat(view.queuedTasks(loop)).anyMatch(t -> t == queued).anyMatch(t -> t == scheduled);
      scheduled.cancel(false);
    } finally {
      release.countDown();
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }
    assertThat(loop.isTerminated()).isTrue();
    assertThat(PoolView.of(PoolKind.EVENT_LOOP, loop).threads(loop)).isZero();
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
