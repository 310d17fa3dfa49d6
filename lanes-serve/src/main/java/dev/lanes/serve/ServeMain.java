package dev.lanes.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Entry point of {@code lanes-serve.jar}: {@code serve} starts the demo server, {@code load}
 * drives it. The {@code ./lanes serve} and {@code ./lanes load} launcher commands call these.
 */
@Command(
    name = "lanes",
    mixinStandardHelpOptions = true,
    version = "lanes-serve 0.1.0",
    description = "The lanes demo server and its load generator.",
    subcommands = {ServeMain.Serve.class, ServeMain.Load.class})
public final class ServeMain implements Runnable {

  /** Exit status for bad input (as picocli uses for usage errors). */
  static final int BAD_INPUT = 2;

  @Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    quietNetty();
    System.exit(commandLine().execute(args));
  }

  /**
   * Keeps the Redis client's Netty off {@code sun.misc.Unsafe} (unless the user chose otherwise),
   * so JDK 24+ prints no warning about it; Netty then uses the JDK's public buffer API. Must run
   * before any Netty class loads. The lab's {@code LabMain} does the same.
   */
  static void quietNetty() {
    if (System.getProperty("io.netty.noUnsafe") == null) {
      System.setProperty("io.netty.noUnsafe", "true");
    }
  }

  /** An error the user can act on: one line, with what to try next. */
  static final class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String hint;

    UserError(String message, String hint, Throwable cause) {
      super(message, cause);
      this.hint = hint;
    }
  }

  /**
   * Every error is one line on stderr, {@code lanes <command>: <what is wrong>; <hint>}, and exit
   * status {@link #BAD_INPUT}; no usage dump, no stack trace.
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new ServeMain());
    cl.setParameterExceptionHandler((ex, params) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr().println(errorLine(c, ex.getMessage(), "try " + helpCommand(c)));
      c.getErr().flush();
      return BAD_INPUT;
    });
    cl.setExecutionExceptionHandler((e, line, parsed) -> {
      String hint = e instanceof UserError u ? u.hint : "try " + helpCommand(line);
      if (e instanceof UserError || e instanceof IllegalArgumentException || e instanceof IOException) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        line.getErr().println(errorLine(line, message, hint));
        line.getErr().flush();
        return BAD_INPUT;
      }
      throw e;
    });
    return cl;
  }

  static String errorLine(CommandLine c, String message, String hint) {
    String prefix = c.getParent() == null ? "lanes" : "lanes " + c.getCommandName();
    String one = message.strip().replaceAll("\\s*\\R\\s*", " ");
    return prefix + ": " + one + (one.endsWith(".") ? " " : "; ") + hint;
  }

  private static String helpCommand(CommandLine c) {
    return c.getParent() == null ? "./lanes help" : "./lanes " + c.getCommandName() + " --help";
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "say serve or load (see --help)");
  }

  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      description = {
        "Starts the demo HTTP server: /fast, /slow?ms=, /cpu?ms=, /call?ms=[&cpu=], /stats.json,"
            + " /metrics (Prometheus) and a live page at /.",
        "Runs until Ctrl-C.",
        "With --server tomcat, tomcat-virtual or netty, ./lanes serve starts the Spring Boot demo"
            + " (lanes-serve-boot) instead; its options: ./lanes serve --server tomcat --help."
      },
      footer = {"", "Exit status: 0 after Ctrl-C; 2 on any error, said in one line on stderr with a hint"
          + " (a port already in use names the port)."})
  static final class Serve implements Callable<Integer> {

    @Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--server", defaultValue = "jdk", paramLabel = "jdk|tomcat|tomcat-virtual|netty",
        description = "jdk: this server, on the JDK's HttpServer (default). tomcat (200 platform threads),"
            + " tomcat-virtual, netty (WebFlux): the same endpoints on Spring Boot with Actuator, started by"
            + " ./lanes serve (not by this jar).")
    String server;

    @Option(names = "--mode", defaultValue = "lanes", paramLabel = "shared|lanes",
        description = "shared: every endpoint on one pool of --threads threads; lanes: a lane per endpoint,"
            + " /call staged over an IO lane and the CPU lane (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
        description = "Address to listen on (default: ${DEFAULT-VALUE}). UNSAFE beyond loopback: the server"
            + " has no authentication and burns CPU and threads on request.")
    String bind;

    @Option(names = "--threads", defaultValue = "16",
        description = "Threads of the shared pool (shared mode) or of the slow lane (lanes mode), 1 to 1000"
            + " (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--queue", defaultValue = "1000",
        description = "Queue capacity of each endpoint lane, 1 to 100000; a full queue answers 503"
            + " (default: ${DEFAULT-VALUE}).")
    int queue;

    @Option(names = "--redis", paramLabel = "URI",
        description = "Share the \"call\" lane's cap with every demo server on this Redis (module lanes-redis),"
            + " e.g. redis://127.0.0.1:6379; --mode lanes only. /call then waits for a global permit, and the live"
            + " page shows the shared cap's figures. Fail-fast while Redis is away (/call answers 503).")
    String redis;

    @Option(names = "--shared-cap", defaultValue = "20", paramLabel = "N",
        description = "With --redis: the most /call requests calling out at once across every server sharing"
            + " the cap, 1 to 100 (default: ${DEFAULT-VALUE}).")
    int sharedCap;

    @Override
    public Integer call() throws Exception {
      if (!server.equals("jdk")) {
        if (!java.util.List.of("tomcat", "tomcat-virtual", "netty").contains(server)) {
          throw new IllegalArgumentException(
              "--server must be jdk, tomcat, tomcat-virtual or netty, was \"" + server + "\"");
        }
        throw new UserError("--server " + server + " is the Spring Boot demo, which this jar does not contain",
            "start it with ./lanes serve --server " + server, null);
      }
      DemoServer.Config config = new DemoServer.Config(parseMode(mode), bind, port, threads, queue, redis,
          redis == null ? 0 : sharedCap);
      PrintWriter out = spec.commandLine().getOut();
      if (!LoadGenerator.isLoopback(bind)) {
        spec.commandLine().getErr().println("lanes serve: WARNING: listening on " + bind
            + ", beyond loopback; anyone who can reach it can make it burn CPU and threads.");
      }
      DemoServer server;
      try {
        server = DemoServer.start(config);
      } catch (java.net.BindException e) {
        throw new UserError("port " + port + " on " + bind + ": " + e.getMessage(),
            "try another --port, or --port 0 for any free one", e);
      }
      Thread hook = new Thread(server::close, "lanes-serve-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      out.printf(Locale.ROOT, "lanes serve: mode %s on %s  (lanes: %s)%n", config.mode().tag(), server.url(),
          String.join(", ", server.lanes().names()));
      if (redis != null) {
        out.printf(Locale.ROOT, "  lane call: shared cap %d on %s (%s)%n", sharedCap, redis, server.sharedHealth());
      }
      out.printf(Locale.ROOT, "  live page %s/   figures %s/stats.json   Prometheus %s/metrics%n",
          server.url(), server.url(), server.url());
      out.printf(Locale.ROOT, "  try: ./lanes load --url %s --scenario noisy-neighbour   (Ctrl-C stops)%n", server.url());
      out.flush();
      server.awaitClose();
      return 0;
    }

    static DemoServer.Mode parseMode(String mode) {
      return switch (mode.toLowerCase(Locale.ROOT)) {
        case "shared" -> DemoServer.Mode.SHARED;
        case "lanes" -> DemoServer.Mode.LANES;
        default -> throw new IllegalArgumentException("--mode must be shared or lanes, was \"" + mode + "\"");
      };
    }
  }

  @Command(
      name = "load",
      mixinStandardHelpOptions = true,
      description = {
        "Drives the demo server with a bounded scenario and prints, per endpoint, the latency the client"
            + " saw beside the server's queue-wait and run-time figures for the same requests.",
        "Scenarios: noisy-neighbour (a burst of slow requests, a pause, a burst of fast ones)."
      },
      footer = {"", "Exit status: 0 when the run ended (even cut short by --max-seconds); 2 on any error,"
          + " said in one line on stderr with a hint (no server at the address: \"no server at …\")."})
  static final class Load implements Callable<Integer> {

    @Spec CommandLine.Model.CommandSpec spec;

    static final String DEFAULT_URL = "http://127.0.0.1:8080";

    @Option(names = "--url", description = "The server (default: " + DEFAULT_URL + "); loopback only unless"
        + " --allow-remote.")
    String url;

    @Option(names = "--port", description = "The server's port on 127.0.0.1, as given to ./lanes serve --port;"
        + " short for --url http://127.0.0.1:PORT.")
    Integer port;

    @Option(names = "--scenario", defaultValue = "noisy-neighbour", description = "Scenario name (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--slow-count", defaultValue = "200", description = "Slow requests, 1 to 10000 (default: ${DEFAULT-VALUE}).")
    int slowCount;

    @Option(names = "--slow-ms", defaultValue = "1000", description = "How long each slow request sleeps on the server,"
        + " 0 to 10000 ms (default: ${DEFAULT-VALUE}).")
    long slowMs;

    @Option(names = "--slow-rate", defaultValue = "1000", description = "Slow requests sent per second, 1 to 100000"
        + " (default: ${DEFAULT-VALUE}).")
    int slowRate;

    @Option(names = "--pause-ms", defaultValue = "500", description = "Pause between the bursts, 0 to 60000 ms"
        + " (default: ${DEFAULT-VALUE}).")
    long pauseMs;

    @Option(names = "--fast-count", defaultValue = "200", description = "Fast requests, 1 to 10000 (default: ${DEFAULT-VALUE}).")
    int fastCount;

    @Option(names = "--fast-rate", defaultValue = "1000", description = "Fast requests sent per second, 1 to 100000"
        + " (default: ${DEFAULT-VALUE}).")
    int fastRate;

    @Option(names = "--max-in-flight", defaultValue = "1000", description = "Most requests outstanding at once,"
        + " 1 to 5000 (default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--max-seconds", defaultValue = "60", description = "The whole run ends by then, 1 to 600;"
        + " what is still outstanding is aborted (default: ${DEFAULT-VALUE}).")
    int maxSeconds;

    @Option(names = "--allow-remote", description = "Allow a host other than loopback.")
    boolean allowRemote;

    @Option(names = "--no-reset", description = "Do not reset the server's endpoint figures before the run.")
    boolean noReset;

    /** The last run's result (for tests that go through the command line). */
    LoadResult result;

    @Override
    public Integer call() throws Exception {
      if (!Scenario.NAMES.contains(scenario)) {
        throw new IllegalArgumentException("unknown scenario \"" + scenario + "\"; known: " + String.join(", ", Scenario.NAMES));
      }
      if (port != null && url != null) {
        throw new IllegalArgumentException("give --url or --port, not both");
      }
      if (port != null && (port < 1 || port > 65_535)) {
        throw new IllegalArgumentException("--port must be between 1 and 65535, was " + port);
      }
      String target = port != null ? "http://127.0.0.1:" + port : url != null ? url : DEFAULT_URL;
      URI uri;
      try {
        uri = new URI(target);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("--url is not a URL: " + e.getMessage());
      }
      LoadGenerator.Options options = new LoadGenerator.Options(uri, maxInFlight, maxSeconds, allowRemote, !noReset);
      Scenario s = Scenario.noisyNeighbour(slowCount, slowMs, slowRate, pauseMs, fastCount, fastRate);
      try {
        result = LoadGenerator.run(s, options);
      } catch (java.net.ConnectException e) {
        throw new UserError("no server at " + uri + " (connection refused)",
            "start one with ./lanes serve" + (uri.getPort() > 0 ? " --port " + uri.getPort() : "")
                + ", or give its --port or --url", e);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(result.toText());
      out.flush();
      return 0;
    }
  }
}
