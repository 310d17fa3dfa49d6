package dev.lanes.lab.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A tiny JSON writer for strings, numbers, booleans, lists and maps (insertion order kept). */
public final class Json {

  private Json() {}

  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, 0);
    return out.append('\n').toString();
  }

  private static void write(StringBuilder out, Object value, int indent) {
    switch (value) {
      case null -> out.append("null");
      case String s -> string(out, s);
      case Boolean b -> out.append(b);
      case Double d -> out.append(number(d));
      case Float f -> out.append(number(f));
      case Number n -> out.append(n.longValue());
      case Map<?, ?> map -> {
        if (map.isEmpty()) {
          out.append("{}");
          return;
        }
        out.append("{\n");
        int i = 0;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          pad(out, indent + 1);
          string(out, String.valueOf(e.getKey()));
          out.append(": ");
          write(out, e.getValue(), indent + 1);
          out.append(++i < map.size() ? ",\n" : "\n");
        }
        pad(out, indent);
        out.append('}');
      }
      case List<?> list -> {
        if (list.isEmpty()) {
          out.append("[]");
          return;
        }
        out.append("[\n");
        for (int i = 0; i < list.size(); i++) {
          pad(out, indent + 1);
          write(out, list.get(i), indent + 1);
          out.append(i + 1 < list.size() ? ",\n" : "\n");
        }
        pad(out, indent);
        out.append(']');
      }
      default -> string(out, value.toString());
    }
  }

  private static String number(double d) {
    if (!Double.isFinite(d)) {
      return "null";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    // Three decimals, without trailing zeros or a trailing dot (5141.9996 is "5142", not "5142.").
    return String.format(Locale.ROOT, "%.3f", d).replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void pad(StringBuilder out, int indent) {
    out.append("  ".repeat(indent));
  }
}
