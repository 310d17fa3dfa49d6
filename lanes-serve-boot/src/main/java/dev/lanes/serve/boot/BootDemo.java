package dev.lanes.serve.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The demo server on Spring Boot with the lanes starter, on the servers people run: Tomcat with
 * its 200 platform threads, Tomcat on virtual threads, or WebFlux on Netty — with one shared pool
 * for every endpoint, or a lane per endpoint.
 *
 * <pre>
 * java -jar lanes-serve-boot/target/lanes-serve-boot.jar --server tomcat --mode shared
 * </pre>
 */
@SpringBootApplication
@Command(
    name = "lanes serve --server tomcat|tomcat-virtual|netty",
    mixinStandardHelpOptions = true,
    version = "lanes-serve-boot 0.1.0",
    description = {
      "The demo server on Spring Boot with the lanes starter and Actuator, on 127.0.0.1 by default.",
      "Endpoints: /fast, /slow?ms=N (sleeps), /cpu?ms=N (spins); the live page at /; /stats.json"
          + " (every lane, and per endpoint the queue wait and run time since POST /stats/reset);"
          + " /series.json; /actuator/metrics/http.server.requests, /actuator/prometheus,"
          + " /actuator/lanes, /actuator/health.",
      "Drive it with ./lanes load --port PORT --scenario noisy-neighbour."
    },
    footer = {"", "Without --server, ./lanes serve starts the JDK-HttpServer demo instead (./lanes serve --help).",
        "Exit status: 2 on bad options or a port in use, said in one line on stderr with a hint."})
public class BootDemo implements Callable<Integer> {

  /** Which web server runs the requests. */
  public enum Server {
    /** Spring MVC on Tomcat; Tomcat's request executor is lane "http" of 200 platform threads (Tomcat's default size). */
    tomcat,
    /** Spring MVC on Tomcat; lane "http" is a virtual lane (a virtual thread per request, capped). */
    tomcat_virtual,
    /** WebFlux on Reactor Netty; handlers run on lane schedulers (never on the event loop). */
    netty
  }

  /** How endpoints share threads. */
  public enum Mode {
    /** Every endpoint on one pool: Tomcat's request threads, or lane "shared" on Netty. */
    shared,
    /** A lane per endpoint: fast, slow, cpu. */
    lanes
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", description = "tomcat (Spring MVC, Tomcat's 200 request threads as lane http),"
      + " tomcat-virtual (lane http on virtual threads) or netty (WebFlux) (default when the jar runs: ${DEFAULT-VALUE})",
      defaultValue = "tomcat", converter = ServerConverter.class)
  Server server;

  @Option(names = "--mode", description = "shared or lanes (default: ${DEFAULT-VALUE})", defaultValue = "lanes")
  Mode mode;

  @Option(names = "--port", description = "port, 0 for a free one (default: ${DEFAULT-VALUE})", defaultValue = "8080")
  int port;

  @Option(names = "--bind", description = "address to listen on (default: ${DEFAULT-VALUE}); unsafe beyond loopback: any caller can make it sleep and spin",
      defaultValue = "127.0.0.1")
  String bind;

  @Option(names = "--threads", description = "threads of the shared pool (netty) and of lane slow, 1 to 1000 (default: ${DEFAULT-VALUE})",
      defaultValue = "16")
  int threads;

  static final class ServerConverter implements CommandLine.ITypeConverter<Server> {
    @Override
    public Server convert(String value) {
      try {
        return Server.valueOf(value.replace('-', '_'));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a server; use tomcat, tomcat-virtual or netty");
      }
    }
  }

  /** Exit status for bad input, as the other ./lanes commands use. */
  static final int BAD_INPUT = 2;

  /** An error the user can act on: one line, with what to try next. */
  static final class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UserError(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The command line as {@code ./lanes serve --server ...} runs it: every error is one line on
   * stderr, {@code lanes serve: <what is wrong>; <hint>}, and exit status {@link #BAD_INPUT}.
   */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new BootDemo()).setCaseInsensitiveEnumValuesAllowed(false);
    cli.setParameterExceptionHandler((ex, params) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr().println(oneLine(ex.getMessage()) + "; try ./lanes serve --server tomcat --help");
      c.getErr().flush();
      return BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((e, c, parsed) -> {
      if (e instanceof UserError) {
        c.getErr().println(e.getMessage());
        c.getErr().flush();
        return BAD_INPUT;
      }
      throw e;
    });
    return cli;
  }

  private static String oneLine(String message) {
    return "lanes serve: " + message.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  public static void main(String[] args) {
    CommandLine cli = commandLine();
    int rc = cli.execute(args);
    if (rc != 0) {
      System.exit(rc);
    }
    // 0: the server runs until the JVM is stopped (Ctrl-C runs Spring's graceful shutdown).
  }

  @Override
  public Integer call() {
    validate();
    ConfigurableApplicationContext context;
    try {
      context = start(this, Map.of(
          // A port in use is said in one line below, not in Spring Boot's failure report.
          "logging.level.org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter", "off"));
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof org.springframework.boot.web.server.PortInUseException) {
          throw new UserError(oneLine("port " + port + " on " + bind + " is already in use;"
              + " try another --port, or --port 0 for any free one"));
        }
      }
      throw e;
    }
    String url = "http://" + bind + ":" + context.getEnvironment().getProperty("local.server.port");
    System.out.println("lanes serve: " + tag(server) + " / " + mode + " on " + url + "  (Spring Boot; Ctrl-C stops)");
    System.out.println("  live page " + url + "/   figures " + url + "/stats.json   Actuator " + url
        + "/actuator/metrics/http.server.requests");
    System.out.println("  try: ./lanes load --url " + url + " --scenario noisy-neighbour");
    return 0;
  }

  void validate() {
    CommandLine cli = spec != null ? spec.commandLine() : new CommandLine(this);
    if (port < 0 || port > 65_535) {
      throw new CommandLine.ParameterException(cli, "--port must be between 0 and 65535, was " + port);
    }
    if (threads < 1 || threads > 1000) {
      throw new CommandLine.ParameterException(cli, "--threads must be between 1 and 1000, was " + threads);
    }
  }

  static String tag(Server server) {
    return server.name().replace('_', '-');
  }

  /** Starts the application for these options (tests call this with port 0). */
  static ConfigurableApplicationContext start(BootDemo o) {
    return start(o, Map.of());
  }

  /** Starts it with extra properties over the set-up's own (for tests). */
  static ConfigurableApplicationContext start(BootDemo o, Map<String, Object> extra) {
    SpringApplication app = new SpringApplication(BootDemo.class);
    app.setWebApplicationType(
        o.server == Server.netty ? WebApplicationType.REACTIVE : WebApplicationType.SERVLET);
    Map<String, Object> p = properties(o);
    p.putAll(extra);
    app.setDefaultProperties(p);
    return app.run();
  }

  /** The lanes and server settings for each set-up, as a user would write them in application.properties. */
  static Map<String, Object> properties(BootDemo o) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("server.address", o.bind);
    p.put("server.port", o.port);
    p.put("demo.server", tag(o.server));
    p.put("demo.mode", o.mode.name());
    p.put("management.endpoints.web.exposure.include", "health,lanes,metrics,prometheus");
    p.put("management.endpoint.health.show-details", "always");
    p.put("spring.main.banner-mode", "off");
    switch (o.server) {
      case tomcat -> {
        p.put("lanes.instances.http.kind", "blocking");
        p.put("lanes.instances.http.concurrency", 200);
        p.put("lanes.server.lane", "http");
      }
      case tomcat_virtual -> {
        p.put("lanes.instances.http.kind", "virtual");
        p.put("lanes.instances.http.concurrency", 10_000);
        p.put("lanes.server.lane", "http");
      }
      case netty ->
          p.put(
              "spring.autoconfigure.exclude",
              "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration,"
                  + "org.springframework.boot.tomcat.autoconfigure.actuate.web.server.TomcatReactiveManagementContextAutoConfiguration");
    }
    if (o.mode == Mode.shared) {
      if (o.server == Server.netty) {
        p.put("lanes.instances.shared.kind", "blocking");
        p.put("lanes.instances.shared.concurrency", o.threads);
        p.put("lanes.instances.shared.queue-capacity", 1000);
      }
    } else {
      p.put("lanes.instances.fast.kind", "blocking");
      p.put("lanes.instances.fast.concurrency", 2);
      p.put("lanes.instances.fast.queue-capacity", 1000);
      p.put("lanes.instances.slow.kind", "blocking");
      p.put("lanes.instances.slow.concurrency", o.threads);
      p.put("lanes.instances.slow.queue-capacity", 1000);
      p.put("lanes.instances.cpu.kind", "cpu");
      p.put("lanes.instances.cpu.queue-capacity", 1000);
    }
    return p;
  }
}
