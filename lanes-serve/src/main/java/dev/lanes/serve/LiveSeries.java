package dev.lanes.serve;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.LaneStats;
import dev.lanes.Ticker;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

/**
 * The live page's time series ({@code /series.json}): one sample a second of the last {@link
 * #WINDOW_SECONDS} seconds, per lane (queued, the oldest queued task's age, health and for how long
 * it has not been OK) and per endpoint stage (requests waiting now and the oldest one's age; queue
 * wait and run time p50 / p99 of the requests that ended in that second).
 *
 * <p><b>Concurrency design.</b> One daemon thread takes a sample a second ({@link #sample()}); the
 * admin lane reads {@link #json()}. Both hold this object's monitor, which guards {@code samples}
 * and {@code unhealthySince}; a sample is a finished JSON string, so a read copies strings only.
 * {@link #close()} stops the thread and waits for it.
 */
public final class LiveSeries implements AutoCloseable {

  /** The one time window the page shows. */
  static final int WINDOW_SECONDS = 120;

  static final long INTERVAL_MILLIS = 1_000;

  /**
   * A lane is drawn red only once it has not been OK for this long: a saturation shorter than a
   * person would notice (a burst of page loads) stays amber.
   */
  static final long RED_AFTER_MILLIS = 5_000;

  private final List<Lane> lanes;
  private final List<String> stages;
  private final EndpointBook book;
  private final Ticker ticker;
  private final ArrayDeque<String> samples = new ArrayDeque<>();
  private final Map<String, Long> unhealthySince = new HashMap<>();
  private final long startNanos;
  private ScheduledExecutorService sampler;

  /** A series of {@code lanes} and of {@code book}'s {@code stages} (labels, in the page's order). */
  public LiveSeries(List<Lane> lanes, List<String> stages, EndpointBook book, Ticker ticker) {
    this.lanes = List.copyOf(lanes);
    this.stages = List.copyOf(stages);
    this.book = book;
    this.ticker = ticker;
    this.startNanos = ticker.read();
  }

  /** Starts sampling once a second on a daemon thread of its own. */
  public synchronized LiveSeries start() {
    sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "lanes-serve-series");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleAtFixedRate(this::sample, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    return this;
  }

  /** Takes one sample now (the sampler thread calls this once a second). */
  synchronized void sample() {
    long now = ticker.read();
    ObjectNode sample = Json.object();
    Json.put(sample, "t", (now - startNanos) / 1e9);
    ObjectNode laneSamples = sample.putObject("lanes");
    for (Lane lane : lanes) {
      LaneStats st = lane.stats();
      long unhealthyMs = unhealthyMillis(st.lane(), st.health(), now);
      ObjectNode l = laneSamples.putObject(st.lane()).put("queued", st.queued());
      Json.put(l, "oldestQueuedMs", st.oldestQueuedNanos() / 1e6)
          .put("running", st.running())
          .put("health", st.health().name())
          .put("unhealthyMs", unhealthyMs)
          .put("red", red(unhealthyMs));
    }
    ObjectNode endpoints = sample.putObject("endpoints");
    for (String label : stages) {
      EndpointBook.Interval i = book.takeInterval(label);
      if (i == null) {
        continue;
      }
      ObjectNode e = endpoints.putObject(label).put("lane", i.lane()).put("waiting", i.waiting());
      Json.put(e, "oldestWaitingMs", i.oldestWaitingMs()).put("ended", i.ended());
      boolean ended = i.ended() > 0;
      Json.put(e, "waitP50", ended ? i.queueWait().p50() : Double.NaN);
      Json.put(e, "waitP99", ended ? i.queueWait().p99() : Double.NaN);
      Json.put(e, "runP50", ended ? i.runTime().p50() : Double.NaN);
      Json.put(e, "runP99", ended ? i.runTime().p99() : Double.NaN);
    }
    samples.addLast(Json.write(sample));
    while (samples.size() > WINDOW_SECONDS) {
      samples.removeFirst();
    }
  }

  /**
   * How long, as of {@code now}, the lane has been in a state other than OK without a break (as
   * seen by the samples: to the second), 0 while it is OK. Guarded by this object's monitor.
   */
  synchronized long unhealthyMillis(String lane, LaneHealth health, long now) {
    if (health == LaneHealth.OK) {
      unhealthySince.remove(lane);
      return 0;
    }
    return (now - unhealthySince.computeIfAbsent(lane, k -> now)) / 1_000_000;
  }

  /** Whether the page draws a lane red: not OK for at least {@link #RED_AFTER_MILLIS}. */
  static boolean red(long unhealthyMillis) {
    return unhealthyMillis >= RED_AFTER_MILLIS;
  }

  /** The window's samples, oldest first, with the window and the red rule stated. */
  public synchronized String json() {
    ObjectNode doc = Json.object()
        .put("windowSeconds", WINDOW_SECONDS)
        .put("intervalMs", INTERVAL_MILLIS)
        .put("redAfterMs", RED_AFTER_MILLIS);
    ArrayNode list = doc.putArray("samples");
    for (String sample : samples) {
      list.addRawValue(new RawValue(sample)); // written once, when taken
    }
    return Json.write(doc);
  }

  @Override
  public void close() {
    ScheduledExecutorService s;
    synchronized (this) {
      s = sampler;
      sampler = null;
    }
    if (s != null) {
      s.shutdownNow();
      try {
        s.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
