package dev.lanes.spring.boot;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * The forms a setting's value may take, for messages that say what was expected ("a whole number
 * (for example 8)"), and the endpoint's reading of a value given as text or a JSON number, in the
 * forms Spring Boot's binding accepts.
 */
final class ValueForms {
  private ValueForms() {}

  /** What a value of {@code type} looks like, with an example. */
  static String expected(Class<?> type) {
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "a whole number (for example 8)";
    }
    if (type == Double.class || type == double.class) {
      return "a number (for example 2.5)";
    }
    if (type == Duration.class) {
      return "a duration (for example 200ms, 5s or PT0.2S)";
    }
    if (type.isEnum()) {
      String names = Arrays.stream(type.getEnumConstants())
          .map(c -> dashed(((Enum<?>) c).name())).collect(Collectors.joining(", "));
      Object[] all = type.getEnumConstants();
      return "one of " + names + " (for example " + dashed(((Enum<?>) all[all.length - 1]).name())
          + ")";
    }
    return "a " + type.getSimpleName();
  }

  /** {@code value} (text or a JSON number) as {@code type}, or null if it is not one. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static @Nullable Object read(String value, Class<?> type) {
    String v = value.strip();
    try {
      if (type == Integer.class) {
        return Integer.valueOf(v);
      }
      if (type == Double.class) {
        double d = Double.parseDouble(v);
        return Double.isNaN(d) && !v.equalsIgnoreCase("nan") ? null : d;
      }
      if (type == Duration.class) {
        return DurationStyle.detectAndParse(v);
      }
      if (type.isEnum()) {
        return Enum.valueOf((Class) type, v.toUpperCase(Locale.ROOT).replace('-', '_'));
      }
    } catch (IllegalArgumentException e) {
      return null; // NumberFormatException and DurationStyle's refusal included
    }
    throw new IllegalArgumentException("no form for " + type);
  }

  private static String dashed(String enumName) {
    return enumName.toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
