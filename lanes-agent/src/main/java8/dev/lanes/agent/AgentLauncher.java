package dev.lanes.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;

/**
 * The agent jar's entry points for the JVM ({@code Premain-Class}, {@code Agent-Class}) and for
 * {@code java -jar} ({@code Main-Class}), compiled for Java 8 so that any JVM can load it: on a
 * JVM older than {@value #MIN_JAVA} it says so in one line and does nothing else (the application
 * runs on as if no agent were given, with its own exit code); on a newer one it hands over to
 * {@link LanesAgent} or {@link AttachMain}, which are compiled for Java {@value #MIN_JAVA}.
 *
 * <p>Uses nothing newer than Java 8, and names the other classes only through reflection: a
 * direct reference would make an older JVM load them before the version check.
 */
public final class AgentLauncher {
  /** The oldest Java the agent runs on (its classes are compiled for it). */
  static final int MIN_JAVA = 21;

  private AgentLauncher() {}

  public static void premain(String args, Instrumentation inst) {
    handOver("premain", args, inst);
  }

  public static void agentmain(String args, Instrumentation inst) {
    handOver("agentmain", args, inst);
  }

  public static void main(String[] args) throws Throwable {
    int java = javaVersion();
    if (java < MIN_JAVA) {
      System.err.println("lanes attach: needs Java " + MIN_JAVA + " or newer to run; this is Java "
          + java + " (" + System.getProperty("java.home") + "); ./lanes attach finds a newer one");
      System.exit(1);
    }
    try {
      Class.forName("dev.lanes.agent.AttachMain").getMethod("main", String[].class)
          .invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void handOver(String method, String args, Instrumentation inst) {
    int java = javaVersion();
    if (java < MIN_JAVA) {
      System.err.println("lanes-agent: needs Java " + MIN_JAVA + " or newer; this JVM runs Java "
          + java + " (" + System.getProperty("java.vm.vendor") + " "
          + System.getProperty("java.version") + "): the agent is off and the application runs"
          + " without it");
      return;
    }
    try {
      Class.forName("dev.lanes.agent.LanesAgent")
          .getMethod(method, String.class, Instrumentation.class).invoke(null, args, inst);
    } catch (InvocationTargetException e) {
      System.err.println("lanes-agent: could not start (" + e.getCause()
          + "); the agent is off and the application runs unchanged");
    } catch (ReflectiveOperationException | LinkageError e) {
      System.err.println("lanes-agent: could not start (" + e
          + "); the agent is off and the application runs unchanged");
    }
  }

  /** The JVM's feature version: 8 for "1.8", 17 for "17", 0 if unreadable. */
  static int javaVersion() {
    String spec = System.getProperty("java.specification.version", "");
    if (spec.startsWith("1.")) {
      spec = spec.substring(2);
    }
    try {
      return Integer.parseInt(spec);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
