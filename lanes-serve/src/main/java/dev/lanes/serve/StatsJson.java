package dev.lanes.serve;

import dev.lanes.Distribution;
import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.redis.SharedCapStats;
import java.util.Collection;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

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
    ObjectNode doc = Json.object();
    if (server != null) {
      doc.put("server", server);
    }
    doc.put("mode", mode);
    Json.put(doc, "endpointWindowMs", book.windowNanos() / 1e6);
    ArrayNode laneList = doc.putArray("lanes");
    for (Lane lane : lanes) {
      laneJson(laneList.addObject(), lane.stats());
    }
    ArrayNode endpoints = doc.putArray("endpoints");
    for (EndpointBook.Figures f : book.figures(stages)) {
      ObjectNode e = endpoints.addObject()
          .put("label", f.label())
          .put("lane", f.lane())
          .put("tasks", f.tasks())
          .put("failed", f.failed())
          .put("rejected", f.rejected());
      summaryJson(e.putObject("wait"), f.queueWait());
      summaryJson(e.putObject("run"), f.runTime());
    }
    if (!shared.isEmpty()) {
      ArrayNode caps = doc.putArray("shared");
      for (SharedCapStats c : shared) {
        sharedJson(caps.addObject(), c);
      }
    }
    return Json.write(doc);
  }

  private static void sharedJson(ObjectNode o, SharedCapStats c) {
    o.put("name", c.cap())
        .put("health", c.health().name())
        .put("cap", c.globalCap())
        .put("inUse", c.globalInUse())
        .put("globalWaiters", c.globalWaiters())
        .put("heldHere", c.heldHere());
    Json.put(o, "share", c.share())
        .put("waitingForPermit", c.waitingForPermit())
        .put("grantedUnclaimed", c.grantedUnclaimed())
        .put("runningOnLocalShare", c.runningOnLocalShare())
        .put("permitsGranted", c.permitsGranted())
        .put("refused", c.refused())
        .put("redisFailures", c.redisFailures());
  }

  private static void laneJson(ObjectNode o, LaneStats st) {
    o.put("name", st.lane())
        .put("kind", st.kind().tag())
        .put("shutdown", st.shutdown())
        .put("terminated", st.terminated())
        .put("health", st.health().name())
        .put("concurrency", st.concurrency())
        .put("queueCapacity", st.queueCapacity())
        .put("queued", st.queued());
    Json.put(o, "oldestQueuedMs", st.oldestQueuedNanos() / 1e6)
        .put("running", st.running())
        .put("workers", st.workers())
        .put("submitted", st.submitted())
        .put("completed", st.completed())
        .put("failed", st.failed())
        .put("cancelled", st.cancelled())
        .put("rejected", st.rejected());
    Json.put(o, "utilisation", st.utilisation());
    Json.put(o, "saturatedMs", st.saturatedNanos() / 1e6);
    distJson(o.putObject("wait"), st.sinceStart().queueWait());
    distJson(o.putObject("run"), st.sinceStart().runTime());
    distJson(o.putObject("cpu"), st.sinceStart().cpuTime());
    distJson(o.putObject("recentWait"), st.recent().queueWait());
    distJson(o.putObject("recentRun"), st.recent().runTime());
    dev.lanes.Pinning p = st.pinning();
    ObjectNode pin = o.putObject("pinning").put("reported", p.reported()).put("count", p.count());
    Json.put(pin, "totalMs", p.totalNanos() / 1e6);
    Json.put(pin, "longestMs", p.longestNanos() / 1e6);
    if (!p.sites().isEmpty()) {
      pin.put("site", p.sites().get(0).frame()).put("label", p.sites().get(0).label());
    }
  }

  private static void distJson(ObjectNode o, Distribution d) {
    o.put("count", d.count());
    Json.put(o, "p50", d.p50Millis());
    Json.put(o, "p99", d.p99Millis());
    Json.put(o, "max", d.maxMillis());
    Json.put(o, "mean", d.meanMillis());
  }

  private static void summaryJson(ObjectNode o, EndpointBook.Summary d) {
    o.put("count", d.count());
    Json.put(o, "p50", d.p50());
    Json.put(o, "p99", d.p99());
    Json.put(o, "max", d.max());
    Json.put(o, "mean", d.mean());
  }
}
