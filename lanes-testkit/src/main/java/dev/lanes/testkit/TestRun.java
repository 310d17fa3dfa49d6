package dev.lanes.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What {@code ./lanes test} prints: Maven's whole output goes to a log file, the console gets one
 * line per module as the build reaches it (or one status line redrawn in place on a terminal), a
 * line every {@link #QUIET_SECONDS} seconds while a step runs long, and at the end a table of
 * tests run, failed and skipped per module read from the surefire reports (and maven-invoker
 * builds, one test each) this run wrote, the
 * failing tests' names, where the logs are, and a closing line {@code N passed, N failed} (with
 * {@code , N skipped} when some were).
 *
 * <p>Uses the JDK only, so the launcher runs it straight from this source file ({@code java
 * TestRun.java}) even when the build itself fails to compile.
 *
 * <p>Usage: {@code mvnw verify 2>&1 | java TestRun.java ROOT LOG STATUS_FILE [COLUMNS]}: ROOT is
 * the project folder, LOG the file Maven's output is copied to, STATUS_FILE a file holding
 * Maven's exit status once its output ends, COLUMNS the terminal's width when the console is a
 * terminal (absent: plain lines). Exits with Maven's status, or 1 when Maven said 0 but a report
 * holds a failure.
 */
public final class TestRun {

  /** How long a step may run before a "still …" line says what it is doing. */
  static final int QUIET_SECONDS = 30;

  private static final Pattern BUILDING =
      Pattern.compile("\\[INFO\\] Building (\\S+) \\d\\S*(?:\\s+\\[(\\d+)/(\\d+)\\])?\\s*$");
  private static final Pattern RUNNING = Pattern.compile("\\[INFO\\] Running (\\S+)");
  private static final Pattern PLUGIN = Pattern.compile("\\[INFO\\] --- (\\S+?):\\S+:(\\S+) .*@ (\\S+) ---");

  private final PrintStream console;
  private final int columns;
  private final long startNanos = System.nanoTime();
  private final long startMillis = System.currentTimeMillis();
  private final Object lock = new Object();
  // Guarded by lock: what the build is doing now, for the status line and the "still" lines.
  private String module = "";
  private String position = "";
  private String step = "starting Maven";
  private long stepSinceNanos = System.nanoTime();
  private long lastPrintNanos = System.nanoTime();
  private int statusWidth;

  TestRun(PrintStream console, int columns) {
    this.console = console;
    this.columns = columns;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: java TestRun.java ROOT LOG STATUS_FILE [COLUMNS]");
      System.exit(2);
    }
    Path root = Path.of(args[0]);
    Path log = Path.of(args[1]);
    Path statusFile = Path.of(args[2]);
    int columns = args.length > 3 && args[3].matches("\\d+") ? Integer.parseInt(args[3]) : 0;
    TestRun run = new TestRun(new PrintStream(System.out, true, StandardCharsets.UTF_8), columns);
    Files.createDirectories(log.toAbsolutePath().getParent());
    try (Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      Thread ticker = Thread.ofPlatform().daemon().name("lanes-test-ticker").start(run::tick);
      String line;
      while ((line = in.readLine()) != null) {
        w.write(line);
        w.write('\n');
        run.accept(line);
      }
      ticker.interrupt();
    }
    int mavenStatus = readStatus(statusFile);
    System.exit(run.finish(root, log, mavenStatus));
  }

  private static int readStatus(Path statusFile) {
    try {
      return Integer.parseInt(Files.readString(statusFile).trim());
    } catch (IOException | NumberFormatException e) {
      return 1; // Maven's status never arrived: treat as a failure rather than a pass.
    }
  }

  /** Follows one line of Maven's output. */
  void accept(String line) {
    synchronized (lock) {
      Matcher m = BUILDING.matcher(line);
      if (m.find()) {
        module = m.group(1);
        position = m.group(2) == null ? "1/1" : m.group(2) + "/" + m.group(3);
        setStep("building");
        if (columns == 0) {
          println(String.format(Locale.ROOT, "lanes test: [%s] %s (%s)", position, module, elapsed()));
        }
      } else if ((m = PLUGIN.matcher(line)).find()) {
        setStep(describe(m.group(1), m.group(2)));
      } else if ((m = RUNNING.matcher(line)).find()) {
        String cls = m.group(1);
        setStep("testing " + cls.substring(cls.lastIndexOf('.') + 1));
      }
      drawStatus();
    }
  }

  private static String describe(String plugin, String goal) {
    return switch (plugin) {
      case "compiler" -> goal.startsWith("test") ? "compiling tests" : "compiling";
      case "surefire" -> "testing";
      case "shade" -> "packaging";
      case "jar" -> "packaging";
      default -> plugin + " " + goal;
    };
  }

  private void setStep(String s) {
    if (!s.equals(step)) {
      step = s;
      stepSinceNanos = System.nanoTime();
    }
  }

  /** Runs on a daemon thread: redraws the status line, and says what a long step is doing. */
  private void tick() {
    try {
      while (true) {
        Thread.sleep(1000);
        synchronized (lock) {
          long now = System.nanoTime();
          if (columns > 0) {
            drawStatus();
          } else if (now - lastPrintNanos >= QUIET_SECONDS * 1_000_000_000L) {
            println(String.format(Locale.ROOT, "lanes test: ... %s: %s for %d s (%s)", module.isEmpty() ? "maven" : module,
                step, (now - stepSinceNanos) / 1_000_000_000L, elapsed()));
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the output ended: stop ticking
    }
  }

  private void drawStatus() {
    if (columns <= 0) {
      return;
    }
    String s = String.format(Locale.ROOT, "lanes test: %s [%s] %s: %s", elapsed(), position, module, step);
    s = fit(s, columns - 1);
    console.print("\r" + s + " ".repeat(Math.max(0, statusWidth - s.length())));
    console.flush();
    statusWidth = s.length();
  }

  private void clearStatus() {
    if (columns > 0 && statusWidth > 0) {
      console.print("\r" + " ".repeat(statusWidth) + "\r");
      statusWidth = 0;
    }
  }

  private void println(String s) {
    clearStatus();
    console.println(columns > 0 ? fit(s, columns - 1) : s);
    lastPrintNanos = System.nanoTime();
  }

  static String fit(String s, int width) {
    if (width <= 1 || s.length() <= width) {
      return s;
    }
    return s.substring(0, width - 1) + "…";
  }

  private String elapsed() {
    return human((System.nanoTime() - startNanos) / 1_000_000_000L);
  }

  static String human(long seconds) {
    return seconds < 60 ? seconds + " s" : String.format(Locale.ROOT, "%d min %02d s", seconds / 60, seconds % 60);
  }

  /** Prints the summary and returns the exit status. */
  int finish(Path root, Path log, int mavenStatus) throws Exception {
    synchronized (lock) {
      clearStatus();
      Summary summary = Summary.read(root, startMillis);
      long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
      List<String> lines = summary.lines(root, log, mavenStatus, human(seconds), errorLines(log));
      lines.forEach(console::println);
      console.flush();
      if (mavenStatus != 0) {
        return mavenStatus;
      }
      return summary.failed() > 0 ? 1 : 0;
    }
  }

  /** Maven's own error lines (a compile error, a plugin failure), for a build that failed outside any test. */
  private static List<String> errorLines(Path log) {
    try (Stream<String> s = Files.lines(log, StandardCharsets.UTF_8)) {
      return s.filter(l -> l.startsWith("[ERROR]") && !l.startsWith("[ERROR] -> [Help"))
          .map(l -> l.substring("[ERROR]".length()).trim())
          .filter(l -> !l.isEmpty() && !l.startsWith("Re-run Maven") && !l.startsWith("To see the full")
              && !l.startsWith("For more information") && !l.startsWith("[Help") && !l.startsWith("After correcting"))
          .limit(12)
          .toList();
    } catch (IOException | RuntimeException e) {
      return List.of("(could not read " + log + ": " + e + ")");
    }
  }

  /** Per module: tests, failures (errors included), skipped and time, and the failing tests' names. */
  record Summary(Map<String, int[]> modules, Map<String, Double> seconds, List<String> failures) {

    int passed() {
      return modules.values().stream().mapToInt(c -> c[0] - c[1] - c[2]).sum();
    }

    int failed() {
      return modules.values().stream().mapToInt(c -> c[1]).sum();
    }

    int skipped() {
      return modules.values().stream().mapToInt(c -> c[2]).sum();
    }

    /**
     * Reads every surefire report under ROOT/<module>/target/surefire-reports, and every
     * maven-invoker build under ROOT/<module>/target/invoker-reports (one test each), written since
     * {@code sinceMillis}.
     */
    static Summary read(Path root, long sinceMillis) throws Exception {
      Map<String, int[]> modules = new TreeMap<>();
      Map<String, Double> seconds = new TreeMap<>();
      List<String> failures = new ArrayList<>();
      List<Path> reports = new ArrayList<>();
      List<Path> invoked = new ArrayList<>();
      try (Stream<Path> dirs = Files.list(root)) {
        for (Path dir : dirs.sorted().toList()) {
          reports.addAll(files(dir.resolve("target/surefire-reports"), "TEST-", sinceMillis));
          invoked.addAll(files(dir.resolve("target/invoker-reports"), "BUILD-", sinceMillis));
        }
      }
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      for (Path report : invoked) {
        String module = root.relativize(report).getName(0).toString();
        Element job = factory.newDocumentBuilder().parse(report.toFile()).getDocumentElement();
        String result = job.getAttribute("result");
        int[] c = modules.computeIfAbsent(module, k -> new int[3]);
        c[0]++;
        if (result.equals("skipped")) {
          c[2]++;
        } else if (!result.equals("success")) {
          c[1]++;
          failures.add(module + ": invoker build " + job.getAttribute("project") + " — " + result
              + " (log: " + job.getAttribute("buildlog") + ")");
        }
        seconds.merge(module, parseDouble(job.getAttribute("time")), Double::sum);
      }
      for (Path report : reports) {
        String module = root.relativize(report).getName(0).toString();
        Document doc = factory.newDocumentBuilder().parse(report.toFile());
        Element suite = doc.getDocumentElement();
        int[] c = modules.computeIfAbsent(module, k -> new int[3]);
        c[0] += count(suite, "tests");
        c[1] += count(suite, "failures") + count(suite, "errors");
        c[2] += count(suite, "skipped");
        seconds.merge(module, parseDouble(suite.getAttribute("time")), Double::sum);
        NodeList cases = suite.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
          Element tc = (Element) cases.item(i);
          Element problem = first(tc, "failure");
          if (problem == null) {
            problem = first(tc, "error");
          }
          if (problem != null) {
            String message = problem.getAttribute("message");
            if (message.isBlank()) {
              message = problem.getAttribute("type");
            }
            failures.add(module + ": " + tc.getAttribute("classname") + "." + tc.getAttribute("name")
                + " — " + fit(message.strip().lines().findFirst().orElse(""), 160));
          }
        }
      }
      return new Summary(modules, seconds, failures);
    }

    List<String> lines(Path root, Path log, int mavenStatus, String took, List<String> mavenErrors) {
      List<String> out = new ArrayList<>();
      out.add("");
      int w = Math.max(18, modules.keySet().stream().mapToInt(String::length).max().orElse(0));
      out.add(String.format(Locale.ROOT, "%-" + w + "s %7s %7s %8s %10s", "module", "tests", "failed", "skipped",
          "time"));
      for (Map.Entry<String, int[]> e : modules.entrySet()) {
        int[] c = e.getValue();
        out.add(String.format(Locale.ROOT, "%-" + w + "s %,7d %,7d %,8d %10s", e.getKey(), c[0], c[1], c[2],
            human(Math.round(seconds.getOrDefault(e.getKey(), 0.0)))));
      }
      out.add("");
      if (!failures.isEmpty()) {
        out.add("failed tests:");
        failures.stream().limit(20).forEach(f -> out.add("  " + f));
        if (failures.size() > 20) {
          out.add("  … and " + (failures.size() - 20) + " more (see the log)");
        }
      }
      int failed = failed();
      if (mavenStatus != 0 && failed == 0) {
        out.add("the build failed outside any test (counted below as 1 failure); Maven said:");
        mavenErrors.forEach(l -> out.add("  " + fit(l, 200)));
        failed = 1;
      }
      out.add("full log: " + display(root, log));
      out.add("each test class's output: <module>/target/surefire-reports/<class>-output.txt");
      out.add((mavenStatus == 0 && failed == 0 ? "green" : "FAILED") + " in " + took);
      String closing = passed() + " passed, " + failed + " failed";
      if (skipped() > 0) {
        closing += ", " + skipped() + " skipped";
      }
      out.add(closing);
      return out;
    }

    private static String display(Path root, Path log) {
      Path abs = log.toAbsolutePath().normalize();
      Path r = root.toAbsolutePath().normalize();
      return abs.startsWith(r) ? r.relativize(abs).toString() : abs.toString();
    }

    /** The XML files in {@code dir} whose names start with {@code prefix}, written since {@code sinceMillis}. */
    private static List<Path> files(Path dir, String prefix, long sinceMillis) throws IOException {
      if (!Files.isDirectory(dir)) {
        return List.of();
      }
      try (Stream<Path> files = Files.list(dir)) {
        return files.filter(f -> f.getFileName().toString().startsWith(prefix) && f.toString().endsWith(".xml"))
            .filter(f -> modifiedSince(f, sinceMillis))
            .sorted()
            .toList();
      }
    }

    private static boolean modifiedSince(Path f, long sinceMillis) {
      try {
        // File systems keep times at coarse resolutions: allow two seconds of slack.
        return Files.getLastModifiedTime(f).toMillis() >= sinceMillis - 2000;
      } catch (IOException e) {
        return false;
      }
    }

    private static int count(Element e, String attribute) {
      String v = e.getAttribute(attribute);
      return v.isBlank() ? 0 : Integer.parseInt(v.trim());
    }

    private static double parseDouble(String s) {
      try {
        return Double.parseDouble(s.replace(",", ""));
      } catch (NumberFormatException e) {
        return 0;
      }
    }

    private static Element first(Element parent, String tag) {
      NodeList l = parent.getElementsByTagName(tag);
      return l.getLength() == 0 ? null : (Element) l.item(0);
    }
  }
}
