package dev.lanes.agent;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * The agent's JDK Flight Recorder events, in the style of lanes' own ({@code dev.lanes.*}, category
 * "lanes"): a warning, and a pool's health transition. No event object is made while Flight
 * Recorder is not initialised in this JVM.
 */
final class AgentEvents {
  private AgentEvents() {}

  @Name("dev.lanes.agent.Warning")
  @Label("Pool Warning")
  @Description("A warning of the lanes agent: a starvation deadlock, a blocking call, a long saturation")
  @Category({"lanes", "agent"})
  static final class WarningEvent extends Event {
    @Label("Pool") String pool;
    @Label("Kind") String kind;
    @Label("Message") String message;
    @Label("Evidence") String evidence;
  }

  @Name("dev.lanes.agent.PoolHealth")
  @Label("Pool Health Transition")
  @Category({"lanes", "agent"})
  static final class HealthEvent extends Event {
    @Label("Pool") String pool;
    @Label("From") String from;
    @Label("To") String to;
    @Label("Figures") String figures;
  }

  static void warning(String pool, String kind, String message, String evidence) {
    if (!FlightRecorder.isInitialized()) {
      return;
    }
    WarningEvent e = new WarningEvent();
    if (e.isEnabled()) {
      e.pool = pool;
      e.kind = kind;
      e.message = message;
      e.evidence = evidence;
      e.commit();
    }
  }

  static void health(String pool, String from, String to, String figures) {
    if (!FlightRecorder.isInitialized()) {
      return;
    }
    HealthEvent e = new HealthEvent();
    if (e.isEnabled()) {
      e.pool = pool;
      e.from = from;
      e.to = to;
      e.figures = figures;
      e.commit();
    }
  }
}
