package dev.lanes.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link LanesPropertyException} into Spring Boot's "APPLICATION FAILED TO START" report. */
public final class LanesPropertyFailureAnalyzer extends AbstractFailureAnalyzer<LanesPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, LanesPropertyException cause) {
    String description =
        "Invalid lanes configuration:\n\n    Property: "
            + cause.property()
            + "\n    Value: "
            + cause.value()
            + "\n    Reason: "
            + cause.reason();
    return new FailureAnalysis(
        description, "Update the property " + cause.property() + " in your configuration.", cause);
  }
}
