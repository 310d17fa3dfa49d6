package dev.lanes.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON reader for the tests (objects → LinkedHashMap, arrays → List, numbers →
 * Double, strings, booleans, null). Throws IllegalArgumentException with the offset on bad input.
 */
final class MiniJson {

  private final String s;
  private int at;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.space();
    if (p.at != p.s.length()) {
      throw p.error("trailing text");
    }
    return v;
  }

  private Object value() {
    space();
    if (at >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(at);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    at++;
    space();
    if (s.charAt(at) == '}') {
      at++;
      return m;
    }
    while (true) {
      space();
      String key = string();
      space();
      expect(':');
      m.put(key, value());
      space();
      if (s.charAt(at) == ',') {
        at++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    at++;
    space();
    if (s.charAt(at) == ']') {
      at++;
      return l;
    }
    while (true) {
      l.add(value());
      space();
      if (s.charAt(at) == ',') {
        at++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = s.charAt(at++);
      if (c == '"') {
        return b.toString();
      }
      if (c == '\\') {
        char e = s.charAt(at++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 't' -> b.append('\t');
          case 'r' -> b.append('\r');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
            at += 4;
          }
          default -> b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
      at++;
    }
    if (start == at) {
      throw error("unexpected character '" + s.charAt(at) + "'");
    }
    return Double.valueOf(s.substring(start, at));
  }

  private Object literal(String word, Object value) {
    if (!s.startsWith(word, at)) {
      throw error("expected " + word);
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (at >= s.length() || s.charAt(at) != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private void space() {
    while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("bad JSON at offset " + at + ": " + what);
  }
}
