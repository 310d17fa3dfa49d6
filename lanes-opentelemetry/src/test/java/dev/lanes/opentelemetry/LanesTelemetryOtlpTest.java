package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.Lanes;
import dev.lanes.TaskOutcome;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The real OpenTelemetry SDK (SdkMeterProvider, PeriodicMetricReader, the OTLP/HTTP exporter on
 * the JDK's HTTP client) exports to a real OTLP receiver on loopback, which decodes the requests
 * with the official protobuf classes. Exports are triggered with {@code forceFlush} (the reader's
 * own interval is an hour), so each one reads the lanes at a known moment.
 */
class LanesTelemetryOtlpTest {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final long EXPORT_SECONDS = 30;
  static final int CONCURRENCY = 2;
  static final int CAPACITY = 3;
  static final int COMPLETING = 10;
  static final int FAILING = 3;
  static final int REFUSED = 2;

  /** The convention's names, units and instrument kinds, from semantic-conventions#3970. */
  static final Map<String, String> CONVENTION_UNITS = Map.of(
      "jvm.executor.thread.count", "{thread}",
      "jvm.executor.thread.max", "{thread}",
      "jvm.executor.queue.size", "{task}",
      "jvm.executor.queue.capacity", "{task}",
      "jvm.executor.task.completed", "{task}",
      "jvm.executor.task.rejected", "{task}");

  /** What lanes publishes beside the convention: what the convention lacks. */
  static final Set<String> BESIDE_CONVENTION = Set.of(
      "lanes.task.wait", "lanes.task.run", "lanes.tasks", "lanes.queue.oldest",
      "lanes.saturated", "lanes.health", "lanes.saturated.time", "lanes.between.tasks.time");

  /** lanes' own names and their units (the README's tables). */
  private static final Map<String, String> OWN_UNITS = Map.ofEntries(
      Map.entry("lanes.task.wait", "s"), Map.entry("lanes.task.run", "s"),
      Map.entry("lanes.tasks", "{task}"), Map.entry("lanes.queue.oldest", "s"),
      Map.entry("lanes.saturated", "{lane}"), Map.entry("lanes.health", "{lane}"),
      Map.entry("lanes.saturated.time", "s"), Map.entry("lanes.between.tasks.time", "s"),
      Map.entry("lanes.queue.size", "{task}"), Map.entry("lanes.running", "{task}"),
      Map.entry("lanes.workers", "{thread}"), Map.entry("lanes.concurrency", "{task}"),
      Map.entry("lanes.capacity.remaining", "{task}"));

  /** Under lanes' own names only, the figures the convention also has. */
  private static final Set<String> OWN_FOR_CONVENTION = Set.of(
      "lanes.queue.size", "lanes.running", "lanes.workers", "lanes.concurrency",
      "lanes.capacity.remaining");

  @Test
  void conventionalNamesReachTheReceiverWithTheLanesOwnFigures() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (OtlpReceiver receiver = OtlpReceiver.start();
        OpenTelemetrySdk sdk = sdk(receiver);
        Lane lane = Lane.blocking("db", CONCURRENCY).queueCapacity(CAPACITY).build();
        LanesTelemetry telemetry =
            LanesTelemetry.builder(sdk, lane).names(MetricNames.JVM_EXECUTOR).build()) {
      knownWorkload(lane, release);

      Exported e = export(sdk, receiver);
      LaneStats s = lane.stats();
      Map<String, String> db = Map.of("jvm.executor.name", "db",
          "jvm.executor.type", lane.getClass().getName());

      // The convention's names with its units, and lanes' own for what it lacks; nothing twice.
      assertThat(e.names()).containsAll(CONVENTION_UNITS.keySet()).containsAll(BESIDE_CONVENTION)
          .doesNotContainAnyElementsOf(OWN_FOR_CONVENTION)
          .doesNotContain("jvm.executor.thread.core");
      CONVENTION_UNITS.forEach((name, unit) -> {
        assertThat(e.metric(name).getUnit()).as(name).isEqualTo(unit);
        assertThat(e.metric(name).getDescription()).as(name).isNotBlank();
        assertThat(e.attributes(name)).as(name).allSatisfy(a -> assertThat(a).containsAllEntriesOf(db));
      });
      // Counters are monotonic sums, the others up-down (non-monotonic) sums, as proposed.
      for (String name : CONVENTION_UNITS.keySet()) {
        Metric m = e.metric(name);
        assertThat(m.getDataCase()).as(name).isEqualTo(Metric.DataCase.SUM);
        assertThat(m.getSum().getIsMonotonic()).as(name).isEqualTo(name.startsWith("jvm.executor.task."));
      }

      // The figures are the lane's own: the known workload, and its stats() at the same moment.
      assertThat(e.value("jvm.executor.task.completed", db))
          .isEqualTo(COMPLETING + FAILING).isEqualTo(s.completed() + s.failed());
      assertThat(e.value("jvm.executor.task.rejected", db)).isEqualTo(REFUSED).isEqualTo(s.rejected());
      assertThat(e.value("jvm.executor.queue.size", db)).isEqualTo(CAPACITY).isEqualTo(s.queued());
      assertThat(e.value("jvm.executor.queue.capacity", db)).isEqualTo(CAPACITY);
      assertThat(e.value("jvm.executor.thread.max", db)).isEqualTo(CONCURRENCY).isEqualTo(s.concurrency());
      assertThat(e.value("jvm.executor.thread.count", Map.of("jvm.executor.name", "db",
          "jvm.executor.thread.state", "active"))).isEqualTo(CONCURRENCY).isEqualTo(s.running());
      assertThat(e.value("jvm.executor.thread.count", Map.of("jvm.executor.name", "db",
          "jvm.executor.thread.state", "idle"))).isEqualTo(s.workers() - s.running()).isZero();

      // Beside them, what the convention lacks, under lanes' own names and attributes.
      Map<String, String> own = Map.of("lane", "db", "kind", "blocking");
      assertThat(e.value("lanes.tasks", Map.of("lane", "db", "outcome", "failed")))
          .isEqualTo(FAILING).isEqualTo(s.count(TaskOutcome.FAILED));
      assertThat(e.value("lanes.tasks", Map.of("lane", "db", "outcome", "queue_full", "rejected", "true")))
          .isEqualTo(REFUSED);
      assertThat(e.value("lanes.queue.oldest", own)).isPositive();
      assertThat(e.metric("lanes.queue.oldest").getUnit()).isEqualTo("s");
      HistogramDataPoint wait = e.histogram("lanes.task.wait", own).orElseThrow();
      assertThat(e.metric("lanes.task.wait").getUnit()).isEqualTo("s");
      assertThat(wait.getCount()).isEqualTo(COMPLETING + FAILING)
          .isEqualTo(s.sinceStart().queueWait().count());
      assertThat(wait.getExplicitBoundsList()).isEqualTo(Instruments.TIME_BUCKETS);
      assertThat(e.histogram("lanes.task.run", own).orElseThrow().getCount())
          .isEqualTo(s.sinceStart().runTime().count());

      release.countDown();
      awaitEnded(lane, COMPLETING + FAILING + REFUSED + CONCURRENCY + CAPACITY);
      Exported after = export(sdk, receiver);
      assertThat(after.value("jvm.executor.task.completed", db))
          .isEqualTo(COMPLETING + FAILING + CONCURRENCY + CAPACITY);
      assertThat(after.value("jvm.executor.queue.size", db)).isZero();
      assertThat(after.histogram("lanes.task.wait", own).orElseThrow().getCount())
          .isEqualTo(COMPLETING + FAILING + CONCURRENCY + CAPACITY);
    } finally {
      release.countDown();
    }
  }

  @Test
  void lanesOwnNamesByDefaultWithTheSameFigures() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (OtlpReceiver receiver = OtlpReceiver.start();
        OpenTelemetrySdk sdk = sdk(receiver);
        Lane lane = Lane.blocking("db", CONCURRENCY).queueCapacity(CAPACITY).build();
        LanesTelemetry telemetry = LanesTelemetry.create(sdk, lane)) {
      knownWorkload(lane, release);

      Exported e = export(sdk, receiver);
      LaneStats s = lane.stats();
      Map<String, String> own = Map.of("lane", "db", "kind", "blocking");
      assertThat(e.names()).containsAll(BESIDE_CONVENTION).containsAll(OWN_FOR_CONVENTION)
          .noneMatch(n -> n.startsWith("jvm.executor."));
      for (String name : e.names()) {
        assertThat(e.attributes(name)).as(name).allSatisfy(a -> assertThat(a).containsAllEntriesOf(own));
        assertThat(e.metric(name).getUnit()).as(name).isNotBlank();
        assertThat(e.metric(name).getDescription()).as(name).isNotBlank();
      }
      OWN_UNITS.forEach((name, unit) -> assertThat(e.metric(name).getUnit()).as(name).isEqualTo(unit));
      assertThat(e.value("lanes.queue.size", own)).isEqualTo(CAPACITY).isEqualTo(s.queued());
      assertThat(e.value("lanes.running", own)).isEqualTo(CONCURRENCY).isEqualTo(s.running());
      assertThat(e.value("lanes.workers", own)).isEqualTo(s.workers());
      assertThat(e.value("lanes.concurrency", own)).isEqualTo(CONCURRENCY);
      assertThat(e.value("lanes.capacity.remaining", own)).isZero();
      assertThat(e.value("lanes.tasks", Map.of("lane", "db", "outcome", "completed")))
          .isEqualTo(COMPLETING).isEqualTo(s.completed());
      assertThat(e.histogram("lanes.task.wait", own).orElseThrow().getCount())
          .isEqualTo(s.sinceStart().queueWait().count());
      release.countDown();
      awaitEnded(lane, COMPLETING + FAILING + REFUSED + CONCURRENCY + CAPACITY);
    } finally {
      release.countDown();
    }
  }

  @Test
  void aRemovedOrClosedLaneIsNoLongerReported() throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start();
        OpenTelemetrySdk sdk = sdk(receiver);
        Lanes lanes = Lanes.of(Lane.blocking("db", 1), Lane.cpu("compute").concurrency(1));
        Lane alone = Lane.blocking("alone", 1).build();
        LanesTelemetry telemetry =
            LanesTelemetry.builder(sdk, lanes).names(MetricNames.JVM_EXECUTOR).build();
        LanesTelemetry aloneTelemetry =
            LanesTelemetry.builder(sdk, alone).names(MetricNames.JVM_EXECUTOR).build()) {
      lanes.lane("db").submit(() -> {}).get(EXPORT_SECONDS, TimeUnit.SECONDS);
      assertThat(executorNames(export(sdk, receiver))).containsExactlyInAnyOrder("db", "compute", "alone");

      lanes.remove("db");
      alone.close();
      Exported e = export(sdk, receiver);
      assertThat(executorNames(e)).containsExactly("compute");
      assertThat(e.points("lanes.tasks", Map.of("lane", "db"))).isEmpty();
      // A histogram is a synchronous instrument: under the SDK's default (cumulative) temporality
      // its last point stays in the export, unchanged.
      assertThat(e.histogram("lanes.task.wait", Map.of("lane", "db")).orElseThrow().getCount())
          .isEqualTo(1);
      assertThat(telemetry.boundLanes()).containsExactly("compute");

      // A lane added later is reported from then on; one that takes a removed lane's name is
      // reported with its own figures, not the old lane's.
      lanes.add(Lane.virtual("api", 4));
      lanes.add(Lane.blocking("db", 1));
      Exported readded = export(sdk, receiver);
      assertThat(executorNames(readded)).containsExactlyInAnyOrder("compute", "api", "db");
      assertThat(readded.value("jvm.executor.task.completed", Map.of("jvm.executor.name", "db")))
          .isZero();
      assertThat(telemetry.boundLanes()).containsExactlyInAnyOrder("compute", "api", "db");

      telemetry.close();
      aloneTelemetry.close();
      assertThat(executorNames(export(sdk, receiver))).isEmpty();
    }
  }

  @Test
  void thePeriodicReaderExportsOnItsOwn() throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start();
        OpenTelemetrySdk sdk = sdk(receiver, Duration.ofMillis(100));
        Lane lane = Lane.cpu("compute").concurrency(1).build();
        LanesTelemetry telemetry =
            LanesTelemetry.builder(sdk, lane).names(MetricNames.JVM_EXECUTOR).build()) {
      lane.submit(() -> {}).get(EXPORT_SECONDS, TimeUnit.SECONDS);
      await().atMost(PATIENCE).untilAsserted(() ->
          assertThat(Exported.of(receiver.latest())
              .value("jvm.executor.task.completed", Map.of("jvm.executor.name", "compute")))
              .isEqualTo(1));
    }
  }

  @Test
  void nullInputIsRefusedNamingWhatWasExpected() {
    OpenTelemetry noop = OpenTelemetry.noop();
    assertThatThrownBy(() -> LanesTelemetry.builder(noop, (Lanes) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lanes is null").hasMessageContaining("dev.lanes.Lanes");
    assertThatThrownBy(() -> LanesTelemetry.create(noop, (Lane) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("lane is null").hasMessageContaining("dev.lanes.Lane");
    try (Lane lane = Lane.cpu("compute").concurrency(1).build()) {
      assertThatThrownBy(() -> LanesTelemetry.create(null, lane))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("openTelemetry is null");
      assertThatThrownBy(() -> LanesTelemetry.builder(noop, lane).names(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("names is null").hasMessageContaining("MetricNames.JVM_EXECUTOR");
    }
  }

  /**
   * Runs {@link #COMPLETING} tasks that return and {@link #FAILING} that throw to their end, then
   * fills the lane: {@link #CONCURRENCY} tasks hold its threads until {@code release}, {@link
   * #CAPACITY} wait in its queue, and {@link #REFUSED} more are refused.
   */
  static void knownWorkload(Lane lane, CountDownLatch release) throws Exception {
    // One at a time: the lane holds at most CONCURRENCY + CAPACITY unfinished tasks.
    for (int i = 0; i < COMPLETING; i++) {
      lane.submit(() -> {});
      awaitEnded(lane, i + 1);
    }
    for (int i = 0; i < FAILING; i++) {
      lane.submit(() -> {
        throw new IllegalStateException("failing on purpose");
      });
      awaitEnded(lane, COMPLETING + i + 1);
    }
    CountDownLatch started = new CountDownLatch(CONCURRENCY);
    for (int i = 0; i < CONCURRENCY; i++) {
      lane.submit(() -> {
        started.countDown();
        release.await();
        return null;
      });
    }
    assertThat(started.await(EXPORT_SECONDS, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < CAPACITY; i++) {
      lane.submit(() -> {});
    }
    for (int i = 0; i < REFUSED; i++) {
      assertThatThrownBy(() -> lane.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
    }
    // The queue's head has waited a measurable time before the export reads it.
    await().atMost(PATIENCE).until(() -> lane.stats().oldestQueuedNanos() > 0);
  }

  /**
   * Waits until the lane's books count {@code ended} tasks that ended: a task's future completes
   * just before the lane counts it as ended.
   */
  private static void awaitEnded(Lane lane, long ended) {
    await().atMost(PATIENCE).until(() -> lane.stats().endedTotal() == ended);
  }

  private static Set<String> executorNames(Exported e) {
    if (!e.names().contains("jvm.executor.queue.size")) {
      return Set.of();
    }
    Set<String> names = new java.util.TreeSet<>();
    for (Map<String, String> a : e.attributes("jvm.executor.queue.size")) {
      names.add(a.get("jvm.executor.name"));
    }
    return names;
  }

  private static OpenTelemetrySdk sdk(OtlpReceiver receiver) {
    return sdk(receiver, Duration.ofHours(1));
  }

  private static OpenTelemetrySdk sdk(OtlpReceiver receiver, Duration interval) {
    OtlpHttpMetricExporter exporter =
        OtlpHttpMetricExporter.builder().setEndpoint(receiver.metricsEndpoint()).build();
    SdkMeterProvider provider = SdkMeterProvider.builder()
        .registerMetricReader(PeriodicMetricReader.builder(exporter).setInterval(interval).build())
        .build();
    return OpenTelemetrySdk.builder().setMeterProvider(provider).build();
  }

  /** Collects and exports now, and returns what the receiver decoded. */
  private static Exported export(OpenTelemetrySdk sdk, OtlpReceiver receiver) {
    int before = receiver.requests().size();
    CompletableResultCode result = sdk.getSdkMeterProvider().forceFlush();
    result.join(EXPORT_SECONDS, TimeUnit.SECONDS);
    assertThat(result.isSuccess()).as("export to the OTLP receiver succeeded").isTrue();
    assertThat(receiver.requests()).hasSizeGreaterThan(before);
    return Exported.of(receiver.latest());
  }
}
