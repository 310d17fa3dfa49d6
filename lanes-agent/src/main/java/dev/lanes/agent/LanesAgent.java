package dev.lanes.agent;

import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.loading.ClassInjector;

/**
 * The agent's entry points: {@code premain} for {@code -javaagent:lanes-agent.jar[=options]},
 * {@code agentmain} for {@code ./lanes attach <pid>}.
 *
 * <p>An agent must never take an application down: a bad option prints one line naming it and
 * the agent stays off; any failure while starting prints one line and leaves the application
 * running unchanged. This class touches no class of the bridge before the bridge is in the
 * bootstrap class loader (the agent jar is also on the class path, and a copy loaded there first
 * would be the wrong one).
 */
public final class LanesAgent {
  static final String BRIDGE_PACKAGE = "dev.lanes.agent.bootstrap.";
  private static final String[] BRIDGE_CLASSES = {"PoolBridge", "PoolSink", "PoolSink$1"};
  /** The attach command's option: write the table to this file and return. */
  static final String TABLE_OUT = "table-out=";

  private LanesAgent() {}

  public static void premain(String args, Instrumentation inst) {
    start(args, inst, false);
  }

  public static void agentmain(String args, Instrumentation inst) {
    String options = args == null ? "" : args;
    String tableOut = null;
    StringBuilder rest = new StringBuilder();
    java.util.List<String> parts;
    try {
      parts = AgentOptions.split(options);
    } catch (AgentOptions.BadOption e) {
      parts = java.util.List.of(options); // parse says what is wrong with them
    }
    for (String part : parts) {
      if (part.startsWith(TABLE_OUT)) {
        tableOut = part.substring(TABLE_OUT.length());
      } else if (!part.isBlank()) {
        rest.append(rest.isEmpty() ? "" : ",").append(part);
      }
    }
    if (!start(rest.toString(), inst, true) || tableOut == null) {
      return;
    }
    try {
      // Through the bridge: an agent started earlier from another copy of the jar answers too.
      Class<?> bridge = Class.forName(BRIDGE_PACKAGE + "PoolBridge", true, null);
      @SuppressWarnings("unchecked")
      java.util.function.Function<String, String> controller =
          (java.util.function.Function<String, String>) bridge.getField("controller").get(null);
      String command = tableOut.endsWith(".tsv") ? "tsv" : "table";
      Files.writeString(Path.of(tableOut), controller == null ? "lanes-agent: not running\n"
          : controller.apply(command));
    } catch (Exception e) {
      System.err.println("lanes-agent: could not write the table to " + tableOut + ": " + e);
    }
  }

  /** Starts the agent unless it runs already; false if it is off (bad option, failure). */
  private static boolean start(String args, Instrumentation inst, boolean attached) {
    AgentOptions options;
    try {
      options = AgentOptions.parse(args);
    } catch (AgentOptions.BadOption e) {
      System.err.println("lanes-agent: " + e.getMessage()
          + "; the agent is off and the application starts without it");
      return false;
    }
    try {
      if (!bridgeLoaded()) {
        injectBridge(inst);
      } else if (isRunning()) {
        if (!attached) {
          System.err.println("lanes-agent: already running; the second -javaagent (options \""
              + (args == null ? "" : args) + "\") is ignored");
        }
        return true;
      }
      options.attached = attached;
      Agent.start(options, inst);
      return true;
    } catch (Throwable t) {
      System.err.println("lanes-agent: could not start (" + t
          + "); the agent is off and the application runs unchanged");
      return false;
    }
  }

  private static boolean bridgeLoaded() {
    try {
      Class.forName(BRIDGE_PACKAGE + "PoolBridge", false, null);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static boolean isRunning() throws ReflectiveOperationException {
    Class<?> bridge = Class.forName(BRIDGE_PACKAGE + "PoolBridge", false, null);
    return bridge.getField("controller").get(null) != null;
  }

  /** Puts the bridge's classes in the bootstrap class loader (through a temporary jar). */
  private static void injectBridge(Instrumentation inst) throws Exception {
    Set<String> names = new LinkedHashSet<>();
    for (String c : BRIDGE_CLASSES) {
      names.add(BRIDGE_PACKAGE + c);
    }
    Path dir = Files.createTempDirectory("lanes-agent");
    dir.toFile().deleteOnExit();
    ClassInjector.UsingInstrumentation
        .of(dir.toFile(), ClassInjector.UsingInstrumentation.Target.BOOTSTRAP, inst)
        .injectRaw(names, ClassFileLocator.ForClassLoader.of(LanesAgent.class.getClassLoader()));
    Class<?> bridge = Class.forName(BRIDGE_PACKAGE + "PoolBridge", true, null);
    if (bridge.getClassLoader() != null) {
      throw new IllegalStateException("the bridge was not loaded by the bootstrap class loader");
    }
  }
}
