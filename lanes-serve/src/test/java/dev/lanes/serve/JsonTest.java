package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void readsWhatTheServerWrites() throws Exception {
    try (DemoServer server = DemoServer.start(new DemoServer.Config(DemoServer.Mode.LANES, "127.0.0.1", 0, 1, 10))) {
      Object parsed = Json.parse(server.statsJson());
      assertThat(parsed).isInstanceOf(Map.class);
      Map<?, ?> m = (Map<?, ?>) parsed;
      assertThat(m.get("mode")).isEqualTo("lanes");
      assertThat(((List<?>) m.get("lanes")).stream().map(l -> ((Map<?, ?>) l).get("name")).map(String::valueOf).toList())
          .containsExactly("fast", "slow", "cpu", "call", "admin", "http");
      assertThat(((List<?>) m.get("endpoints")).stream().map(l -> ((Map<?, ?>) l).get("label")).map(String::valueOf).toList())
          .containsExactly("fast", "slow", "cpu", "call.io", "call.cpu");
    }
  }

  /** The live page's document gives each lane's pinning: not reported, or count, time and site. */
  @Test
  void eachLaneSaysWhetherAndWhereItPinned() throws Exception {
    try (dev.lanes.Lane pinner = dev.lanes.Lane.virtual("pinner", 1).reportPinning().build();
        dev.lanes.Lane plain = dev.lanes.Lane.virtual("plain", 1).build()) {
      pinner.submit("init", () -> dev.lanes.testkit.Pins.sleepInClassInitializer(
          java.time.Duration.ofMillis(60))).get();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
          .until(() -> pinner.stats().pinning().count() == 1);
      Map<?, ?> doc = (Map<?, ?>) Json.parse(StatsJson.of(null, "lanes", List.of(pinner, plain),
          new EndpointBook(Map.of(), dev.lanes.Ticker.system()), List.of()));
      List<?> lanes = (List<?>) doc.get("lanes");
      Map<?, ?> pinned = (Map<?, ?>) ((Map<?, ?>) lanes.get(0)).get("pinning");
      assertThat(pinned.get("reported")).isEqualTo(true);
      assertThat(((Number) pinned.get("count")).longValue()).isEqualTo(1);
      assertThat(String.valueOf(pinned.get("site"))).contains("PinSleeper.<clinit>");
      assertThat(pinned.get("label")).isEqualTo("init");
      Map<?, ?> none = (Map<?, ?>) ((Map<?, ?>) lanes.get(1)).get("pinning");
      assertThat(none.get("reported")).isEqualTo(false);
    }
  }

  @Test
  void writesEscapesAndFiguresAndReadsThemBack() {
    String tricky = "a\"b\\c\nd<e>&f\u0001";
    ObjectNode doc = Json.object().put("text", tricky);
    Json.put(doc, "whole", 12.0);
    Json.put(doc, "rounded", 1.234567);
    Json.put(doc, "almostWhole", 2.99999);
    Json.put(doc, "nan", Double.NaN);
    Json.put(doc, "infinite", Double.POSITIVE_INFINITY);
    String written = Json.write(doc);

    assertThat(written).contains("\"whole\":12,", "\"rounded\":1.2346,", "\"almostWhole\":3,", "\"nan\":null,",
        "\"infinite\":null");
    // < > & never appear as such, so the document cannot close a tag in a page it is pasted into.
    assertThat(written).doesNotContain("<", ">", "&");
    assertThat(((Map<?, ?>) Json.parse(written)).get("text")).isEqualTo(tricky);
    assertThat(Json.parse("{\"x\": [1, 2.5, -3e2, true, false, null]}"))
        .isEqualTo(Map.of("x", java.util.Arrays.asList(1, 2.5, -300.0, true, false, null)));
  }

  @Test
  void malformedInputFailsWithWhere() {
    assertThatThrownBy(() -> Json.parse("{\"a\": }")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("json: ").hasMessageContaining("line 1, column 7");
    assertThatThrownBy(() -> Json.parse("[1, 2")).hasMessageStartingWith("json: ").hasMessageContaining("end-of-input");
    assertThatThrownBy(() -> Json.parse("\"open")).hasMessageStartingWith("json: ").hasMessageContaining("end-of-input");
    assertThatThrownBy(() -> Json.parse("[".repeat(100)))
        .hasMessageStartingWith("json: ").hasMessageContaining("nesting depth").hasMessageContaining(String.valueOf(Json.MAX_DEPTH));
    assertThatThrownBy(() -> Json.parse("1 2")).hasMessageStartingWith("json: ").hasMessageContaining("Trailing token");
    assertThatThrownBy(() -> Json.parse(" ".repeat(Json.MAX_INPUT_CHARS + 1)))
        .hasMessage("json: input longer than " + Json.MAX_INPUT_CHARS + " chars");
  }
}
