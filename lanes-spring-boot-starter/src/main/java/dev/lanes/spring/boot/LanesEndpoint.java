package dev.lanes.spring.boot;

import dev.lanes.Distribution;
import dev.lanes.LaneStats;
import dev.lanes.Lanes;
import dev.lanes.Timings;
import dev.lanes.advisor.SizingAdvice;
import dev.lanes.advisor.SizingAdvisor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/lanes}: every lane with its figures and sizing advice ({@link
 * SizingAdvisor#defaults()} on this machine's processors); {@code
 * /actuator/lanes/{name}} one lane. Times are in milliseconds.
 */
@Endpoint(id = "lanes")
public class LanesEndpoint {
  private final Lanes lanes;
  private final int cores = Runtime.getRuntime().availableProcessors();

  public LanesEndpoint(Lanes lanes) {
    this.lanes = lanes;
  }

  private LaneView view(LaneStats s) {
    return view(s, SizingAdvisor.defaults().advise(s, cores));
  }

  /** Every lane, in declaration order. */
  @ReadOperation
  public Map<String, LaneView> lanes() {
    Map<String, LaneView> out = new LinkedHashMap<>();
    lanes.all().forEach(l -> out.put(l.name(), view(l.stats())));
    return out;
  }

  /** One lane (404 when there is no such lane). */
  @ReadOperation
  public LaneView lane(@Selector String name) {
    if (!lanes.names().contains(name)) {
      return null;
    }
    var l = lanes.lane(name);
    return view(l.stats());
  }

  private static LaneView view(LaneStats s, SizingAdvice advice) {
    Timings t = s.sinceStart();
    return new LaneView(
        s.kind().tag(),
        s.shutdown(),
        s.terminated(),
        s.health().name(),
        s.concurrency(),
        s.queueCapacity(),
        s.queued(),
        s.running(),
        s.workers(),
        s.submitted(),
        s.completed(),
        s.failed(),
        s.cancelled(),
        s.rejected(),
        millis(t.queueWait()),
        millis(t.runTime()),
        millis(t.cpuTime()),
        finite(s.utilisation()),
        new Advice(
            advice.enoughData(),
            advice.recommendedConcurrency(),
            advice.recommendedQueueCapacity(),
            advice.warnings(),
            advice.toText()));
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static Times millis(Distribution d) {
    if (d.isEmpty()) {
      return new Times(0, null, null, null, null, null);
    }
    return new Times(d.count(), d.mean() / 1e6, d.p50() / 1e6, d.p90() / 1e6, d.p99() / 1e6, d.max() / 1e6);
  }

  /** One lane as the endpoint shows it. */
  public record LaneView(
      String kind,
      boolean shutdown,
      boolean terminated,
      String health,
      int concurrency,
      int queueCapacity,
      int queued,
      int running,
      int workers,
      long submitted,
      long completed,
      long failed,
      long cancelled,
      long rejected,
      Times queueWait,
      Times runTime,
      Times cpuTime,
      Double utilisation,
      Advice sizingAdvice) {}

  /** A distribution in milliseconds (null figures when nothing was measured). */
  public record Times(long count, Double meanMs, Double p50Ms, Double p90Ms, Double p99Ms, Double maxMs) {}

  /** The lane's sizing advice: numbers, warnings and the reasoning in words. */
  public record Advice(
      boolean enoughData,
      int recommendedConcurrency,
      int recommendedQueueCapacity,
      List<String> warnings,
      String text) {}
}
