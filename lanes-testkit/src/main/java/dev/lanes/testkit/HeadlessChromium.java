package dev.lanes.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, for the tests that look at a page as a person would: the DOM after
 * the page's scripts ran, or a screenshot. A browser test fails (never skips) when Chromium is
 * missing; {@code ./lanes test} installs it when missing and run as root. Every run is bounded
 * and its process ended.
 */
public final class HeadlessChromium {
  private static final Path DEFAULT = Path.of("/usr/bin/chromium");
  private static final long TIMEOUT_SECONDS = 90;
  private static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--no-first-run");

  private final Path binary;

  private HeadlessChromium(Path binary) {
    this.binary = binary;
  }

  /** What one run printed: its exit status, its output file's text (or ""), its stderr's tail. */
  public record Run(int exit, String output, String stderrTail) {}

  /** Chromium at /usr/bin/chromium or on PATH; fails the test with how to install it if absent. */
  public static HeadlessChromium find() {
    if (Files.isExecutable(DEFAULT)) {
      return new HeadlessChromium(DEFAULT);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir, "chromium");
      if (!dir.isEmpty() && Files.isExecutable(p)) {
        return new HeadlessChromium(p);
      }
    }
    throw new AssertionError("Chromium not found at " + DEFAULT + " or on PATH: install Debian's"
        + " chromium package (apt-get install -y chromium); ./lanes test installs it when missing"
        + " and run as root. This browser test does not skip.");
  }

  /** The DOM of {@code url} after its scripts ran for {@code virtualMillis} of virtual time. */
  public Run dumpDom(String url, Path tmp, long virtualMillis) throws IOException, InterruptedException {
    Path out = tmp.resolve("dom.html");
    return run(tmp, "dom", out, List.of("--virtual-time-budget=" + virtualMillis, "--dump-dom", url));
  }

  /** A {@code width}×{@code height} screenshot of {@code url} into {@code png}. */
  public Run screenshot(String url, Path tmp, Path png, int width, int height, long virtualMillis)
      throws IOException, InterruptedException {
    Files.createDirectories(png.toAbsolutePath().getParent());
    return run(tmp, "shot", null, List.of("--hide-scrollbars", "--window-size=" + width + "," + height,
        "--virtual-time-budget=" + virtualMillis, "--screenshot=" + png.toAbsolutePath(), url));
  }

  private Run run(Path tmp, String name, Path out, List<String> args)
      throws IOException, InterruptedException {
    Path profile = Files.createDirectories(tmp.resolve("profile-" + name));
    Path err = tmp.resolve("chromium-" + name + ".err");
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(FLAGS);
    cmd.add("--user-data-dir=" + profile);
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
    pb.redirectOutput(out == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(out.toFile()));
    Process p = pb.start();
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("chromium did not finish in " + TIMEOUT_SECONDS + " s; stderr:\n" + tail(err));
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
    String text = out != null && Files.exists(out) ? Files.readString(out) : "";
    return new Run(p.exitValue(), text, tail(err));
  }

  private static String tail(Path p) throws IOException {
    if (!Files.exists(p)) {
      return "(none)";
    }
    List<String> lines = Files.readAllLines(p);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }
}
