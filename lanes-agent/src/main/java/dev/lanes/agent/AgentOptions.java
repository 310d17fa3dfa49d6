package dev.lanes.agent;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's options, from {@code -javaagent:lanes-agent.jar=opt1,opt2=value,...}. Each is
 * validated; a bad one makes {@link #parse} throw {@link BadOption} with one line naming the
 * option, the accepted values and the value given, and the agent stays off.
 */
final class AgentOptions {
  /** The accepted options, as {@code --help} and the error for an unknown option list them. */
  static final String ACCEPTED = "table, table-file=PATH (a file the agent can write, checked at"
      + " start; .tsv for tab-separated values), deadlock-check=DURATION (10ms..10s,"
      + " default 200ms), blocking-warn=DURATION (10ms..1h, default 1s), saturated-warn=DURATION"
      + " (1s..24h, default 10s), max-pools=N (1..10000, default 100), max-stamps=N"
      + " (1024..100000000, default 1000000), sample=N (1..1024, default 1: every task timed;"
      + " N: about 1 task in N of each thread pool timed (wait, run, CPU), task counts still"
      + " exact), port=N (0..65535, 0 picks a free one: the live"
      + " page on http://127.0.0.1:N/, Prometheus metrics on /metrics), verbose; options are"
      + " separated by commas, and a value in double quotes may hold commas:"
      + " table-file=\"/tmp/a,b.txt\"";

  boolean tableAtExit;
  Path tableFile;
  long deadlockCheckNanos = 200_000_000L;
  long blockingWarnNanos = 1_000_000_000L;
  long saturatedWarnNanos = 10_000_000_000L;
  long sweepAgeNanos = 10_000_000_000L;
  int maxPools = 100;
  int maxStamps = 1_000_000;
  /** Thread pools time about one task in this many (1: all). */
  int sample = 1;
  boolean verbose;
  /** Loopback port for /metrics; -1 when not asked for. */
  int port = -1;
  /** Loaded into a running JVM ({@code agentmain}), not from the command line. */
  boolean attached;

  /** One line naming the bad option; the agent does not start. */
  static final class BadOption extends Exception {
    BadOption(String message) {
      super(message);
    }
  }

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  static AgentOptions parse(String args) throws BadOption {
    AgentOptions o = new AgentOptions();
    if (args == null || args.isBlank()) {
      return o;
    }
    for (String part : split(args)) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      String name = eq < 0 ? item : item.substring(0, eq).trim();
      String value = eq < 0 ? null : unquote(item.substring(eq + 1).trim());
      switch (name) {
        case "table" -> o.tableAtExit = flag(name, value);
        case "verbose" -> o.verbose = flag(name, value);
        case "table-file" -> {
          if (value == null || value.isEmpty()) {
            throw new BadOption("option \"table-file\" needs a path (table-file=PATH)");
          }
          o.tableFile = writableFile(name, value);
        }
        case "deadlock-check" -> o.deadlockCheckNanos = duration(name, value, 10, 10_000, "200ms");
        case "blocking-warn" -> o.blockingWarnNanos = duration(name, value, 10, 3_600_000, "1s");
        case "saturated-warn" -> o.saturatedWarnNanos = duration(name, value, 1_000, 86_400_000, "10s");
        case "max-pools" -> o.maxPools = number(name, value, 1, 10_000);
        case "max-stamps" -> o.maxStamps = number(name, value, 1024, 100_000_000);
        case "sample" -> o.sample = number(name, value, 1, 1024);
        case "port" -> o.port = number(name, value, 0, 65_535);
        default -> throw new BadOption("unknown option \"" + name + "\"; accepted: " + ACCEPTED);
      }
    }
    return o;
  }

  /**
   * The options one by one, split at the commas outside double quotes (the quotes are kept; {@link
   * #parse} takes them off a value).
   */
  static List<String> split(String args) throws BadOption {
    List<String> items = new ArrayList<>();
    StringBuilder item = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < args.length(); i++) {
      char c = args.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      }
      if (c == ',' && !quoted) {
        items.add(item.toString());
        item.setLength(0);
      } else {
        item.append(c);
      }
    }
    if (quoted) {
      throw new BadOption("options: a double quote is not closed in \"" + args + "\"");
    }
    items.add(item.toString());
    return items;
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1) : value;
  }

  /**
   * The path of {@code table-file}, refused now (the agent stays off) rather than at exit, when
   * the table could not be written there.
   */
  private static Path writableFile(String name, String value) throws BadOption {
    Path path;
    try {
      path = Path.of(value).toAbsolutePath();
    } catch (InvalidPathException e) {
      throw new BadOption("option \"" + name + "\" must be a path, was \"" + value + "\"");
    }
    String why = null;
    Path dir = path.getParent();
    if (Files.isDirectory(path)) {
      why = "it is a directory";
    } else if (Files.exists(path) && !Files.isWritable(path)) {
      why = "the file is not writable";
    } else if (dir == null || !Files.isDirectory(dir)) {
      why = "no directory " + dir;
    } else if (!Files.exists(path) && !Files.isWritable(dir)) {
      why = "the directory " + dir + " is not writable";
    }
    if (why != null) {
      throw new BadOption("option \"" + name + "\" must be a file the agent can write, was \""
          + value + "\" (" + why + ")");
    }
    return Path.of(value);
  }

  private static boolean flag(String name, String value) throws BadOption {
    if (value == null || value.equals("true")) {
      return true;
    }
    if (value.equals("false")) {
      return false;
    }
    throw new BadOption("option \"" + name + "\" takes no value (or true/false), was \"" + value + "\"");
  }

  private static long duration(String name, String value, long minMs, long maxMs, String example)
      throws BadOption {
    Matcher m = DURATION.matcher(value == null ? "" : value);
    String range = fmt(minMs) + ".." + fmt(maxMs);
    if (!m.matches()) {
      throw new BadOption("option \"" + name + "\" must be a duration like " + example
          + " (units ms, s, m, h) between " + range + ", was \"" + (value == null ? "" : value) + "\"");
    }
    long n = Long.parseLong(m.group(1));
    long ms = switch (m.group(2)) {
      case "ms" -> n;
      case "s" -> n * 1_000;
      case "m" -> n * 60_000;
      default -> n * 3_600_000;
    };
    if (ms < minMs || ms > maxMs) {
      throw new BadOption("option \"" + name + "\" must be between " + range + ", was \"" + value + "\"");
    }
    return ms * 1_000_000L;
  }

  private static String fmt(long ms) {
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
  }

  private static int number(String name, String value, int min, int max) throws BadOption {
    try {
      int n = Integer.parseInt(value == null ? "" : value.replace("_", ""));
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new BadOption(String.format(Locale.ROOT, "option \"%s\" must be a whole number between %d"
        + " and %d, was \"%s\"", name, min, max, value == null ? "" : value));
  }
}
