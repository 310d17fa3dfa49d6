package dev.lanes.lab.report;

import java.util.List;
import java.util.Map;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes {@code summary.json} through Jackson: strings, numbers, booleans, lists and maps (insertion
 * order kept), anything else as its {@code toString()}; indented by two spaces, {@code "name":
 * value}, one value a line. A real number keeps three decimals (a whole one is written as a whole
 * number: 5141.9996 is {@code 5142}); NaN and infinities are {@code null}.
 */
public final class Json {

  /** Decimals a real number keeps: figures are ms, ratios or counts, so finer digits are noise. */
  static final int DECIMALS = 3;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private static final DefaultIndenter TWO_SPACES = new DefaultIndenter("  ", "\n");

  private static final ObjectWriter WRITER = JsonMapper.builder().build().writer().with(
      new DefaultPrettyPrinter(Separators.createDefaultInstance()
              .withObjectNameValueSpacing(Separators.Spacing.AFTER)
              .withObjectEmptySeparator("")
              .withArrayEmptySeparator(""))
          .withObjectIndenter(TWO_SPACES)
          .withArrayIndenter(TWO_SPACES));

  private Json() {}

  /** The value as an indented document ending in a newline. */
  public static String write(Object value) {
    return WRITER.writeValueAsString(node(value)) + "\n";
  }

  private static JsonNode node(Object value) {
    return switch (value) {
      case null -> NODES.nullNode();
      case String s -> NODES.stringNode(s);
      case Boolean b -> NODES.booleanNode(b);
      case Double d -> number(d);
      case Float f -> number(f);
      case Number n -> NODES.numberNode(n.longValue());
      case Map<?, ?> map -> {
        ObjectNode o = NODES.objectNode();
        map.forEach((k, v) -> o.set(String.valueOf(k), node(v)));
        yield o;
      }
      case List<?> list -> {
        ArrayNode a = NODES.arrayNode();
        list.forEach(v -> a.add(node(v)));
        yield a;
      }
      default -> NODES.stringNode(value.toString());
    };
  }

  private static JsonNode number(double d) {
    if (!Double.isFinite(d)) {
      return NODES.nullNode();
    }
    if (Math.abs(d) >= 1e15) {
      return NODES.numberNode(d);
    }
    double scale = Math.pow(10, DECIMALS);
    double rounded = Math.round(d * scale) / scale;
    return rounded == Math.rint(rounded) ? NODES.numberNode((long) rounded) : NODES.numberNode(rounded);
  }
}
