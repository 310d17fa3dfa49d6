package dev.lanes.agent;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code java -jar lanes-agent.jar attach <pid> [--table|--tsv] [--options OPTS]} (what {@code
 * ./lanes attach} runs): loads the agent into a running JVM, which measures its pools from then
 * on; with {@code --table}, prints that JVM's pool table here (loading the agent first if needed).
 */
public final class AttachMain {
  private AttachMain() {}

  static final String USAGE = """
      usage: ./lanes attach <pid> [--table | --tsv] [--options OPTIONS]
             ./lanes attach --list

      Loads the lanes agent into the running JVM <pid> (same user, JDK 21+): from then on it
      measures that JVM's thread pools (queue wait, run time, saturation, deadlocks), as
      -javaagent:lanes-agent.jar would from the start. Tasks queued before the attach have an
      unknown wait. Loading it again does nothing; the agent cannot be unloaded.

        --table          print the pool table of <pid> here (attaching first if needed)
        --tsv            the same figures as tab-separated values
        --options OPTS   the agent's options, as after -javaagent:lanes-agent.jar= (first attach only):
                         %s
        --list           list the JVMs this user can attach to

      The JDK prints a warning in the target JVM when an agent is loaded into it after start-up
      (JEP 451); start that JVM with -XX:+EnableDynamicAgentLoading to allow it silently.
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
    } catch (AgentOptions.BadOption e) {
      System.err.println("lanes attach: " + e.getMessage());
      return 2;
    }
    Path jar = Path.of(AttachMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path out = mode == null ? null : Files.createTempFile("lanes-agent-table", mode.equals("tsv") ? ".tsv" : ".txt");
    String agentArgs = options + (out == null ? "" : (options.isEmpty() ? "" : ",") + LanesAgent.TABLE_OUT + out);
    VirtualMachine vm = VirtualMachine.attach(pid);
    try {
      vm.loadAgent(jar.toString(), agentArgs);
    } finally {
      vm.detach();
    }
    if (out != null) {
      System.out.print(Files.readString(out));
      Files.deleteIfExists(out);
    } else {
      System.err.println("lanes attach: the agent runs in " + pid + "; ./lanes attach " + pid
          + " --table prints its pools");
    }
    return 0;
  }
}
