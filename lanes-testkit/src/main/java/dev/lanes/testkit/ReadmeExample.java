package dev.lanes.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Compiles and runs a Java example from a README exactly as written: the first {@code ```java}
 * block after a marker comment, compiled against the test's class path, its {@code main} run with
 * the given arguments while {@code System.out} is captured. The test then checks what it printed,
 * so a README example is a test.
 */
public final class ReadmeExample {
  private ReadmeExample() {}

  /**
   * Compiles the example after {@code marker} in {@code readme} as class {@code className} and
   * runs its {@code main(args)}; returns what it printed.
   *
   * @throws AssertionError if the marker or the block is missing, or javac fails (with its output)
   */
  public static String run(Path readme, String marker, String className, String... args)
      throws IOException, ReflectiveOperationException {
    String text = Files.readString(readme);
    int at = text.indexOf(marker);
    if (at < 0) {
      throw new AssertionError(readme + " has no marker " + marker);
    }
    int start = text.indexOf("```java\n", at);
    if (start < 0) {
      throw new AssertionError(readme + " has no ```java block after " + marker);
    }
    start += "```java\n".length();
    String source = text.substring(start, text.indexOf("```", start));

    Path dir = Files.createTempDirectory("readme-example");
    Path file = dir.resolve(className + ".java");
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString());
    if (rc != 0) {
      throw new AssertionError("javac failed on the example after " + marker + " in " + readme
          + ":\n" + errors.toString(StandardCharsets.UTF_8));
    }
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(
        new URL[] {dir.toUri().toURL()}, ReadmeExample.class.getClassLoader())) {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      Method main = loader.loadClass(className).getMethod("main", String[].class);
      main.invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new AssertionError("the example's main threw", e.getCause());
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
