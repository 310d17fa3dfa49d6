package dev.lanes.spring.boot;

import java.util.List;

/**
 * An {@code @Async} method names an executor the application does not have: no lane of that name,
 * no other {@code Executor} bean. Start-up fails with it; {@link LanesAsyncFailureAnalyzer} prints
 * the method, the name and the declared lanes.
 */
public final class LanesAsyncQualifierException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String method;
  private final String qualifier;
  private final List<String> declaredLanes;

  public LanesAsyncQualifierException(String method, String qualifier, List<String> declaredLanes) {
    super("@Async(\"" + qualifier + "\") on " + method + " names no lane and no Executor bean"
        + " (declared lanes: " + (declaredLanes.isEmpty() ? "none" : String.join(", ", declaredLanes)) + ")");
    this.method = method;
    this.qualifier = qualifier;
    this.declaredLanes = List.copyOf(declaredLanes);
  }

  /** The method, as {@code com.example.Reports.run(String)}. */
  public String method() {
    return method;
  }

  /** The executor name the method gives, placeholders resolved. */
  public String qualifier() {
    return qualifier;
  }

  /** The lanes declared under {@code lanes.instances}, in order. */
  public List<String> declaredLanes() {
    return declaredLanes;
  }
}
