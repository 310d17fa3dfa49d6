package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The live page's series: one bounded window, waiting requests before they end, and the red rule. */
class LiveSeriesTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private final AtomicLong clock = new AtomicLong();

  @Test
  void aWaitingRequestShowsWithItsAgeBeforeItEnds() throws Exception {
    EndpointBook book = new EndpointBook(Map.of("fast", "shared"), clock::get);
    try (Lane lane = Lane.blocking("shared", 1).build();
        LiveSeries series = new LiveSeries(List.of(lane), List.of("fast"), book, clock::get)) {
      long token = book.accepted("fast");
      clock.addAndGet(700 * MS);
      series.sample();
      clock.addAndGet(1_000 * MS);
      series.sample();
      book.started("fast", token);
      series.sample();
      List<Map<String, Object>> fast = endpoint(series, "fast");
      assertThat(fast).extracting(m -> m.get("waiting")).containsExactly(1, 1, 0);
      assertThat(fast).extracting(m -> m.get("oldestWaitingMs")).containsExactly(700, 1_700, 0);
      assertThat(fast.get(0).get("waitP50")).as("nothing ended yet: no wait figure, not a zero").isNull();
    }
  }

  @Test
  void theWindowKeepsTheLastTwoMinutesOnly() throws Exception {
    EndpointBook book = new EndpointBook(Map.of("fast", "shared"), clock::get);
    try (Lane lane = Lane.blocking("shared", 1).build();
        LiveSeries series = new LiveSeries(List.of(lane), List.of("fast"), book, clock::get)) {
      for (int i = 0; i < LiveSeries.WINDOW_SECONDS + 30; i++) {
        clock.addAndGet(1_000 * MS);
        series.sample();
      }
      Map<?, ?> doc = (Map<?, ?>) Json.parse(series.json());
      assertThat((List<?>) doc.get("samples")).hasSize(LiveSeries.WINDOW_SECONDS);
      assertThat(doc.get("windowSeconds")).isEqualTo(LiveSeries.WINDOW_SECONDS);
    }
  }

  @Test
  void aLaneTurnsRedOnlyAfterFiveSecondsWithoutABreak() {
    LiveSeries series = new LiveSeries(List.of(), List.of(), new EndpointBook(Map.of(), clock::get), clock::get);
    assertThat(series.unhealthyMillis("x", LaneHealth.SATURATED, 0)).isZero();
    long brief = series.unhealthyMillis("x", LaneHealth.SATURATED, 3_000 * MS);
    assertThat(LiveSeries.red(brief)).isFalse();
    assertThat(series.unhealthyMillis("x", LaneHealth.OK, 4_000 * MS)).isZero();
    // A new spell starts from zero: 4.5 s later it is still not red, at 5 s it is.
    series.unhealthyMillis("x", LaneHealth.SATURATED, 5_000 * MS);
    assertThat(LiveSeries.red(series.unhealthyMillis("x", LaneHealth.SATURATED, 9_500 * MS))).isFalse();
    assertThat(LiveSeries.red(series.unhealthyMillis("x", LaneHealth.REJECTING, 10_000 * MS))).isTrue();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> endpoint(LiveSeries series, String label) {
    Map<String, Object> doc = (Map<String, Object>) Json.parse(series.json());
    return ((List<Map<String, Object>>) doc.get("samples")).stream()
        .map(s -> (Map<String, Object>) ((Map<String, Object>) s.get("endpoints")).get(label))
        .toList();
  }
}
