package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real SDK exporting to the real OpenTelemetry Collector, which passes the metrics on over
 * OTLP/HTTP to a receiver on loopback: what the collector passed on carries the convention's
 * names, units and attributes and the lane's own figures.
 */
class LanesTelemetryCollectorTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @Test
  @Timeout(180)
  void theCollectorPassesOnTheConventionalNamesWithTheLanesFigures(@TempDir Path dir) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (OtlpReceiver downstream = OtlpReceiver.start();
        OtelCollector collector = OtelCollector.start(dir, downstream.metricsEndpoint());
        OpenTelemetrySdk sdk = sdk(collector.metricsEndpoint());
        Lane lane = Lane.blocking("db", LanesTelemetryOtlpTest.CONCURRENCY)
            .queueCapacity(LanesTelemetryOtlpTest.CAPACITY).build();
        LanesTelemetry telemetry =
            LanesTelemetry.builder(sdk, lane).names(MetricNames.JVM_EXECUTOR).build()) {
      try {
        LanesTelemetryOtlpTest.knownWorkload(lane, release);

        CompletableResultCode result = sdk.getSdkMeterProvider().forceFlush();
        result.join(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(result.isSuccess()).as("the collector accepted the export; its log:%n%s", collector.log())
            .isTrue();
        // The collector's exporter sends from its own queue: wait for the batch to come through.
        try {
          await().atMost(PATIENCE).until(() -> !lanesBatches(downstream).isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException none) {
          throw new AssertionError("nothing passed on by the collector; its log:\n" + collector.log(), none);
        }
        Exported e = Exported.of(lanesBatches(downstream).getLast());
        LaneStats s = lane.stats();
        Map<String, String> db = Map.of("jvm.executor.name", "db",
            "jvm.executor.type", lane.getClass().getName());

        LanesTelemetryOtlpTest.CONVENTION_UNITS.forEach((name, unit) -> {
          assertThat(e.metric(name).getUnit()).as(name).isEqualTo(unit);
          assertThat(e.attributes(name)).as(name).allSatisfy(a -> assertThat(a).containsAllEntriesOf(db));
        });
        assertThat(e.names()).containsAll(LanesTelemetryOtlpTest.BESIDE_CONVENTION);
        assertThat(e.value("jvm.executor.task.completed", db)).isEqualTo(s.completed() + s.failed())
            .isEqualTo(LanesTelemetryOtlpTest.COMPLETING + LanesTelemetryOtlpTest.FAILING);
        assertThat(e.value("jvm.executor.task.rejected", db)).isEqualTo(s.rejected())
            .isEqualTo(LanesTelemetryOtlpTest.REFUSED);
        assertThat(e.value("jvm.executor.queue.size", db)).isEqualTo(s.queued())
            .isEqualTo(LanesTelemetryOtlpTest.CAPACITY);
        assertThat(e.value("jvm.executor.thread.max", db)).isEqualTo(s.concurrency());
      } finally {
        release.countDown(); // before the lane closes: close waits for the held tasks
      }
    }
  }

  /** The batches the collector passed on that hold lanes' instruments. */
  private static List<ExportMetricsServiceRequest> lanesBatches(OtlpReceiver downstream) {
    return downstream.requests().stream().filter(r -> !Exported.of(r).metrics().isEmpty()).toList();
  }

  private static OpenTelemetrySdk sdk(String endpoint) {
    OtlpHttpMetricExporter exporter = OtlpHttpMetricExporter.builder().setEndpoint(endpoint).build();
    SdkMeterProvider provider = SdkMeterProvider.builder()
        .registerMetricReader(PeriodicMetricReader.builder(exporter).setInterval(Duration.ofHours(1)).build())
        .build();
    return OpenTelemetrySdk.builder().setMeterProvider(provider).build();
  }
}
