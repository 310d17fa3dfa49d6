package dev.lanes.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.redis.harness.RedisServerProcess;
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

/** Compiles and runs the example of lanes-redis/README.md exactly as written, on a private Redis. */
class ReadmeExampleTest {

  @Test
  void theReadmeExampleCompilesRunsAndKeepsTheSharedCap() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int marker = readme.indexOf("<!-- readme-example -->");
    assertThat(marker).as("README has the example marker").isPositive();
    int start = readme.indexOf("```java\n", marker) + "```java\n".length();
    String source = readme.substring(start, readme.indexOf("```", start));

    Path dir = Files.createTempDirectory("lanes-redis-readme-example");
    Path file = dir.resolve("Example.java");
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString());
    assertThat(rc).as("javac: %s", errors.toString(StandardCharsets.UTF_8)).isZero();

    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (RedisServerProcess redis = RedisServerProcess.start();
        URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      Method main = loader.loadClass("Example").getMethod("main", String[].class);
      main.invoke(null, (Object) new String[] {redis.uri()});
    } finally {
      System.setOut(original);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("^40 quotes, at most (\\d+) at once \\(shared cap 4, lane 10\\), permit wait p99 "
        + "[0-9.]+ ms, health GLOBAL$", Pattern.MULTILINE).matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as("most at once").isBetween(1, 4);
  }
}
