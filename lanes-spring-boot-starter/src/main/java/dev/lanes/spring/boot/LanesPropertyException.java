package dev.lanes.spring.boot;

/**
 * A {@code lanes.*} property has a value lanes cannot use. Startup fails with it, and {@link
 * LanesPropertyFailureAnalyzer} prints the property, the value and the reason.
 */
public final class LanesPropertyException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String property;
  private final String value;
  private final String reason;

  public LanesPropertyException(String property, Object value, String reason) {
    super("Invalid value " + quote(value) + " for property " + property + ": " + reason);
    this.property = property;
    this.value = quote(value);
    this.reason = reason;
  }

  private static String quote(Object value) {
    return value == null ? "(unset)" : "\"" + value + "\"";
  }

  /** The full property name, e.g. {@code lanes.instances.db.concurrency}. */
  public String property() {
    return property;
  }

  /** The value as configured, quoted, or {@code (unset)}. */
  public String value() {
    return value;
  }

  public String reason() {
    return reason;
  }
}
