package dev.lanes.agent;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code java -jar lanes-agent.jar attach <pid> [--table|--tsv|--set ...] [--options OPTS]} (what
 * {@code ./lanes attach} runs): loads the agent into a running JVM, which measures its pools from
 * then on; with {@code --table}, prints that JVM's pool table here; with {@code --set}, changes a
 * pool's size. The agent is loaded once: later commands go through its control channel ({@link
 * ControlChannel}), so the JDK's dynamic-agent warning appears once in the application's log.
 */
public final class AttachMain {
  private AttachMain() {}

  static final String USAGE = """
      usage: ./lanes attach <pid> [--table | --tsv] [--options OPTIONS]
             ./lanes attach <pid> --set <pool> [core=N] [max=N] [queue-capacity=N]
             ./lanes attach --list

      Loads the lanes agent into the running JVM <pid> (same user, Java 21+): from then on it
      measures that JVM's thread pools (queue wait, run time, saturation, deadlocks), as
      -javaagent:lanes-agent.jar would from the start. Tasks queued before the attach have an
      unknown wait. The agent is loaded once; later commands talk to it over a socket only this
      user can open. It cannot be unloaded.

        --table          print the pool table of <pid> here (attaching first if needed)
        --tsv            the same figures as tab-separated values
        --set POOL core=N max=N queue-capacity=N
                         change a ThreadPoolExecutor's (the JDK's or Tomcat's) size while it runs;
                         core and max are set in the order that never throws; raising core starts
                         threads for queued tasks; refused with the reason for other pools, for a
                         queue whose capacity is fixed (the JDK's queues) and for core > max.
                         The change is logged in <pid>'s log and listed under its table.
        --options OPTS   the agent's options, as after -javaagent:lanes-agent.jar= (first attach only):
                         %s
        --list           list the JVMs this user can attach to

      A failure is one line and a non-zero exit: no such process, not a JVM, not permitted
      (another user's process), a JVM older than Java 21.
      The JDK prints a warning in the target JVM when an agent is loaded into it after start-up
      (JEP 451), once; start that JVM with -XX:+EnableDynamicAgentLoading to allow it silently.
      """.formatted(AgentOptions.ACCEPTED);

  public static void main(String[] args) throws Exception {
    int status = run(args);
    if (status != 0) {
      System.exit(status);
    }
  }

  static int run(String[] args) throws Exception {
    int i = 0;
    if (i < args.length && args[i].equals("attach")) {
      i++;
    }
    String pid = null;
    String mode = null;
    String options = "";
    java.util.List<String> set = new java.util.ArrayList<>();
    for (; i < args.length; i++) {
      switch (args[i]) {
        case "-h", "--help" -> {
          System.out.print(USAGE);
          return 0;
        }
        case "--list" -> {
          for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            System.out.println(d.id() + "  " + d.displayName());
          }
          return 0;
        }
        case "--table" -> mode = "table";
        case "--tsv" -> mode = "tsv";
        case "--set" -> {
          if (++i == args.length) {
            System.err.println("lanes attach: --set needs a pool's name and core=N, max=N or"
                + " queue-capacity=N; try ./lanes attach --help");
            return 2;
          }
          mode = "set";
          set.add(args[i]);
          while (i + 1 < args.length && args[i + 1].contains("=") && !args[i + 1].startsWith("-")) {
            set.add(args[++i]);
          }
        }
        case "--options" -> {
          if (++i == args.length) {
            System.err.println("lanes attach: --options needs a value; try ./lanes attach --help");
            return 2;
          }
          options = args[i];
        }
        default -> {
          if (args[i].startsWith("-") || pid != null || !args[i].matches("\\d+")) {
            System.err.println("lanes attach: unexpected argument \"" + args[i]
                + "\" (a pid is a number); try ./lanes attach --help");
            return 2;
          }
          pid = args[i];
        }
      }
    }
    if (pid == null) {
      System.err.println("lanes attach: which JVM? give its pid (./lanes attach --list shows them);"
          + " try ./lanes attach --help");
      return 2;
    }
    try {
      AgentOptions.parse(options);
      if (mode != null && mode.equals("set")) {
        PoolResize.settings(set.subList(1, set.size()));
      }
    } catch (AgentOptions.BadOption | PoolResize.Refused e) {
      System.err.println("lanes attach: " + e.getMessage());
      return 2;
    }
    Path jar = Path.of(AttachMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try {
      return command(pid, jar, options, mode, set);
    } catch (AttachTarget.Failure e) {
      System.err.println("lanes attach: " + e.getMessage());
      return 1;
    }
  }

  private static int command(String pid, Path jar, String options, String mode, java.util.List<String> set)
      throws AttachTarget.Failure, IOException {
    AttachTarget target = AttachTarget.attach(pid);
    Path socket;
    try {
      socket = target.controlSocket();
      if (socket == null) {
        target.load(jar, options);
        socket = target.controlSocket();
        if (socket == null && mode != null && !mode.equals("set")) {
          return tableByLoading(target, jar, mode); // an agent without a control channel
        }
      } else if (!options.isEmpty()) {
        System.err.println("lanes attach: the agent runs already in " + pid + "; --options \""
            + options + "\" ignored (they apply when it starts)");
      }
    } finally {
      target.detach();
    }
    if (mode == null) {
      System.err.println("lanes attach: the agent runs in " + pid + "; ./lanes attach " + pid
          + " --table prints its pools");
      return 0;
    }
    if (socket == null) {
      throw new AttachTarget.Failure("the agent in " + pid + " has no control channel (see its"
          + " log); --set needs it");
    }
    java.util.List<String> words = new java.util.ArrayList<>();
    words.add(mode);
    words.addAll(set);
    ControlChannel.Answer answer;
    try {
      answer = ControlChannel.ask(socket, words.toArray(String[]::new));
    } catch (IOException e) {
      throw new AttachTarget.Failure("could not reach the agent in " + pid + " through " + socket
          + ": " + e.getMessage());
    }
    if (!answer.ok()) {
      System.err.println("lanes attach: " + answer.text());
      return 1;
    }
    System.out.print(answer.text());
    return 0;
  }

  /** The table through a second load that writes it to a file (an agent with no channel). */
  private static int tableByLoading(AttachTarget target, Path jar, String mode)
      throws AttachTarget.Failure, IOException {
    Path out = Files.createTempFile("lanes-agent-table", mode.equals("tsv") ? ".tsv" : ".txt");
    try {
      target.load(jar, LanesAgent.TABLE_OUT + out);
      System.out.print(Files.readString(out));
      return 0;
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
