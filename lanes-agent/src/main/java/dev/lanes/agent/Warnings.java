package dev.lanes.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's warnings: each is logged once (per pool and kind of warning) through {@code
 * System.Logger} named {@code dev.lanes.agent} — so it lands in the application's own log, on
 * stderr by default — and emitted as a JFR event ({@code dev.lanes.agent.Warning}) while Flight
 * Recorder runs. The logger is looked up at the first warning, never at start-up: an agent that
 * touched the logging system in {@code premain} could set it up before the application does.
 */
final class Warnings {
  /** What a warning is about; its name is the JFR event's {@code kind}. */
  enum Kind {
    DEADLOCK("starvation deadlock"),
    BLOCKING("blocking call"),
    SATURATED("saturated"),
    INSTRUMENTATION("not instrumented");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Set<String> said = ConcurrentHashMap.newKeySet();
  /**
   * Logs {@code message} (and its evidence, indented below it) unless a warning of this kind was
   * already logged for {@code key}; returns true if it was logged now.
   */
  boolean warnOnce(Kind kind, String key, String pool, String message, String evidence) {
    if (!said.add(kind + "\u0000" + key)) {
      return false;
    }
    String text = "lanes-agent: " + message + (evidence.isEmpty() ? "" : "\n" + evidence);
    System.getLogger("dev.lanes.agent").log(System.Logger.Level.WARNING, text);
    AgentEvents.warning(pool, kind.label, message, evidence);
    return true;
  }

  /** Logs an informational line (not a warning, not repeated by design of the caller). */
  static void info(String message) {
    System.getLogger("dev.lanes.agent").log(System.Logger.Level.INFO, "lanes-agent: " + message);
  }
}
