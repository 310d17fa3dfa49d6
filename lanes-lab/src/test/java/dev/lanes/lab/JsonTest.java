package dev.lanes.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.report.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  @SuppressWarnings("unchecked")
  void escapesStringsAndWritesNumbersBooleansListsAndMaps() {
    String tricky = "quote \" backslash \\ newline \n tab \t bell \u0007 é";
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("text", tricky);
    m.put("int", 42L);
    m.put("real", 1.25);
    m.put("nan", Double.NaN);
    m.put("yes", true);
    m.put("list", List.of(1L, "two"));
    m.put("empty", Map.of());

    Map<String, Object> back = (Map<String, Object>) ReadJson.parse(Json.write(m));

    assertThat(back).containsOnlyKeys("text", "int", "real", "nan", "yes", "list", "empty");
    assertThat(back.get("text")).isEqualTo(tricky);
    assertThat(back.get("int")).isEqualTo(42.0);
    assertThat(back.get("real")).isEqualTo(1.25);
    assertThat(back.get("nan")).isNull();
    assertThat(back.get("yes")).isEqualTo(true);
    assertThat(back.get("list")).isEqualTo(List.of(1.0, "two"));
    assertThat(back.get("empty")).isEqualTo(Map.of());
  }

  @Test
  void aNumberThatRoundsToAWholeOneIsStillANumber() {
    // 5141.9996 printed with three decimals is 5142.000: written once as "5142.", which is not JSON.
    assertThat(Json.write(Map.of("ms", 5141.9996))).contains("\"ms\": 5142").doesNotContain("5142.");
    assertThat(Json.write(Map.of("ms", 0.5))).contains("\"ms\": 0.5");
  }

  @Test
  void indentsByTwoSpacesOneValueALineAndWritesOtherTypesAsText() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", "E1");
    m.put("figures", Map.of("ms", 1.23456));
    m.put("list", List.of(1L, java.time.Duration.ofMillis(5)));
    m.put("none", List.of());
    assertThat(Json.write(m)).isEqualTo("""
        {
          "id": "E1",
          "figures": {
            "ms": 1.235
          },
          "list": [
            1,
            "PT0.005S"
          ],
          "none": []
        }
        """);
  }
}
