package dev.lanes.agent;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * The JVM {@code ./lanes attach <pid>} talks to: checked before the attach API touches it, its
 * agent loaded at most once, and its control channel ({@link ControlChannel}) found. Each way to
 * fail is one line ({@link Failure}) naming the pid and the reason.
 *
 * <p>The checks come first because attaching to a process that is no JVM sends it {@code SIGQUIT},
 * which ends most programs: only a pid the JDK lists as a JVM of this user is attached to.
 */
final class AttachTarget {
  /** The oldest Java the agent runs on. */
  static final int NEEDS_JAVA = 21;

  /** One line for the user, without a stack trace. */
  static final class Failure extends Exception {
    Failure(String message) {
      super(message);
    }
  }

  private final String pid;
  private final VirtualMachine vm;
  private final Properties properties;

  private AttachTarget(String pid, VirtualMachine vm, Properties properties) {
    this.pid = pid;
    this.vm = vm;
    this.properties = properties;
  }

  /**
   * Attaches to {@code pid} after checking it is a JVM this user may attach to and that it runs
   * Java {@value #NEEDS_JAVA} or newer (read from its system properties: that loads nothing).
   */
  static AttachTarget attach(String pid) throws Failure {
    Optional<ProcessHandle> process;
    try {
      process = ProcessHandle.of(Long.parseLong(pid));
    } catch (NumberFormatException e) {
      process = Optional.empty();
    }
    if (process.isEmpty()) {
      throw new Failure("no process " + pid + " (./lanes attach --list shows the JVMs this user"
          + " can attach to)");
    }
    boolean listed = VirtualMachine.list().stream().anyMatch(d -> d.id().equals(pid));
    if (!listed) {
      String me = System.getProperty("user.name");
      String owner = process.get().info().user().orElse("another user");
      if (!owner.equals(me) && !me.equals("root")) {
        throw new Failure("not permitted: process " + pid + " runs as " + owner + ", lanes attach"
            + " as " + me + "; the JDK lets only the same user attach");
      }
      String command = process.get().info().command().map(c -> " (" + Path.of(c).getFileName() + ")")
          .orElse("");
      throw new Failure("process " + pid + command + " is not a JVM this user can attach to"
          + " (./lanes attach --list shows those)");
    }
    VirtualMachine vm;
    Properties properties;
    try {
      vm = VirtualMachine.attach(pid);
    } catch (Exception e) {
      throw new Failure("could not attach to " + pid + ": " + e.getMessage());
    }
    try {
      properties = vm.getSystemProperties();
    } catch (IOException e) {
      detach(vm);
      throw new Failure("could not read the system properties of " + pid + ": " + e.getMessage());
    }
    String version = properties.getProperty("java.specification.version", "?");
    if (major(version) < NEEDS_JAVA) {
      detach(vm);
      throw new Failure("the agent needs Java " + NEEDS_JAVA + " or newer; " + pid + " runs Java "
          + version);
    }
    return new AttachTarget(pid, vm, properties);
  }

  /** 8 for "1.8", 17 for "17"; 0 if unreadable. */
  static int major(String specificationVersion) {
    String v = specificationVersion.startsWith("1.") ? specificationVersion.substring(2)
        : specificationVersion;
    try {
      return Integer.parseInt(v.replaceAll("\\..*", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The agent's control socket in the target, or null when no agent with one runs there. */
  Path controlSocket() {
    String path = properties.getProperty(ControlChannel.PROPERTY);
    return path == null ? null : Path.of(path);
  }

  /** Loads the agent jar with {@code args}; then re-reads the target's properties. */
  void load(Path jar, String args) throws Failure {
    try {
      vm.loadAgent(jar.toString(), args);
      properties.clear();
      properties.putAll(vm.getSystemProperties());
    } catch (Exception e) {
      throw new Failure("could not load the agent into " + pid + ": " + e.getMessage());
    }
  }

  void detach() {
    detach(vm);
  }

  private static void detach(VirtualMachine vm) {
    try {
      vm.detach();
    } catch (IOException e) {
      // the attach connection is closed either way
    }
  }
}
