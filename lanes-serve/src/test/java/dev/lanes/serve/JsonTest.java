package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
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

  @Test
  void quotesAndParsesEscapes() {
    String tricky = "a\"b\\c\nd<e>\u0001";
    assertThat(Json.parse(Json.quote(tricky))).isEqualTo(tricky);
    assertThat(Json.parse("{\"x\": [1, 2.5, -3e2, true, false, null]}"))
        .isEqualTo(Map.of("x", java.util.Arrays.asList(1.0, 2.5, -300.0, true, false, null)));
    assertThat(Json.number(Double.NaN)).isEqualTo("null");
  }

  @Test
  void malformedInputFailsWithThePosition() {
    assertThatThrownBy(() -> Json.parse("{\"a\": }")).hasMessageContaining("position 6");
    assertThatThrownBy(() -> Json.parse("[1, 2")).hasMessageContaining("expected ']'");
    assertThatThrownBy(() -> Json.parse("\"open")).hasMessageContaining("unterminated");
    assertThatThrownBy(() -> Json.parse("[".repeat(100))).hasMessageContaining("nested deeper");
    assertThatThrownBy(() -> Json.parse("1 2")).hasMessageContaining("trailing");
  }
}
