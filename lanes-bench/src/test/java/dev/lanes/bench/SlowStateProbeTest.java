package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The slow-state probe runs what it says and counts what it prints (no figure is judged here). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowStateProbeTest {

  @Test
  void printsEverySecondAndCountsTheSlowOnes() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<SlowStateProbe.Second> run;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      run = SlowStateProbe.run(ExecutorFactory.LANES, 2, 10, out);
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(run).hasSize(2).allSatisfy(s -> {
      assertThat(s.tasksPerSecond()).isPositive();
      assertThat(s.cpuNanosPerTask()).isPositive();
      // NaN when not one chunk of trips completed in its 200 ms (both threads kept from a core)
      assertThat(s.roundTripNanos()).satisfiesAnyOf(
          v -> assertThat(v).isPositive(), v -> assertThat(v).isNaN());
    });
    assertThat(text).contains("second  1:", "second  2:", "line round trip");
    long slow = run.stream().filter(SlowStateProbe.Second::slow).count();
    assertThat(text).contains("slow seconds (CPU above 300 ns a task): " + slow + " of 2");
    long far = run.stream().filter(SlowStateProbe.Second::far).count();
    assertThat(text).contains("seconds after a far round trip (300 ns or more): " + far + ",");
  }

  @Test
  void aSecondIsSlowAboveThreeHundredNanosecondsOfCpuATask() {
    assertThat(new SlowStateProbe.Second(1e6, 301, 100).slow()).isTrue();
    assertThat(new SlowStateProbe.Second(1e6, 300, 100).slow()).isFalse();
  }

  @Test
  void aRoundTripIsFarFromThreeHundredNanoseconds() {
    assertThat(new SlowStateProbe.Second(1e6, 200, 300).far()).isTrue();
    assertThat(new SlowStateProbe.Second(1e6, 200, 299).far()).isFalse();
  }

  @Test
  void theLineRoundTripEndsInItsTimeAndLeavesNoThreadBehind() throws Exception {
    long start = System.nanoTime();
    double nanos = SlowStateProbe.lineRoundTrip(5_000_000_000L); // ends sooner: chunks run out
    assertThat(System.nanoTime() - start).isLessThan(java.util.concurrent.TimeUnit.SECONDS.toNanos(30));
    assertThat(nanos).isPositive().isLessThan(5_000_000_000.0 / SlowStateProbe.TRIPS_PER_CHUNK);
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("line-round-trip"));
    assertThatThrownBy(() -> SlowStateProbe.lineRoundTrip(0))
        .hasMessage("nanos must be > 0, was 0");
  }

  /**
   * Windows so short that the measuring mostly ends in the middle of a trip: the answering thread
   * must still see the stop and end (an answer written over the stop once left it spinning and
   * the join waiting for ever).
   */
  @Test
  void aRoundTripEndedMidTripStillEndsItsAnsweringThread() throws Exception {
    // Two spinning threads take the cores from the answering one now and then, mid-trip.
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    List<Thread> busy = new java.util.ArrayList<>();
    for (int i = 0; i < 2; i++) {
      busy.add(Thread.ofPlatform().start(() -> {
        while (!stop.get()) {
          Thread.onSpinWait();
        }
      }));
    }
    try {
      for (int i = 0; i < 3_000; i++) {
        SlowStateProbe.lineRoundTrip(50_000L);
      }
    } finally {
      stop.set(true);
      for (Thread t : busy) {
        t.join();
      }
    }
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("line-round-trip"));
  }

  @Test
  void refusesNonsense() {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> SlowStateProbe.run(ExecutorFactory.LANES, 0, 0, out))
        .hasMessage("seconds must be ≥ 1, was 0");
    assertThatThrownBy(() -> SlowStateProbe.run(ExecutorFactory.LANES, 1, -1, out))
        .hasMessage("tokens must be ≥ 0, was -1");
  }
}
