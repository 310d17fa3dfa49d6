package dev.lanes.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/** Compiles and runs the adaptive-limit example in the root README exactly as written. */
class ReadmeAdaptiveExampleTest {
  @Test
  void theReadmeAdaptiveExampleCompilesRunsAndDoesWhatTheReadmeSays() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    int marker = readme.indexOf("<!-- adaptive-example -->");
    assertThat(marker).as("README has the adaptive example marker").isPositive();
    int start = readme.indexOf("```java\n", marker) + "```java\n".length();
    String source = readme.substring(start, readme.indexOf("```", start));

    Path dir = Files.createTempDirectory("adaptive-example");
    Path file = dir.resolve("AdaptiveExample.java");
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString());
    assertThat(rc).as("javac: %s", errors.toString(StandardCharsets.UTF_8)).isZero();

    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      Method main = loader.loadClass("AdaptiveExample").getMethod("main", String[].class);
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(original);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    // What the README says it prints: the limit doubles from 2 while calls wait, is cut once more
    // calls are in flight than the partner serves, and is the lane's concurrency at the end.
    assertThat(printed).startsWith("PROBE 2 -> 4").contains("CUT ");
    Matcher m = Pattern.compile("limit (\\d+), lane concurrency (\\d+)").matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    assertThat(m.group(1)).isEqualTo(m.group(2));
    assertThat(Integer.parseInt(m.group(1))).isBetween(1, 64);
  }
}
