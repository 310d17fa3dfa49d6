package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The deadlock detector reports only proven cycles: busy, saturated bulkheads are never
 * DEADLOCKED (each shape looped {@link #REPEATS} times, with the lane's clock pushed far past
 * every detection period), while real cycles are caught every time they form, in one lane or
 * across two.
 */
class DeadlockPrecisionTest {
  /** Loops per false-alarm shape (the suite's stress setting; {@code -Dlanes.stress.repeats}). */
  static final int REPEATS = Integer.getInteger("lanes.stress.repeats", 50);

  private static HttpServer partner;
  private static volatile CountDownLatch partnerAnswers = new CountDownLatch(0);

  @BeforeAll
  static void startPartner() throws IOException {
    partner = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService handlers = Executors.newFixedThreadPool(4);
    partner.setExecutor(handlers);
    partner.createContext("/slow", exchange -> {
      Work.block(partnerAnswers); // "answers in 3 s": held until the test lets it answer
      byte[] body = "ok".getBytes();
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    partner.start();
  }

  @AfterAll
  static void stopPartner() {
    partnerAnswers.countDown();
    partner.stop(0);
    ((ExecutorService) partner.getExecutor()).shutdownNow();
  }

  /** A lane on a fake clock, so health checks can jump far past every period at once. */
  private static final class Clocked {
    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final List<HealthEvent> events = new CopyOnWriteArrayList<>();
    final LaneExecutor lane;

    Clocked(LaneBuilder b) {
      lane = (LaneExecutor) b.ticker(now::get)
          .failOnDeadlock().build();
      lane.onHealth(events::add);
    }

    /** Checks health several times, the clock moving 2 s each time. */
    void checkForAWhile() {
      for (int i = 0; i < 5; i++) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        lane.checkHealth();
      }
    }

    void assertNeverDeadlocked() {
      assertThat(lane.health()).isNotEqualTo(LaneHealth.DEADLOCKED);
      assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
    }
  }

  private static void awaitThreadsIn(Lane lane, int count, Thread.State... states) {
    Awaitility.await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
        .until(() -> {
          int n = 0;
          for (Thread t : Thread.getAllStackTraces().keySet()) {
            // A worker parked idle on its ring or at the gate waits too: count waits inside a task.
            Object blocker = LockSupport.getBlocker(t);
            if (t.getName().startsWith(lane.name() + "-") && List.of(states).contains(t.getState())
                && !(blocker instanceof TaskRing) && !(blocker instanceof LaneGate)) {
              n++;
            }
          }
          return n >= count;
        });
  }

  private static void repeat(Consumer<Integer> shape) {
    for (int i = 0; i < REPEATS; i++) {
      shape.accept(i);
    }
  }

  @Test
  void noAlarmWhenTasksJoinASlowFutureOfAnotherExecutorWhileTasksQueueBehind() {
    repeat(i -> {
      Clocked c = new Clocked(Lane.blocking("http-join", 2));
      CompletableFuture<String> slowResponse = new CompletableFuture<>(); // like sendAsync(..)
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        fs.add(c.lane.submit(slowResponse::join));
      }
      fs.add(c.lane.submit(() -> "unrelated 1"));
      fs.add(c.lane.submit(() -> "unrelated 2"));
      awaitThreadsIn(c.lane, 2, Thread.State.WAITING);
      c.checkForAWhile();
      c.assertNeverDeadlocked();
      assertThat(c.lane.stats().running()).isEqualTo(2); // never compensated past its cap
      slowResponse.complete("response");
      fs.forEach(CompletableFuture::join); // nothing failed by a FAIL policy
      c.lane.close();
    });
  }

  @Test
  void noAlarmForATimedChildWaitWithItsOwnFallback() {
    repeat(i -> {
      Clocked c = new Clocked(Lane.blocking("timed-child", 1));
      CountDownLatch waiting = new CountDownLatch(1);
      CompletableFuture<String> parent = c.lane.submit(() -> {
        CompletableFuture<String> child = c.lane.submit(() -> "child");
        waiting.countDown();
        try {
          return child.get(20, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          return "fallback";
        }
      });
      Work.await(waiting);
      c.checkForAWhile();
      assertThat(parent.join()).isEqualTo("fallback"); // its own timeout, not a deadlock error
      c.assertNeverDeadlocked();
      c.lane.close();
    });
  }

  @Test
  void noAlarmForATimedChildWaitThatWillSucceed() {
    repeat(i -> {
      Clocked c = new Clocked(Lane.blocking("timed-ok", 2));
      CountDownLatch busy = Work.occupy(c.lane);
      CountDownLatch waiting = new CountDownLatch(1);
      CompletableFuture<String> parent = c.lane.submit(() -> {
        CompletableFuture<String> child = c.lane.submit(() -> "child");
        waiting.countDown();
        return child.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
      });
      Work.await(waiting);
      awaitThreadsIn(c.lane, 2, Thread.State.WAITING, Thread.State.TIMED_WAITING);
      c.checkForAWhile();
      busy.countDown(); // the other worker frees and runs the child
      assertThat(parent.join()).isEqualTo("child");
      c.assertNeverDeadlocked();
      c.lane.close();
    });
  }

  @Test
  void noAlarmWhenTwoThreadsSleepWithTwentyTasksQueued() {
    repeat(i -> {
      Clocked c = new Clocked(Lane.blocking("sleepers", 2));
      AtomicBoolean stop = new AtomicBoolean();
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int t = 0; t < 22; t++) {
        fs.add(c.lane.submit(() -> {
          while (!stop.get()) {
            Thread.sleep(1); // the workload: "sleeping 3 s"
          }
          return null;
        }));
      }
      awaitThreadsIn(c.lane, 1, Thread.State.TIMED_WAITING);
      c.checkForAWhile();
      c.assertNeverDeadlocked();
      stop.set(true);
      fs.forEach(CompletableFuture::join);
      c.lane.close();
    });
  }

  @Test
  void noAlarmWhenTasksWaitOnASlowLane() {
    repeat(i -> {
      try (Lane slow = Lane.blocking("slow-b", 1).build()) {
        Clocked c = new Clocked(Lane.blocking("waits-on-b", 2));
        CountDownLatch bBusy = Work.occupy(slow);
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          fs.add(c.lane.submit(() -> slow.submit(() -> "b").get()));
        }
        awaitThreadsIn(c.lane, 2, Thread.State.WAITING);
        c.checkForAWhile();
        c.assertNeverDeadlocked();
        bBusy.countDown();
        fs.forEach(CompletableFuture::join);
        c.lane.close();
      }
    });
  }

  @Test
  void noAlarmForTheReadmesPartnerApiCallingSlowHttpSynchronously() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    URI uri = URI.create("http://127.0.0.1:" + partner.getAddress().getPort() + "/slow");
    repeat(i -> {
      partnerAnswers = new CountDownLatch(1);
      Clocked c = new Clocked(Lane.virtual("partner-api", 2));
      List<CompletableFuture<?>> fs = new ArrayList<>();
      for (int t = 0; t < 5; t++) {
        fs.add(c.lane.submit(() -> client.send(HttpRequest.newBuilder(uri).build(),
            HttpResponse.BodyHandlers.ofString()).body()));
      }
      Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS))
          .until(() -> c.lane.stats().running() == 2);
      c.checkForAWhile();
      c.assertNeverDeadlocked();
      partnerAnswers.countDown();
      fs.forEach(f -> assertThat(f.join()).isEqualTo("ok"));
      c.lane.close();
    });
    client.close();
  }

  // ------------------------------------------------------------------ real cycles, every time

  @Test
  void failHandlesASecondCycleTooWhenTheParentRetries() throws Exception {
    try (Lane lane = Lane.blocking("retry", 1)
        .failOnDeadlock().build()) {
      CompletableFuture<String> parent = lane.submit(() -> {
        try {
          return lane.submit(() -> "child").get();
        } catch (ExecutionException first) {
          return lane.submit(() -> "child again").get(); // the same cycle, formed again
        }
      });
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasRootCauseInstanceOf(LaneRejectedException.class);
      assertThat(lane.stats().failed()).isEqualTo(1); // the parent
      assertThat(lane.stats().count(TaskOutcome.DEADLOCK)).isEqualTo(2); // the two children
    }
  }

  @Test
  void compensateHandlesSequentialNestedWaits() throws Exception {
    try (Lane lane = Lane.blocking("seq", 1)
        .compensateOnDeadlock(64).build()) {
      CompletableFuture<String> parent = lane.submit(() -> {
        String a = lane.submit(() -> "a").get();
        String b = lane.submit(() -> "b").get();
        return a + b;
      });
      assertThat(parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("ab");
    }
  }

  @ParameterizedTest
  @EnumSource(value = Work.OnDeadlock.class)
  void aCycleAcrossTwoLanesIsReportedOnBothAndHandled(Work.OnDeadlock policy) throws Exception {
    for (int i = 0; i < Math.max(1, REPEATS / 5); i++) { // every time it forms
      twoLaneCycle(policy);
    }
  }

  private static void twoLaneCycle(Work.OnDeadlock policy) throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    Lane a = policy.apply(Lane.blocking("cycle-a", 1)).deadlockDetection(Duration.ofMillis(20))
        .build();
    Lane b = policy.apply(Lane.blocking("cycle-b", 1)).deadlockDetection(Duration.ofMillis(20))
        .build();
    a.onHealth(events::add);
    b.onHealth(events::add);
    CountDownLatch bothRunning = new CountDownLatch(2);
    List<CompletableFuture<String>> children = new CopyOnWriteArrayList<>();
    long start = System.nanoTime();
    CompletableFuture<String> pa = a.submit(() -> {
      bothRunning.countDown();
      Work.block(bothRunning);
      CompletableFuture<String> child = b.submit(() -> "from b");
      children.add(child);
      return child.get();
    });
    CompletableFuture<String> pb = b.submit(() -> {
      bothRunning.countDown();
      Work.block(bothRunning);
      CompletableFuture<String> child = CompletableFuture.supplyAsync(() -> "from a", a);
      children.add(child);
      return child.join();
    });
    Awaitility.await().atMost(Duration.ofSeconds(Work.PATIENCE_SECONDS)).until(() ->
        events.stream().filter(e -> e.to() == LaneHealth.DEADLOCKED).map(HealthEvent::lane)
            .distinct().count() == 2);
    long detectMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("two-lane cycle (%s) detected on both lanes after %d ms%n", policy, detectMs);
    for (HealthEvent e : events) {
      if (e.to() == LaneHealth.DEADLOCKED) {
        assertThat(e.diagnostic()).contains("across lanes", "\"cycle-a\"", "\"cycle-b\"");
      }
    }
    switch (policy) {
      case REPORT -> {
        assertThat(pa).isNotDone();
        assertThat(pb).isNotDone();
        children.forEach(ch -> ch.cancel(false));
      }
      case FAIL -> {
        assertThatThrownBy(pa::get).hasRootCauseInstanceOf(LaneRejectedException.class);
        assertThatThrownBy(pb::get).hasRootCauseInstanceOf(LaneRejectedException.class);
      }
      case COMPENSATE -> {
        assertThat(pa.get()).isEqualTo("from b");
        assertThat(pb.get()).isEqualTo("from a");
      }
    }
    CompletableFuture.allOf(pa, pb).handle((v, e) -> null).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    a.close();
    b.close();
    Work.assertBooksBalance(a.stats());
    Work.assertBooksBalance(b.stats());
  }

  @Test
  void failFailsOnlyTheAwaitedTaskNotTheUnrelatedOnesQueuedBesideIt() throws Exception {
    try (Lane lane = Lane.blocking("only-awaited", 1)
        .failOnDeadlock().build()) {
      List<CompletableFuture<String>> unrelated = new CopyOnWriteArrayList<>();
      CompletableFuture<String> parent = lane.submit(() -> {
        unrelated.add(lane.submit(() -> "unrelated 1"));
        CompletableFuture<String> child = lane.submit(() -> "child");
        unrelated.add(lane.submit(() -> "unrelated 2"));
        return child.get();
      });
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(LaneRejectedException.class);
      assertThat(unrelated.get(0).get()).isEqualTo("unrelated 1");
      assertThat(unrelated.get(1).get()).isEqualTo("unrelated 2");
      assertThat(lane.stats().failed()).isEqualTo(1); // the parent
      assertThat(lane.stats().count(TaskOutcome.DEADLOCK)).isEqualTo(1); // the child
    }
  }

  @Test
  void compensateStaysWithinItsBoundOfExtraThreads() throws Exception {
    List<Integer> threadsSeen = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("bounded-comp", 3)
        .compensateOnDeadlock(1).build()) {
      CountDownLatch allParents = new CountDownLatch(3);
      List<CompletableFuture<String>> parents = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        parents.add(lane.submit(() -> {
          allParents.countDown();
          Work.block(allParents);
          return lane.submit(() -> {
            threadsSeen.add(lane.stats().workers());
            return "child";
          }).get();
        }));
      }
      for (CompletableFuture<String> p : parents) {
        assertThat(p.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("child");
      }
    }
    assertThat(threadsSeen).hasSize(3).allMatch(n -> n <= 3 + 1);
  }

  @Test
  void aCycleSeenOnlyThroughJdkFuturesIsReportedOnceItHeldForTheDetectionPeriod() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    LaneExecutor lane = (LaneExecutor) Lane.blocking("held", 1).ticker(now::get)
        .deadlockDetection(Duration.ofMillis(200)).build();
    CompletableFuture<CompletableFuture<String>> child = new CompletableFuture<>();
    CompletableFuture<String> parent = lane.submit(() -> {
      CompletableFuture<String> c = CompletableFuture.supplyAsync(() -> "child", lane);
      child.complete(c);
      return c.join();
    });
    child.get();
    awaitThreadsIn(lane, 1, Thread.State.WAITING);
    lane.checkHealth(); // proof first seen
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
    lane.checkHealth();
    assertThat(lane.health()).isNotEqualTo(LaneHealth.DEADLOCKED);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
    lane.checkHealth();
    assertThat(lane.health()).isEqualTo(LaneHealth.DEADLOCKED);
    child.get().cancel(false);
    parent.handle((v, e) -> null).get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS);
    lane.close();
  }

  @Test
  void aStageDependingOnAQueuedChildIsSeenToo() throws Exception {
    try (Lane lane = Lane.blocking("stage-wait", 1)
        .failOnDeadlock().build()) {
      CompletableFuture<Integer> parent =
          lane.submit(() -> lane.submit(() -> "child").thenApply(String::length).join());
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(LaneRejectedException.class);
    }
  }

  @Test
  void aWaitOnAFutureWithATimeoutIsNoDeadlock() throws Exception {
    List<HealthEvent> events = new CopyOnWriteArrayList<>();
    try (Lane lane = Lane.blocking("own-timeout-wait", 1).failOnDeadlock().build()) {
      lane.onHealth(events::add);
      CompletableFuture<String> parent = lane.submit(() -> {
        // the child is queued behind this task, but the wait ends by itself
        return lane.submit(() -> "child").orTimeout(300, TimeUnit.MILLISECONDS).join();
      });
      assertThatThrownBy(() -> parent.get(Work.PATIENCE_SECONDS, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(java.util.concurrent.TimeoutException.class);
      lane.close();
      assertThat(lane.stats().count(TaskOutcome.DEADLOCK)).isZero();
      assertThat(events).noneMatch(e -> e.to() == LaneHealth.DEADLOCKED);
    }
  }
}
