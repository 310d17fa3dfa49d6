package dev.lanes.lab;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./lanes lab}: parses the command line and runs the {@link Lab}. */
@Command(
    name = "lanes lab",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Runs the classic thread-pool experiments on this machine, measured with lanes' own wait,"
          + " run and CPU figures, and writes a report: index.html (charts, tables, verdicts;"
          + " opens from disk), summary.json, <id>.csv and <id>-tasks.csv.",
      "",
      "The network experiments call an HTTP server the lab starts on 127.0.0.1; file IO goes to a"
          + " temporary folder that is removed afterwards. Verdicts are computed from the"
          + " measurements: when this machine does not show the expected effect, the report says"
          + " so.",
      ""
    },
    footer = {
      "",
      "Examples:",
      "  ./lanes lab --quick                 everything, scaled down (about 2 minutes)",
      "  ./lanes lab --only E5,E8 --out /tmp/r",
      "  ./lanes lab --list",
      "",
      "Exit status: 0 when every experiment ran (whether or not its claim held), 1 when one"
          + " failed to run, 2 on bad options (one line on stderr: what is wrong and a hint).",
      "",
      "Progress: one line redrawn in place when LANES_COLUMNS gives the terminal's width (./lanes"
          + " sets it on a terminal), otherwise one plain line per experiment."
    })
public final class LabMain implements Callable<Integer> {

  @Option(names = "--quick", description = "Run every experiment scaled down (about 2 minutes on 2 cores; the full run about 6).")
  boolean quick;

  @Option(names = "--only", split = ",", paramLabel = "E1,E5", hideParamSyntax = true, description = "Run only these experiments (ids from --list).")
  List<String> only;

  @Option(names = "--list", description = "List the experiments with their questions, and exit.")
  boolean list;

  @Option(names = "--out", paramLabel = "DIR", description = "Report folder (default: ${DEFAULT-VALUE}); created if missing. The files an earlier lab run wrote there are replaced (its other files are left alone).")
  Path out = Path.of("lanes-report");

  @Option(names = "--seed", paramLabel = "N", description = "Seed for every random choice (default: ${DEFAULT-VALUE}).")
  long seed = 42;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  private final PrintStream stdout;
  private final PrintStream stderr;

  LabMain(PrintStream stdout, PrintStream stderr) {
    this.stdout = stdout;
    this.stderr = stderr;
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    // E13's Redis client runs on Netty: keep it off sun.misc.Unsafe (unless the user chose
    // otherwise), so JDK 24+ prints no warning about it. Must run before any Netty class loads.
    if (System.getProperty("io.netty.noUnsafe") == null) {
      System.setProperty("io.netty.noUnsafe", "true");
    }
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the lab as the command line would, and returns the exit status. */
  public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
    CommandLine cli = new CommandLine(new LabMain(stdout, stderr));
    cli.setOut(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(stderr, true, StandardCharsets.UTF_8));
    cli.setParameterExceptionHandler(
        (ex, params) -> {
          CommandLine c = ex.getCommandLine();
          c.getErr().println(error(ex.getMessage(), "try --help"));
          c.getErr().flush();
          return 2;
        });
    return cli.execute(args);
  }

  /** Every command-line error is one line: the command, what is wrong, and where to look next. */
  static String error(String message, String hint) {
    String one = message.strip().replaceAll("\\s*\\R\\s*", " ");
    return "lanes lab: " + one + (one.endsWith(".") ? "" : ";") + " " + hint;
  }

  @Override
  public Integer call() throws Exception {
    List<Experiment> all = Experiments.all();
    if (list) {
      for (Experiment e : all) {
        stdout.println(e.id() + "  " + e.question());
      }
      return 0;
    }
    List<Experiment> chosen = new ArrayList<>();
    if (only == null || only.isEmpty()) {
      chosen.addAll(all);
    } else {
      for (String id : only) {
        String wanted = id.trim().toUpperCase(Locale.ROOT);
        Experiment e = all.stream().filter(x -> x.id().equals(wanted)).findFirst().orElse(null);
        if (e == null) {
          stderr.println(error("unknown experiment '" + id + "' in --only; known: "
              + String.join(",", all.stream().map(Experiment::id).toList()), "try --list"));
          return 2;
        }
        if (!chosen.contains(e)) {
          chosen.add(e);
        }
      }
    }
    // Fail now, not after minutes of experiments, if the report cannot be written there.
    try {
      java.nio.file.Files.createDirectories(out);
    } catch (java.io.IOException | RuntimeException e) {
      stderr.println(error("cannot use '" + out + "' as the report folder (--out): " + e, "try another --out"));
      return 2;
    }
    if (!java.nio.file.Files.isWritable(out)) {
      stderr.println(error("the report folder '" + out + "' (--out) is not writable", "try another --out"));
      return 2;
    }
    return new Lab(quick, seed, out, stdout, stderr, Progress.columnsFromEnvironment()).run(chosen);
  }
}
