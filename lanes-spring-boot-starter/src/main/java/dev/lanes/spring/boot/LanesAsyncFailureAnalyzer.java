package dev.lanes.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link LanesAsyncQualifierException} into Spring Boot's "APPLICATION FAILED TO START" report. */
public final class LanesAsyncFailureAnalyzer extends AbstractFailureAnalyzer<LanesAsyncQualifierException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, LanesAsyncQualifierException cause) {
    String lanes = cause.declaredLanes().isEmpty() ? "none" : String.join(", ", cause.declaredLanes());
    return new FailureAnalysis(
        "@Async names an executor this application does not have:\n\n    Method: " + cause.method()
            + "\n    @Async value: \"" + cause.qualifier() + "\"\n    Declared lanes: " + lanes,
        "Declare lane \"" + cause.qualifier() + "\" under lanes.instances, or name one of: " + lanes
            + " (or an Executor bean of the application).",
        cause);
  }
}
