package dev.lanes.advisor;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.Timings;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class SizingAdvisorTest {
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private static void sleepMillis(long ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void run(Lane lane, int n, String label, Runnable task) throws Exception {
    List<CompletableFuture<?>> fs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      fs.add(lane.submit(label, task));
    }
    CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get();
  }

  /**
   * Times the computing it wraps from inside the task, by wall clock and by the thread's CPU
   * clock. On a busy machine computing also waits, for a core and for the JVM's pauses, by as
   * much as the load makes it (W/C 3 to 12 with 8 busy loops on 2 cores); what these figures saw
   * is the run's own measure of that, to take out of or to scale a bound by.
   */
  private static final class Computing {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    final LongAdder wallNanos = new LongAdder();
    final LongAdder cpuNanos = new LongAdder();

    void spinCpuMillis(long millis) {
      long wall = System.nanoTime();
      long cpu = MX.getCurrentThreadCpuTime();
      Work.spinCpuMillis(millis);
      cpuNanos.add(MX.getCurrentThreadCpuTime() - cpu);
      wallNanos.add(System.nanoTime() - wall);
    }

    /** How long the computing waited, in nanoseconds. */
    long waitingNanos() {
      return Math.max(0, wallNanos.sum() - cpuNanos.sum());
    }

    /** Its W/C: 0 on an idle machine, more the busier the machine was. */
    double blockingRatio() {
      return waitingNanos() / (double) cpuNanos.sum();
    }

    /** What the lane measured as waiting (run − CPU), in nanoseconds. */
    static long waiting(Timings t) {
      return t.cpuSampledRunNanos() - t.cpuNanos();
    }

    /**
     * {@code s} as it would read on an idle machine: without the wait its tasks' computing saw,
     * and with the lane's own waiting beyond that shrunk by the same factor (its own code was
     * slowed as much as the tasks' computing).
     */
    LaneStats withoutTheWait(LaneStats s) {
      Timings t = s.sinceStart();
      long beyond = Math.max(0, waiting(t) - waitingNanos());
      long wait = waiting(t) - (long) (beyond / (1 + blockingRatio()));
      Timings less = new Timings(t.queueWait(), t.runTime(), t.cpuTime(), t.windowNanos(),
          t.busyNanos() - wait, t.cpuSampledRunNanos() - wait, t.cpuNanos());
      return new LaneStats(s.lane(), s.kind(), s.shutdown(), s.terminated(), s.health(),
          s.uptimeNanos(), s.submitted(), s.started(), s.ended(), s.queued(),
          s.oldestQueuedNanos(), s.running(), s.workers(), s.concurrency(), s.queueCapacity(), less,
          s.recent(), s.saturatedNanos(), s.cpuBoundSamples(), s.blockingSamples(),
          s.betweenTasksNanos(), s.pinning());
    }
  }

  /**
   * A virtual lane that reports pinning and pinned: the advice says how often, how long, where
   * and under which label; one that did not pin says nothing of it.
   */
  @Test
  void aLaneThatPinnedItsCarrierIsToldWhereAndUnderWhichLabel() throws Exception {
    try (Lane lane = Lane.virtual("pin-advice", 2).reportPinning().build()) {
      assertThat(SizingAdvisor.defaults().advise(lane.stats(), 2).warnings())
          .noneMatch(w -> w.contains("pinned"));
      lane.submit("load-rates", () -> dev.lanes.testkit.Pins.sleepInClassInitializer(Duration.ofMillis(60))).get();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
          .until(() -> lane.stats().pinning().count() == 1);
      assertThat(SizingAdvisor.defaults().advise(lane.stats(), 2).warnings())
          .singleElement().asString()
          .startsWith("pinned its carrier 1 time for ")
          .contains("most in dev.lanes.testkit.PinSleeper.<clinit>",
              "label \"load-rates\"", "run that work on a platform lane");
    }
  }

  @Test
  void aBlockingLaneIsSizedByTheMeasuredBlockingRatio() throws Exception {
    Computing computing = new Computing();
    try (Lane lane = Lane.blocking("db", 4).cpuTimeEveryTask().build()) {
      // About 90 % waiting: 1 ms of CPU, 9 ms asleep (W/C 9). On a busy machine the computing
      // waits too, and the wake-up after the sleep as long: the upper bound grows with what the
      // computing waited in this run.
      run(lane, 80, "query", () -> {
        computing.spinCpuMillis(1);
        sleepMillis(9);
      });
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES);
      assertThat(a.enoughData()).isTrue();
      assertThat(a.blockingRatio()).isBetween(2.0, 40.0 * (1 + computing.blockingRatio()));
      int expected = (int) Math.ceil(CORES * 0.8 * (1 + a.blockingRatio()));
      assertThat(a.recommendedConcurrency()).isEqualTo(Math.min(1000, expected));
      assertThat(a.reasoning()).contains("cores " + CORES, "target utilisation 0.80", "W/C");
      assertThat(a.toText()).startsWith("lane \"db\" (blocking): concurrency 4 → " + a.recommendedConcurrency());
      assertThat(a.recommendedQueueCapacity()).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void aLaneThatMostlySleepsGetsTheFormulaWithACautionAndWhatTheLoadNeeds() throws Exception {
    try (Lane lane = Lane.blocking("sleepy", 4).cpuTimeEveryTask().build()) {
      run(lane, 60, "call", () -> sleepMillis(20));
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES);
      assertThat(a.enoughData()).isTrue();
      assertThat(a.blockingRatio()).isGreaterThan(LaneStats.BLOCKING_WC);
      assertThat(a.recommendedConcurrency()).isGreaterThan(8);
      assertThat(a.warnings()).singleElement().asString()
          .startsWith("caution: W/C ")
          .contains("ask for " + a.recommendedConcurrency() + ",")
          .contains("Little's law");
      assertThat(a.toText()).contains("\n  warning: caution: W/C");
    }
  }

  /**
   * A computing lane's W/C counts the time its tasks waited for a core as waiting, so on a machine
   * busy with other work it rises past {@link LaneStats#BLOCKING_WC} and brings the caution (seen
   * at a load average of 13 on 2 cores: W/C 6.8). The lane adds next to no waiting of its own to
   * what the tasks' computing saw, and without that wait (as on an idle machine) it gets no
   * caution.
   */
  @Test
  void aComputingLaneGetsNoCautionForTheWaitOfABusyMachine() throws Exception {
    Computing computing = new Computing();
    try (Lane lane = Lane.blocking("cpu-ish", 4).cpuTimeEveryTask().build()) {
      run(lane, 60, "hash", () -> computing.spinCpuMillis(2));
      LaneStats s = lane.stats();
      // The lane's own code (timing, hand-over) is slowed by the load as much as the tasks are.
      assertThat(Computing.waiting(s.sinceStart()) - computing.waitingNanos())
          .as("waiting the lane measured beyond what its tasks' computing saw, in ns (the"
              + " computing's W/C was %.2f)", computing.blockingRatio())
          .isLessThan((long) (LaneStats.CPU_BOUND_WC * s.sinceStart().cpuNanos()
              * (1 + computing.blockingRatio())));
      LaneStats idle = computing.withoutTheWait(s);
      assertThat(idle.sinceStart().blockingRatio()).isLessThan(LaneStats.CPU_BOUND_WC);
      assertThat(SizingAdvisor.defaults().advise(idle, CORES).warnings())
          .noneMatch(w -> w.startsWith("caution"));
    }
  }

  @Test
  void aCpuLaneIsSizedToTheCoresAndOversizingIsFlagged() throws Exception {
    try (Lane lane = Lane.cpu("compute").concurrency(CORES * 4).cpuTimeEveryTask().build()) {
      run(lane, 60, "hash", () -> Work.spinMillis(2));
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES);
      assertThat(a.enoughData()).isTrue();
      assertThat(a.recommendedConcurrency()).isEqualTo(CORES);
      assertThat(a.warnings()).anySatisfy(w -> assertThat(w).contains("concurrency " + CORES * 4 + " on " + CORES + " cores"));
    }
  }

  @Test
  void refusesToAdviseOnTooFewSamples() throws Exception {
    try (Lane lane = Lane.blocking("young", 2).cpuTimeEveryTask().build()) {
      run(lane, 10, "", () -> {});
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES);
      assertThat(a.enoughData()).isFalse();
      assertThat(a.samples()).isEqualTo(10);
      assertThat(a.recommendedConcurrency()).isEqualTo(2);
      assertThat(a.toText()).contains("no recommendation yet", "has 10 tasks with a CPU reading and needs at least 50");
    }
  }

  @Test
  void aMixedLaneIsFlaggedForSplittingByLabel() throws Exception {
    try (Lane lane = Lane.blocking("mixed", 2).cpuTimeEveryTask().build();
        LabelWatch labels = LabelWatch.on(lane)) {
      run(lane, 30, "cpu", () -> Work.spinCpuMillis(2));
      run(lane, 30, "io", () -> sleepMillis(20));
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES, labels);
      // The waiting tasks wait long (W/C in the hundreds) so that even on a machine loaded enough
      // to stretch a 2 ms spin to 20 ms (W/C 9) the labels stay tenfold apart (seen failing with
      // 4 ms sleeps at a load average of 7 on 2 cores).
      assertThat(a.warnings()).anySatisfy(w -> assertThat(w)
          .contains("mixed lane", "label \"cpu\" computes", "\"io\" mostly waits", "split"));
      assertThat(labels.figures()).containsKeys("cpu", "io");
      assertThat(labels.figures().get("io").tasks()).isEqualTo(30);
      assertThat(labels.figures().get("io").cpuSamples()).isEqualTo(30);
    }
  }

  @Test
  void aVirtualLaneWithoutCpuFiguresIsSizedByLittlesLaw() throws Exception {
    try (Lane lane = Lane.virtual("api", 4).build()) {
      run(lane, 60, "call", () -> sleepMillis(5));
      SizingAdvice a = SizingAdvisor.defaults().advise(lane.stats(), CORES);
      assertThat(a.enoughData()).isTrue();
      assertThat(a.reasoning()).contains("virtual threads have none", "Little's law");
      assertThat(Double.isNaN(a.blockingRatio())).isTrue();
      assertThat(a.recommendedConcurrency()).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void badSettingsAreRefusedWithTheirNameAndValue() {
    assertThatThrownBy(() -> new SizingAdvisor(0, Duration.ofMillis(1), 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("targetUtilisation", "was 0.0");
    assertThatThrownBy(() -> new SizingAdvisor(0.5, Duration.ofMillis(1), 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConcurrency", "was 0");
    try (Lane lane = Lane.blocking("b", 1).build()) {
      LaneStats s = lane.stats();
      assertThatThrownBy(() -> SizingAdvisor.defaults().advise(s, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cores", "was 0");
    }
  }
}
