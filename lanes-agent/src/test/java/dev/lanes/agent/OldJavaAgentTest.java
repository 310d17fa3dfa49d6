package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * On a JVM older than the agent needs, {@code -javaagent} says so in one line and the application
 * runs to its end as without it, exit code included; {@code java -jar lanes-agent.jar} says it in
 * one line too. The old JVM is Java 17 ({@code LANES_OLD_JAVA}, else found in /usr/lib/jvm; {@code
 * ./lanes test} installs Debian's openjdk-17-jre-headless when it can).
 */
class OldJavaAgentTest {
  private static final Path APP =
      Path.of(System.getProperty("lanes.agent.testClasses", "target/test-classes"), "old-java", "OldJavaApp.java");

  @Test
  void anApplicationOnJava17RunsToItsEndWithTheAgentOffAndOneLineSaid() throws Exception {
    String java = oldJava();
    Run without = run(java, APP.toString());
    Run with = run(java, "-javaagent:" + AgentJvm.JAR.toAbsolutePath() + "=port=0,table", APP.toString());
    assertThat(without.exit).as(without.err).isEqualTo(3);
    assertThat(without.out).isEqualTo("the application ran to its end on Java 17: 42\n");
    assertThat(with.exit).as(with.err).isEqualTo(3);
    assertThat(with.out).isEqualTo(without.out);
    assertThat(with.err.lines().toList()).containsExactly("lanes-agent: needs Java 21 or newer;"
        + " this JVM runs Java 17 (" + vendorAndVersion(java) + "): the agent is off and the"
        + " application runs without it");
  }

  @Test
  void theAttachCommandOnJava17SaysWhatItNeedsInOneLine() throws Exception {
    Run r = run(oldJava(), "-jar", AgentJvm.JAR.toAbsolutePath().toString(), "attach", "1", "--table");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.out).isEmpty();
    assertThat(r.err.lines().toList()).singleElement().asString()
        .startsWith("lanes attach: needs Java 21 or newer to run; this is Java 17 (");
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(String java, String... args) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("lanes-old-java");
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    List<String> cmd = Stream.concat(Stream.of(java), Stream.of(args)).toList();
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("%s ended within 90 s", cmd).isTrue();
    } finally {
      p.destroyForcibly().waitFor();
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** {@code java.vm.vendor} and {@code java.version} of the old JVM, as the agent prints them. */
  private static String vendorAndVersion(String java) throws IOException, InterruptedException {
    Run r = run(java, "-XshowSettings:properties", "-version");
    return property(r.err, "java.vm.vendor") + " " + property(r.err, "java.version");
  }

  private static String property(String settings, String name) {
    return settings.lines().map(String::trim).filter(l -> l.startsWith(name + " = "))
        .map(l -> l.substring(name.length() + 3)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + settings));
  }

  /** A Java 17 {@code java}: LANES_OLD_JAVA, else the first found in /usr/lib/jvm. */
  static String oldJava() throws IOException {
    String env = System.getenv("LANES_OLD_JAVA");
    if (env != null && !env.isBlank()) {
      return env;
    }
    Path jvms = Path.of("/usr/lib/jvm");
    Optional<Path> found = Optional.empty();
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> dirs = Files.list(jvms)) {
        found = dirs.filter(d -> isJava17(d.resolve("release"))).map(d -> d.resolve("bin/java"))
            .filter(Files::isExecutable).sorted().findFirst();
      }
    }
    return found.map(Path::toString).orElseThrow(() -> new AssertionError("no Java 17 found"
        + " (set LANES_OLD_JAVA to its java, or install one: apt-get install openjdk-17-jre-headless;"
        + " ./lanes test does when it runs as root)"));
  }

  private static boolean isJava17(Path release) {
    try {
      return Files.readAllLines(release).stream().anyMatch(l -> l.startsWith("JAVA_VERSION=\"17"));
    } catch (IOException e) {
      return false;
    }
  }
}
