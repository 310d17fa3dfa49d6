package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.agent.apps.OwnLibrariesApp;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * An application's own Byte Buddy and Jackson 3, loaded by a child class loader, work the same with
 * the agent as without: the agent jar on the class path offers no class of theirs, multi-release
 * copies included (what stopped a Spring Boot fat jar from starting).
 */
class OwnLibrariesAgentTest {

  @Test
  void anApplicationsOwnByteBuddyAndJacksonWorkFromAChildClassLoader() throws Exception {
    List<String> args = new ArrayList<>(List.of(jar("byte-buddy-"), jar("jackson-core-")));
    args.addAll(multiReleaseClassesOfTheAgentsLibraries());
    AgentJvm.Result without = AgentJvm.run(OwnLibrariesApp.class, null, args.toArray(String[]::new));
    AgentJvm.Result with = AgentJvm.run(OwnLibrariesApp.class, "", args.toArray(String[]::new));
    assertThat(without.exit()).as(without.err()).isZero();
    assertThat(with.exit()).as(with.err()).isZero();
    assertThat(without.out())
        .contains("net.bytebuddy.jar.asmjdkbridge.JdkClassReader loaded by the child: true",
            "tools.jackson.core.internal.shaded.fdp.FastDoubleSwar loaded by the child: true",
            "doubles [1.5, 2250.0, 3.141592653589793, -1.23456789012345E-11]",
            "made by Byte Buddy says hello (its Byte Buddy loaded by the child: true)")
        .doesNotContain("failed");
    assertThat(with.out()).isEqualTo(without.out());
    assertThat(with.err()).doesNotContain("Error", "wrong name");
  }

  /** The original names of the classes the agent's libraries keep in multi-release folders. */
  private static List<String> multiReleaseClassesOfTheAgentsLibraries() throws IOException {
    List<String> names = new ArrayList<>();
    for (String prefix : List.of("byte-buddy-", "jackson-core-")) {
      try (JarFile jar = new JarFile(jar(prefix))) {
        jar.stream().map(e -> e.getName())
            .filter(n -> n.matches("META-INF/versions/\\d+/.*\\.class") && !n.endsWith("module-info.class"))
            .map(n -> n.replaceFirst("META-INF/versions/\\d+/", "").replace(".class", "").replace('/', '.'))
            .distinct().forEach(names::add);
      }
    }
    assertThat(names).contains("net.bytebuddy.jar.asmjdkbridge.JdkClassReader",
        "tools.jackson.core.internal.shaded.fdp.FastDoubleSwar");
    return names;
  }

  /** The jar of this test's class path whose file name starts with {@code prefix}. */
  private static String jar(String prefix) {
    String all = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(all.split(File.pathSeparator))
        .filter(e -> new File(e).getName().startsWith(prefix) && e.endsWith(".jar"))
        .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + "*.jar on " + all));
  }
}
