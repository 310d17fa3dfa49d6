package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import net.bytebuddy.jar.asm.ClassReader;
import org.junit.jupiter.api.Test;

/**
 * The agent jar sits on the application's class path (the JVM appends a {@code -javaagent} jar to
 * it), so whatever it holds under a name an application might also use is found there first by
 * every class loader that asks its parent: it holds nothing but its own package, its manifest and
 * its licences.
 */
class JarLayoutTest {
  /** Where an entry may be: the agent's package, also as a multi-release copy, or a licence. */
  private static final Pattern ALLOWED = Pattern.compile("META-INF/MANIFEST\\.MF"
      + "|(META-INF/versions/\\d+/)?dev/lanes/agent/.*"
      + "|META-INF/(licenses/)?[A-Za-z-]*(LICENSE|NOTICE|ASM)[A-Za-z-]*(\\.txt)?");
  private static final Pattern VERSIONED = Pattern.compile("META-INF/versions/\\d+/");

  @Test
  void holdsNothingUnderANameAnApplicationMightUse() throws IOException {
    List<String> foreign = new ArrayList<>();
    try (JarFile jar = new JarFile(AgentJvm.JAR.toFile())) {
      for (JarEntry e : jar.stream().toList()) {
        if (!e.isDirectory() && !ALLOWED.matcher(e.getName()).matches()) {
          foreign.add(e.getName());
        }
      }
    }
    assertThat(foreign).as("entries of %s outside dev/lanes/agent/", AgentJvm.JAR).isEmpty();
  }

  @Test
  void everyClassIsFoundUnderItsOwnName() throws IOException {
    List<String> misplaced = new ArrayList<>();
    int versioned = 0;
    try (JarFile jar = new JarFile(AgentJvm.JAR.toFile())) {
      for (JarEntry e : jar.stream().toList()) {
        if (!e.getName().endsWith(".class")) {
          continue;
        }
        String path = VERSIONED.matcher(e.getName()).replaceFirst("");
        versioned += path.equals(e.getName()) ? 0 : 1;
        try (InputStream in = jar.getInputStream(e)) {
          String name = new ClassReader(in.readAllBytes()).getClassName();
          if (!path.equals(name + ".class")) {
            misplaced.add(e.getName() + " holds " + name);
          }
        }
      }
    }
    assertThat(misplaced).as("classes whose path is not their name (\"wrong name\" when loaded)").isEmpty();
    // The multi-release copies (Byte Buddy's and Jackson's) are there, relocated, not dropped.
    assertThat(versioned).isPositive();
  }

  @Test
  void theEntryPointsLoadOnJava8AndTheRestNeedsJava21() throws IOException {
    try (JarFile jar = new JarFile(AgentJvm.JAR.toFile())) {
      Attributes main = jar.getManifest().getMainAttributes();
      String launcher = "dev.lanes.agent.AgentLauncher";
      assertThat(main.getValue("Premain-Class")).isEqualTo(launcher);
      assertThat(main.getValue("Agent-Class")).isEqualTo(launcher);
      assertThat(main.getValue("Main-Class")).isEqualTo(launcher);
      assertThat(majorVersion(jar, "dev/lanes/agent/AgentLauncher.class")).isEqualTo(52);
      assertThat(majorVersion(jar, "dev/lanes/agent/LanesAgent.class")).isEqualTo(65);
      assertThat(AgentLauncher.MIN_JAVA).isEqualTo(21);
    }
  }

  private static int majorVersion(JarFile jar, String entry) throws IOException {
    try (DataInputStream in = new DataInputStream(jar.getInputStream(jar.getEntry(entry)))) {
      in.readInt(); // 0xCAFEBABE
      in.readUnsignedShort(); // minor
      return in.readUnsignedShort();
    }
  }
}
