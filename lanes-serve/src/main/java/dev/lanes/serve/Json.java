package dev.lanes.serve;

import tools.jackson.core.JacksonException;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON this module writes ({@code /stats.json}, {@code /series.json}) and reads back (the load
 * generator reads {@code /stats.json} and Actuator's metrics), through Jackson. Documents are
 * built as trees ({@link #object()}) so the order of the fields is the order they were put in.
 * Parsed objects become {@link java.util.LinkedHashMap}s, arrays {@link java.util.ArrayList}s,
 * numbers {@link Integer}, {@link Long} or {@link Double} (read them as {@link Number}). Input is
 * bounded ({@link #MAX_INPUT_CHARS}, {@link #MAX_DEPTH}); anything malformed fails with the line
 * and column.
 */
final class Json {

  static final int MAX_INPUT_CHARS = 4 * 1024 * 1024;
  static final int MAX_DEPTH = 32;

  /** Decimals a figure keeps: its unit is ms or s, so finer digits are noise. */
  static final int DECIMALS = 4;

  private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder()
              .maxNestingDepth(MAX_DEPTH).maxDocumentLength(MAX_INPUT_CHARS).build())
          .characterEscapes(new HtmlSafeEscapes())
          .build())
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private Json() {}

  /** An empty object to fill. */
  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** The document as compact JSON text. */
  static String write(JsonNode document) {
    return MAPPER.writeValueAsString(document);
  }

  /** Parses one JSON value; fails with an {@link IllegalArgumentException} naming where. */
  static Object parse(String text) {
    if (text.length() > MAX_INPUT_CHARS) {
      throw new IllegalArgumentException("json: input longer than " + MAX_INPUT_CHARS + " chars");
    }
    try {
      return MAPPER.readValue(text, Object.class);
    } catch (JacksonException e) {
      TokenStreamLocation at = e.getLocation();
      String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw new IllegalArgumentException("json: " + e.getOriginalMessage() + where, e);
    }
  }

  /**
   * Puts a figure: a whole number as one ({@code 12}, not {@code 12.0}), others rounded to {@link
   * #DECIMALS} decimals, NaN and infinities as {@code null}.
   */
  static ObjectNode put(ObjectNode o, String name, double v) {
    if (!Double.isFinite(v)) {
      return o.putNull(name);
    }
    if (Math.abs(v) >= 1e15) {
      return o.put(name, v);
    }
    if (v == Math.rint(v)) {
      return o.put(name, (long) v);
    }
    double scale = Math.pow(10, DECIMALS);
    double rounded = Math.round(v * scale) / scale;
    return rounded == Math.rint(rounded) ? o.put(name, (long) rounded) : o.put(name, rounded);
  }

  /**
   * Jackson's standard escapes, and {@code <}, {@code >} and {@code &} escaped too (as
   * backslash-u sequences), so a document pasted into a page's script or HTML cannot close a tag.
   */
  private static final class HtmlSafeEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] codes;

    HtmlSafeEscapes() {
      codes = standardAsciiEscapesForJSON();
      codes['<'] = ESCAPE_STANDARD;
      codes['>'] = ESCAPE_STANDARD;
      codes['&'] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return codes;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return null; // only standard escapes
    }
  }
}
