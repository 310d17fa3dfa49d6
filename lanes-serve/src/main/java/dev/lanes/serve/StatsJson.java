package dev.lanes.serve;

import dev.lanes.Distribution;
import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.redis.SharedCapStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The demo servers' {@code /stats.json}: every lane's figures since start, and per endpoint stage
 * the queue wait and run time since the last reset (times in ms). The load generator and the live
 * page read this shape, from the JDK-HttpServer demo and from the Spring Boot one alike.
 */
public final class StatsJson {
  private StatsJson() {}

  /**
   * The document.
   *
   * @param server the web server's name ({@code tomcat}, ...), or null to leave the field out
   * @param mode {@code shared} or {@code lanes}
   * @param stages the book's stage labels, in the order to list them
   */
  public static String of(String server, String mode, Collection<Lane> lanes, EndpointBook book, List<String> stages) {
    return of(server, mode, lanes, book, stages, List.of());
  }

  /**
   * The document, with a {@code "shared"} list (one entry per shared cap on Redis, module
   * lanes-redis) when {@code shared} is not empty: the global cap and permits in use across
   * instances, this instance's share, permits asked for and granted, the shared cap's health. The
   * wait for a permit is part of the gated lane's own queue wait (in {@code "lanes"}).
   */
  public static String of(String server, String mode, Collection<Lane> lanes, EndpointBook book, List<String> stages,
      List<SharedCapStats> shared) {
    StringBuilder s = new StringBuilder(4_096);
    s.append('{');
    if (server != null) {
      s.append("\"server\":").append(Json.quote(server)).append(',');
    }
    s.append("\"mode\":").append(Json.quote(mode));
    s.append(",\"endpointWindowMs\":").append(Json.number(book.windowNanos() / 1e6));
    s.append(",\"lanes\":[");
    List<String> parts = new ArrayList<>();
    for (Lane lane : lanes) {
      parts.add(laneJson(lane.stats()));
    }
    s.append(String.join(",", parts)).append("],\"endpoints\":[");
    parts.clear();
    for (EndpointBook.Figures f : book.figures(stages)) {
      parts.add("{\"label\":" + Json.quote(f.label()) + ",\"lane\":" + Json.quote(f.lane())
          + ",\"tasks\":" + f.tasks() + ",\"failed\":" + f.failed() + ",\"rejected\":" + f.rejected()
          + ",\"wait\":" + summaryJson(f.queueWait()) + ",\"run\":" + summaryJson(f.runTime()) + "}");
    }
    s.append(String.join(",", parts)).append(']');
    if (!shared.isEmpty()) {
      parts.clear();
      for (SharedCapStats c : shared) {
        parts.add(sharedJson(c));
      }
      s.append(",\"shared\":[").append(String.join(",", parts)).append(']');
    }
    return s.append('}').toString();
  }

  private static String sharedJson(SharedCapStats c) {
    return "{\"name\":" + Json.quote(c.cap())
        + ",\"health\":" + Json.quote(c.health().name())
        + ",\"cap\":" + c.globalCap()
        + ",\"inUse\":" + c.globalInUse()
        + ",\"globalWaiters\":" + c.globalWaiters()
        + ",\"heldHere\":" + c.heldHere()
        + ",\"share\":" + Json.number(c.share())
        + ",\"waitingForPermit\":" + c.waitingForPermit()
        + ",\"grantedUnclaimed\":" + c.grantedUnclaimed()
        + ",\"runningOnLocalShare\":" + c.runningOnLocalShare()
        + ",\"permitsGranted\":" + c.permitsGranted()
        + ",\"refused\":" + c.refused()
        + ",\"redisFailures\":" + c.redisFailures()
        + "}";
  }

  private static String laneJson(LaneStats st) {
    return "{\"name\":" + Json.quote(st.lane())
        + ",\"kind\":" + Json.quote(st.kind().tag())
        + ",\"shutdown\":" + st.shutdown()
        + ",\"terminated\":" + st.terminated()
        + ",\"health\":" + Json.quote(st.health().name())
        + ",\"concurrency\":" + st.concurrency()
        + ",\"queueCapacity\":" + st.queueCapacity()
        + ",\"queued\":" + st.queued()
        + ",\"oldestQueuedMs\":" + Json.number(st.oldestQueuedNanos() / 1e6)
        + ",\"running\":" + st.running()
        + ",\"workers\":" + st.workers()
        + ",\"submitted\":" + st.submitted()
        + ",\"completed\":" + st.completed()
        + ",\"failed\":" + st.failed()
        + ",\"cancelled\":" + st.cancelled()
        + ",\"rejected\":" + st.rejected()
        + ",\"utilisation\":" + Json.number(st.utilisation())
        + ",\"saturatedMs\":" + Json.number(st.saturatedNanos() / 1e6)
        + ",\"wait\":" + distJson(st.sinceStart().queueWait())
        + ",\"run\":" + distJson(st.sinceStart().runTime())
        + ",\"cpu\":" + distJson(st.sinceStart().cpuTime())
        + ",\"recentWait\":" + distJson(st.recent().queueWait())
        + ",\"recentRun\":" + distJson(st.recent().runTime())
        + "}";
  }

  private static String distJson(Distribution d) {
    return "{\"count\":" + d.count() + ",\"p50\":" + Json.number(d.p50Millis())
        + ",\"p99\":" + Json.number(d.p99Millis()) + ",\"max\":" + Json.number(d.maxMillis())
        + ",\"mean\":" + Json.number(d.meanMillis()) + "}";
  }

  private static String summaryJson(EndpointBook.Summary d) {
    return "{\"count\":" + d.count() + ",\"p50\":" + Json.number(d.p50()) + ",\"p99\":" + Json.number(d.p99())
        + ",\"max\":" + Json.number(d.max()) + ",\"mean\":" + Json.number(d.mean()) + "}";
  }
}
