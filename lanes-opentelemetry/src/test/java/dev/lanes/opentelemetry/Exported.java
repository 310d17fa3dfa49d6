package dev.lanes.opentelemetry;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The lanes metrics of one OTLP export, as the receiver decoded them. */
record Exported(Map<String, Metric> metrics) {

  static Exported of(ExportMetricsServiceRequest request) {
    Map<String, Metric> metrics = new LinkedHashMap<>();
    for (ResourceMetrics rm : request.getResourceMetricsList()) {
      for (ScopeMetrics sm : rm.getScopeMetricsList()) {
        if (sm.getScope().getName().equals(LanesTelemetry.SCOPE)) {
          for (Metric m : sm.getMetricsList()) {
            metrics.put(m.getName(), m);
          }
        }
      }
    }
    return new Exported(metrics);
  }

  Set<String> names() {
    return new TreeSet<>(metrics.keySet());
  }

  Metric metric(String name) {
    Metric m = metrics.get(name);
    if (m == null) {
      throw new AssertionError("no metric " + name + " in the export; got " + names());
    }
    return m;
  }

  /** The number points of {@code name} (a sum or a gauge) whose attributes include {@code attrs}. */
  List<NumberDataPoint> points(String name, Map<String, String> attrs) {
    Metric m = metric(name);
    List<NumberDataPoint> all = switch (m.getDataCase()) {
      case SUM -> m.getSum().getDataPointsList();
      case GAUGE -> m.getGauge().getDataPointsList();
      default -> throw new AssertionError(name + " is a " + m.getDataCase());
    };
    List<NumberDataPoint> matching = new ArrayList<>();
    for (NumberDataPoint p : all) {
      if (matches(p.getAttributesList(), attrs)) {
        matching.add(p);
      }
    }
    return matching;
  }

  /** The one point of {@code name} with {@code attrs}, as a number. */
  double value(String name, Map<String, String> attrs) {
    List<NumberDataPoint> p = points(name, attrs);
    if (p.size() != 1) {
      throw new AssertionError(p.size() + " points of " + name + " with " + attrs);
    }
    NumberDataPoint point = p.get(0);
    return point.getValueCase() == NumberDataPoint.ValueCase.AS_INT
        ? point.getAsInt()
        : point.getAsDouble();
  }

  Optional<HistogramDataPoint> histogram(String name, Map<String, String> attrs) {
    Metric m = metric(name);
    if (m.getDataCase() != Metric.DataCase.HISTOGRAM) {
      throw new AssertionError(name + " is a " + m.getDataCase());
    }
    return m.getHistogram().getDataPointsList().stream()
        .filter(p -> matches(p.getAttributesList(), attrs))
        .findFirst();
  }

  /** Every attribute map of every point of {@code name}. */
  List<Map<String, String>> attributes(String name) {
    Metric m = metric(name);
    List<List<KeyValue>> lists = switch (m.getDataCase()) {
      case SUM -> m.getSum().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
      case GAUGE -> m.getGauge().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
      case HISTOGRAM -> m.getHistogram().getDataPointsList().stream().map(HistogramDataPoint::getAttributesList).toList();
      default -> throw new AssertionError(name + " is a " + m.getDataCase());
    };
    return lists.stream().map(Exported::toMap).toList();
  }

  private static boolean matches(List<KeyValue> attributes, Map<String, String> wanted) {
    return toMap(attributes).entrySet().containsAll(wanted.entrySet());
  }

  private static Map<String, String> toMap(List<KeyValue> attributes) {
    Map<String, String> map = new LinkedHashMap<>();
    for (KeyValue kv : attributes) {
      map.put(kv.getKey(), kv.getValue().getStringValue());
    }
    return map;
  }
}
