package dev.lanes.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The little JSON this module needs: writing {@code /stats.json} and reading it back in the load
 * generator. Objects become {@link LinkedHashMap}s, arrays {@link ArrayList}s, numbers {@link
 * Double}s. Input is bounded ({@link #MAX_INPUT_CHARS}, {@link #MAX_DEPTH}); anything malformed
 * fails with the position.
 */
final class Json {

  static final int MAX_INPUT_CHARS = 4 * 1024 * 1024;
  static final int MAX_DEPTH = 32;

  private final String s;
  private int pos;

  private Json(String s) {
    this.s = s;
  }

  /** Parses one JSON value. */
  static Object parse(String text) {
    if (text.length() > MAX_INPUT_CHARS) {
      throw new IllegalArgumentException("json: input longer than " + MAX_INPUT_CHARS + " chars");
    }
    Json p = new Json(text);
    Object v = p.value(0);
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  /** A string as a JSON string literal. */
  static String quote(String v) {
    StringBuilder b = new StringBuilder(v.length() + 2).append('"');
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /** A number for JSON: finite values as is, NaN and infinities as {@code null}. */
  static String number(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "null";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.4f", v);
  }

  private Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH);
    }
    skipSpace();
    if (pos >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(pos);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> num();
    };
  }

  private Map<String, Object> object(int depth) {
    Map<String, Object> m = new LinkedHashMap<>();
    pos++;
    skipSpace();
    if (peek('}')) {
      pos++;
      return m;
    }
    while (true) {
      skipSpace();
      if (!peek('"')) {
        throw error("expected a key");
      }
      String key = string();
      skipSpace();
      expect(':');
      m.put(key, value(depth + 1));
      skipSpace();
      if (peek(',')) {
        pos++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array(int depth) {
    List<Object> l = new ArrayList<>();
    pos++;
    skipSpace();
    if (peek(']')) {
      pos++;
      return l;
    }
    while (true) {
      l.add(value(depth + 1));
      skipSpace();
      if (peek(',')) {
        pos++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (pos < s.length()) {
      char c = s.charAt(pos++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (pos >= s.length()) {
        break;
      }
      char e = s.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          if (pos + 4 > s.length()) {
            throw error("short \\u escape");
          }
          try {
            b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
          } catch (NumberFormatException x) {
            throw error("bad \\u escape");
          }
          pos += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
    throw error("unterminated string");
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, pos)) {
      throw error("expected " + word);
    }
    pos += word.length();
    return v;
  }

  private Double num() {
    int start = pos;
    while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
      pos++;
    }
    if (start == pos) {
      throw error("unexpected character '" + s.charAt(pos) + "'");
    }
    try {
      return Double.parseDouble(s.substring(start, pos));
    } catch (NumberFormatException x) {
      throw error("bad number");
    }
  }

  private void skipSpace() {
    while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
      pos++;
    }
  }

  private boolean peek(char c) {
    return pos < s.length() && s.charAt(pos) == c;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("json: " + what + " at position " + pos);
  }
}
