package dev.lanes.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a JSON document for the tests through Jackson (strict: trailing text fails) as plain
 * values: objects as {@link LinkedHashMap}s in their order, arrays as lists, every number as a
 * {@link Double} (the tests compare figures as numbers, whatever digits the writer chose), strings,
 * booleans and null.
 */
final class ReadJson {

  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private ReadJson() {}

  static Object parse(String text) {
    return value(MAPPER.readTree(text));
  }

  private static Object value(JsonNode n) {
    if (n.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      n.properties().forEach(e -> m.put(e.getKey(), value(e.getValue())));
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      n.values().forEach(v -> l.add(value(v)));
      return l;
    }
    if (n.isNumber()) {
      return n.doubleValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    return n.isNull() ? null : n.stringValue();
  }
}
