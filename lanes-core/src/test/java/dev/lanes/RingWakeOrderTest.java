package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which idle worker a producer wakes ({@link TaskRing}, "Which idle worker"): the latest, but on a
 * platform lane's ring the one idle longest while the ring holds at most one entry; a worker whose
 * wait timed out leaves the list from wherever it is, and the others keep their order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingWakeOrderTest {

  private final List<Thread> threads = new ArrayList<>();
  private final List<TaskRing> rings = new ArrayList<>();

  @AfterEach
  void joinEveryThread() throws InterruptedException {
    for (TaskRing ring : rings) {
      ring.wakeAll(); // a failed test leaves workers waiting: let them out
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(t.isAlive()).as(t.getName() + " still waiting").isFalse();
    }
  }

  @Test
  void aPlatformLanesRingWakesTheWorkerIdleLongestForALoneEntry() throws Exception {
    TaskRing ring = new TaskRing(8, 8, true);
    Worker[] idle = idleWorkers(ring, "first", "second", "third");

    assertThat(wakeInTurn(ring, idle)).containsExactly(idle[0], idle[1], idle[2]);
    assertThat(ring.idleWorkers()).isZero();
  }

  @Test
  void aPlatformLanesRingWakesTheLatestWhileEntriesWait() throws Exception {
    TaskRing ring = new TaskRing(8, 8, true);
    Worker[] idle = idleWorkers(ring, "first", "second", "third");
    ring.claimForTest(); // two entries on their way (claimed, not published: the parked
    ring.claimForTest(); // workers are not told, so nobody leaves the list meanwhile)
    assertThat(ring.holdsOneAtMost()).isFalse();

    assertThat(wakeInTurn(ring, idle)).containsExactly(idle[2], idle[1], idle[0]);
  }

  @Test
  void holdsOneAtMostCountsWhatIsClaimedAndNotTaken() {
    TaskRing ring = new TaskRing(8, 8, true);
    assertThat(ring.holdsOneAtMost()).isTrue();
    ring.append("a", 1);
    assertThat(ring.holdsOneAtMost()).isTrue();
    long claimed = ring.claimForTest();
    assertThat(ring.holdsOneAtMost()).isFalse();
    ring.publishForTest(claimed, "b", 2);
    assertThat(ring.poll(new Taken())).isEqualTo("a");
    assertThat(ring.holdsOneAtMost()).isTrue();
  }

  @Test
  void aVirtualLanesRingWakesTheLatestIdleWorkerFirst() throws Exception {
    TaskRing ring = new TaskRing(8, 8, false);
    Worker[] idle = idleWorkers(ring, "first", "second", "third");

    assertThat(wakeInTurn(ring, idle)).containsExactly(idle[2], idle[1], idle[0]);
  }

  @Test
  void aWorkerWhoseWaitTimedOutLeavesTheListAndTheOthersKeepTheirOrder() throws Exception {
    TaskRing ring = new TaskRing(8, 8, true);
    Worker first = idleWorker(ring, "first", -1);
    Worker timed = idleWorker(ring, "timed", TimeUnit.SECONDS.toNanos(2));
    Worker third = idleWorker(ring, "third", -1);
    Thread timedThread = timed.thread;

    timedThread.join(TimeUnit.SECONDS.toMillis(30)); // its wait times out; nobody woke it
    assertThat(timedThread.isAlive()).isFalse();
    assertThat(timed.idler.idle()).isFalse();
    assertThat(ring.idleWorkers()).isEqualTo(2);

    assertThat(wakeInTurn(ring, first, third)).containsExactly(first, third);
    assertThat(ring.idleWorkers()).isZero();
  }

  @Test
  void platformLanesWakeTheOldestAndVirtualLanesTheLatest() {
    try (Lane blocking = Lane.blocking("wake-order-blocking", 2).build();
        Lane cpu = Lane.cpu("wake-order-cpu").build();
        Lane virtual = Lane.virtual("wake-order-virtual", 2).build()) {
      assertThat(((LaneExecutor) blocking).ring.wakesOldestFirst()).isTrue();
      assertThat(((LaneExecutor) cpu).ring.wakesOldestFirst()).isTrue();
      assertThat(((LaneExecutor) virtual).ring.wakesOldestFirst()).isFalse();
    }
  }

  /**
   * Starts a thread that waits in {@code ring} as a worker, and returns once it is on the idle
   * list (so workers started one after another announce themselves in that order).
   */
  private Worker idleWorker(TaskRing ring, String name, long timeoutNanos) {
    if (!rings.contains(ring)) {
      rings.add(ring);
    }
    Worker w = new Worker(null, null, null, null, PoolWorker.Kind.CORE);
    Thread t = Thread.ofPlatform().name("wake-order-" + name).unstarted(() -> {
      w.thread = Thread.currentThread();
      ring.await(w.idler, timeoutNanos, ring.epoch());
    });
    w.thread = t;
    threads.add(t);
    t.start();
    // w.idle is set under the idle lock as the worker joins the list; a timed wait may also have
    // ended already (then it left the list again), which the timed test checks by itself.
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> w.idler.idle() || !t.isAlive());
    return w;
  }

  /** Starts one idle worker per name, in that order (see {@link #idleWorker}). */
  private Worker[] idleWorkers(TaskRing ring, String... names) {
    Worker[] idle = new Worker[names.length];
    for (int i = 0; i < names.length; i++) {
      idle[i] = idleWorker(ring, names[i], -1);
    }
    return idle;
  }

  /**
   * Wakes {@code idle} (every worker waiting in {@code ring}) one at a time and returns them in
   * the order they were woken; checks that nobody is left to wake.
   */
  private static List<Worker> wakeInTurn(TaskRing ring, Worker... idle)
      throws InterruptedException {
    List<Worker> waiting = new ArrayList<>(List.of(idle));
    List<Worker> woken = new ArrayList<>();
    while (!waiting.isEmpty()) {
      Worker w = wakeOne(ring, waiting.toArray(Worker[]::new));
      waiting.remove(w);
      woken.add(w);
    }
    assertThat(ring.wakeIdle()).as("a worker left to wake").isFalse();
    return woken;
  }

  /** Wakes one idle worker and returns which of {@code candidates} it was (exactly one). */
  private static Worker wakeOne(TaskRing ring, Worker... candidates) throws InterruptedException {
    assertThat(ring.wakeIdle()).isTrue();
    Worker woken = null;
    for (Worker w : candidates) {
      if (!w.idler.idle()) {
        assertThat(woken).as("more than one worker woken").isNull();
        woken = w;
      }
    }
    assertThat(woken).as("no worker woken").isNotNull();
    woken.thread.join(TimeUnit.SECONDS.toMillis(30)); // it leaves its wait
    assertThat(woken.thread.isAlive()).isFalse();
    return woken;
  }
}
