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
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.jspecify.annotations.Nullable;
import dev.lanes.Lane;
import dev.lanes.LaneSettings;
import java.time.Duration;

/**
 * {@code /actuator/lanes}: every lane with its figures, settings and sizing advice ({@link
 * SizingAdvisor#defaults()} on this machine's processors); {@code /actuator/lanes/{name}} one
 * lane. Times are in milliseconds, settings' durations ISO-8601 ({@code PT0.2S}).
 *
 * <p>A POST to {@code /actuator/lanes/{name}} with a JSON object of any of the settings a running
 * lane can change ({@link LiveSettings}: {@code concurrency}, {@code queueCapacity}, {@code
 * overflow}, {@code blockTimeout}, {@code shedTarget}, {@code shedInterval}, {@code
 * waitToRunRatio}, {@code fixedWaitThreshold}, {@code saturationWindow}, {@code
 * saturationMinWait}, {@code enterAfter}, {@code exitAfter}) changes them at once, all or none,
 * and answers the lane's settings; a refused value answers 400 with the builder's message and the
 * lane keeps its settings.
 *
 * <p>Thread-safety: holds no state of its own; requests on several threads each make their own
 * {@link dev.lanes.LaneChange}, which the lane applies one at a time (the later starts from what
 * the earlier left).
 */
@Endpoint(id = "lanes")
public class LanesEndpoint {
  private final Lanes lanes;
  private final LanesShares shares;
  private final @Nullable TomcatRequestFigures tomcatRequests;
  private final int cores = Runtime.getRuntime().availableProcessors();

  public LanesEndpoint(Lanes lanes) {
    this(lanes, LanesShares.none());
  }

  /** {@code shares}: the lanes served by a partition show it ({@link LaneView#share()}). */
  public LanesEndpoint(Lanes lanes, LanesShares shares) {
    this(lanes, shares, null);
  }

  /** And the Tomcat lane's requests ({@code lanes.server.lane}) shown beside its tasks. */
  LanesEndpoint(Lanes lanes, LanesShares shares, @Nullable TomcatRequestFigures tomcatRequests) {
    this.lanes = lanes;
    this.shares = shares;
    this.tomcatRequests = tomcatRequests;
  }

  private LaneView view(LaneStats s) {
    ShareView share = shares.servedBy(s.lane())
        .map(served -> ShareView.of(served.shares().stats(), served.partition(), s.concurrency()))
        .orElse(null);
    Requests requests = tomcatRequests != null && tomcatRequests.lane().equals(s.lane())
        ? new Requests(tomcatRequests.requests(), tomcatRequests.readByRunningDispatch(),
            millis(tomcatRequests.queueWait()), millis(tomcatRequests.runTime()))
        : null;
    return view(s, SizingAdvisor.defaults().advise(s, cores), lanes.lane(s.lane()).settings(), share,
        requests);
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

  /**
   * Changes the lane's live settings, all at once or none (the lane logs the change once and tells
   * its {@code onSettings} listeners). Durations as Spring Boot reads them: {@code 200ms}, {@code
   * 5s}, {@code PT0.2S}; {@code shedTarget} 0 turns shedding off.
   *
   * @return 200 with the lane's settings now; 400 with {@code {"error": "<the builder's message>"}}
   *     when a value is refused (nothing changed); 404 for an unknown lane
   */
  @WriteOperation
  public WebEndpointResponse<Object> change(
      @Selector String name,
      @Nullable String concurrency,
      @Nullable String queueCapacity,
      @Nullable String overflow,
      @Nullable String blockTimeout,
      @Nullable String shedTarget,
      @Nullable String shedInterval,
      @Nullable String waitToRunRatio,
      @Nullable String fixedWaitThreshold,
      @Nullable String saturationWindow,
      @Nullable String saturationMinWait,
      @Nullable String enterAfter,
      @Nullable String exitAfter) {
    if (!lanes.names().contains(name)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    Lane lane = lanes.lane(name);
    // Read here rather than by the endpoint's own conversion, which answers a bare "Bad Request".
    Values v = new Values(name);
    LiveSettings wanted = new LiveSettings(
        v.read("concurrency", concurrency, Integer.class),
        v.read("queueCapacity", queueCapacity, Integer.class),
        v.read("overflow", overflow, LanesProperties.Overflow.class),
        v.read("blockTimeout", blockTimeout, Duration.class),
        v.read("shedTarget", shedTarget, Duration.class),
        v.read("shedInterval", shedInterval, Duration.class),
        v.read("waitToRunRatio", waitToRunRatio, Double.class),
        v.read("fixedWaitThreshold", fixedWaitThreshold, Duration.class),
        v.read("saturationWindow", saturationWindow, Duration.class),
        v.read("saturationMinWait", saturationMinWait, Duration.class),
        v.read("enterAfter", enterAfter, Duration.class),
        v.read("exitAfter", exitAfter, Duration.class));
    if (v.error != null) {
      return new WebEndpointResponse<>(Map.of("error", v.error), WebEndpointResponse.STATUS_BAD_REQUEST);
    }
    if (wanted.isEmpty()) {
      return new WebEndpointResponse<>(Map.of("error", "lane \"" + name + "\": nothing to change; give any of "
          + "concurrency, queueCapacity, overflow, blockTimeout, shedTarget, shedInterval, waitToRunRatio, "
          + "fixedWaitThreshold, saturationWindow, saturationMinWait, enterAfter, exitAfter"),
          WebEndpointResponse.STATUS_BAD_REQUEST);
    }
    try {
      return new WebEndpointResponse<>(SettingsView.of(wanted.changeOf(lane).apply()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      return new WebEndpointResponse<>(Map.of("error", String.valueOf(e.getMessage())),
          WebEndpointResponse.STATUS_BAD_REQUEST);
    }
  }

  /** The request's values read one by one; the first that is not of its type is the error. */
  private static final class Values {
    private final String lane;
    @Nullable String error;

    Values(String lane) {
      this.lane = lane;
    }

    <T> @Nullable T read(String field, @Nullable String value, Class<T> type) {
      if (value == null || error != null) {
        return null;
      }
      Object read = ValueForms.read(value, type);
      if (read == null) {
        error = "lane \"" + lane + "\": " + field + " must be " + ValueForms.expected(type) + ", was \""
            + value + "\"";
        return null;
      }
      return type.cast(read);
    }
  }

  private static LaneView view(LaneStats s, SizingAdvice advice, LaneSettings settings,
      @Nullable ShareView share, @Nullable Requests requests) {
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
            advice.toText()),
        SettingsView.of(settings),
        share,
        requests);
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
      Advice sizingAdvice,
      SettingsView settings,
      @Nullable ShareView share,
      @Nullable Requests tomcatRequests) {}

  /**
   * The partition of priority shares a lane is served by ({@code lanes.instances.<name>.share}),
   * from one balanced snapshot of its shares: its books, and {@code mayRunNow}, how many of the
   * lane's tasks may run at this moment — the lane's concurrency, less what the shares would not
   * give it now: what it holds and has reserved, the free permits up to its guarantee, and beyond
   * that the free permits not needed for the guarantees still missing from the other partitions
   * that are not lendable (the shares' rules).
   */
  public record ShareView(
      String share,
      String partition,
      int priority,
      int total,
      int guaranteed,
      int held,
      int borrowed,
      int reserved,
      int waiting,
      boolean lendable,
      int free,
      int mayRunNow) {

    static ShareView of(dev.lanes.shares.SharesStats s, String partition, int concurrency) {
      dev.lanes.shares.PartitionStats p = s.partition(partition);
      int missingOfOthers = 0;
      for (dev.lanes.shares.PartitionStats o : s.partitions()) {
        if (!o.partition().equals(partition) && !o.lendable()) {
          missingOfOthers += Math.max(0, o.guaranteed() - o.held() - o.reserved());
        }
      }
      int ownMissing = Math.max(0, p.guaranteed() - p.held() - p.reserved());
      int toGuarantee = Math.min(s.free(), ownMissing);
      int mayBorrow = Math.max(0, s.free() - toGuarantee - missingOfOthers);
      int mayHold = p.held() + p.reserved() + toGuarantee + mayBorrow;
      return new ShareView(s.name(), partition, p.priority(), s.total(), p.guaranteed(), p.held(), p.borrowed(),
          p.reserved(), p.waiting(), p.lendable(), s.free(), Math.min(concurrency, mayHold));
    }
  }

  /**
   * The embedded Tomcat's requests in its lane ({@code lanes.server.lane}), since start; the
   * lane's own figures count its tasks, Tomcat's socket dispatches ({@value
   * LanesAutoConfiguration#TOMCAT_DISPATCH}), which serve none, one or several requests. {@code
   * readByRunningDispatch} counts the requests a dispatch already running read (pipelined ones),
   * which waited none. See {@link TomcatRequestFigures}.
   */
  public record Requests(long count, long readByRunningDispatch, Times queueWait, Times runTime) {}

  /**
   * A lane's live settings ({@link LaneSettings}) with the names the POST takes; durations as
   * ISO-8601 text, {@code overflow} as {@code reject}, {@code caller-runs}, {@code block-caller} or
   * {@code discard-oldest} with {@code blockTimeout} beside it; {@code shedTarget} and {@code
   * shedInterval} null when shedding is off, {@code fixedWaitThreshold} null when the ratio rule
   * is used.
   */
  public record SettingsView(
      int concurrency,
      int queueCapacity,
      String overflow,
      String blockTimeout,
      String shedTarget,
      String shedInterval,
      double waitToRunRatio,
      String fixedWaitThreshold,
      String saturationWindow,
      String saturationMinWait,
      String enterAfter,
      String exitAfter) {

    static SettingsView of(LaneSettings s) {
      String overflow = s.overflow().toString(); // "block-caller(PT1S)" carries its timeout
      String blockTimeout = null;
      int paren = overflow.indexOf('(');
      if (paren >= 0) {
        blockTimeout = overflow.substring(paren + 1, overflow.length() - 1);
        overflow = overflow.substring(0, paren);
      }
      return new SettingsView(s.concurrency(), s.queueCapacity(), overflow, blockTimeout,
          s.shedding() ? s.shedTarget().toString() : null, s.shedding() ? s.shedInterval().toString() : null,
          s.waitToRunRatio(), text(s.fixedWaitThreshold()), text(s.saturationWindow()),
          text(s.saturationMinWait()), text(s.enterAfter()), text(s.exitAfter()));
    }

    private static String text(Duration d) {
      return d == null ? null : d.toString();
    }
  }

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
