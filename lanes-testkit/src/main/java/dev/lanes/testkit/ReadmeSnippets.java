package dev.lanes.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps a README's code honest: every fenced code block in the README must be quoted, verbatim, from
 * a source file the module's build compiles (and a test runs), named by a marker on the line before
 * the fence:
 *
 * <pre>
 * &lt;!-- snippet: src/test/java/dev/lanes/reactor/examples/DbScheduler.java --&gt;
 * ```java
 * package ...   (the whole file, package and imports included)
 * ```
 * </pre>
 *
 * <p>Blocks in {@code sh}, {@code text} or {@code properties} are shell or output, not code, and
 * need no marker. The path is relative to the README's folder.
 */
public final class ReadmeSnippets {

  private static final Pattern BLOCK =
      Pattern.compile("(?m)^```([A-Za-z0-9]*)\\n(.*?)^```$", Pattern.DOTALL);
  private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+) -->\\n$");
  private static final List<String> NOT_CODE = List.of("sh", "text", "properties", "");

  private ReadmeSnippets() {}

  /**
   * Checks every code block of {@code readme} against the file its marker names; returns those
   * files (for the caller to check that the ones it expects are there).
   *
   * @throws AssertionError naming the block that has no marker, or the file whose text differs
   */
  public static List<Path> check(Path readme) throws IOException {
    String text = Files.readString(readme);
    Path dir = readme.toAbsolutePath().getParent();
    List<Path> quoted = new ArrayList<>();
    Matcher block = BLOCK.matcher(text);
    while (block.find()) {
      String language = block.group(1);
      if (NOT_CODE.contains(language)) {
        continue;
      }
      int line = (int) text.substring(0, block.start()).lines().count() + 1;
      Matcher marker = MARKER.matcher(text.substring(0, block.start()));
      if (!marker.find()) {
        throw new AssertionError(readme + " line " + line + ": a ```" + language
            + " block without a <!-- snippet: path --> marker on the line before it; quote a file the build compiles");
      }
      Path source = dir.resolve(marker.group(1)).normalize();
      if (!Files.isRegularFile(source)) {
        throw new AssertionError(readme + " line " + line + ": the snippet's file " + source + " does not exist");
      }
      String expected = Files.readString(source);
      if (!expected.equals(block.group(2))) {
        throw new AssertionError(readme + " line " + line + ": the block differs from " + marker.group(1)
            + " (quote the whole file, verbatim)\n--- file ---\n" + expected + "--- README ---\n" + block.group(2));
      }
      quoted.add(source);
    }
    return quoted;
  }
}
