package dev.lanes.stages;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/** Compiles and runs the staged-pipeline example in the root README exactly as written. */
class ReadmeStagesExampleTest {

  @Test
  void theReadmeStagesExampleCompilesRunsAndNamesTheStoreStage() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    int marker = readme.indexOf("<!-- stages-example -->");
    assertThat(marker).as("README has the stages example marker").isPositive();
    int start = readme.indexOf("```java\n", marker) + "```java\n".length();
    int end = readme.indexOf("```", start);
    String source = readme.substring(start, end);

    Path dir = Files.createTempDirectory("readme-stages-example");
    Path file = dir.resolve("StagesExample.java");
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
      Method main = loader.loadClass("StagesExample").getMethod("main", String[].class);
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(original);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    System.out.print(printed); // into this test's output file, for a reader of the report
    // What the README says the program prints.
    assertThat(printed).startsWith("RECORD-0 saved");
    assertThat(printed.lines().filter(l -> l.startsWith("fetch ") || l.startsWith("parse ")
        || l.startsWith("store ")).count()).isEqualTo(3);
    assertThat(printed).contains("end to end: 20 of 20 items completed, 0 failed, 0 rejected");
    assertThat(printed).contains("bottleneck: store (queue wait)");
  }
}
