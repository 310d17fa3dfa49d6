package dev.lanes.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The root README's first screen: a newcomer sees the two set-up commands, each with one line on
 * what it does, before anything else; then what a lane is; then how to install it. The commands
 * are ones the launcher knows.
 */
class ReadmeFirstScreenTest {

  /** What a terminal or a repository page shows before one scrolls. */
  static final int FIRST_SCREEN_LINES = 25;

  private static final Path README = Path.of("../README.md");

  @Test
  void theFirstScreenShowsLabAndTestEachWithWhatItDoes() throws Exception {
    List<String> first = Files.readAllLines(README).subList(0, FIRST_SCREEN_LINES);
    assertThat(first).anySatisfy(l -> assertThat(l).matches("\\./lanes lab +# \\S.*"));
    assertThat(first).anySatisfy(l -> assertThat(l).matches("\\./lanes test +# \\S.*"));
    int lab = indexOfPrefix(first, "./lanes lab");
    int test = indexOfPrefix(first, "./lanes test");
    int fence = first.indexOf("```sh");
    assertThat(fence).as("the commands are in a ```sh block").isBetween(0, Math.min(lab, test) - 1);
    assertThat(first.subList(fence, Math.max(lab, test) + 1)).filteredOn("```"::equals).isEmpty();
  }

  @Test
  void thenWhatALaneIsThenHowToInstall() throws Exception {
    String text = Files.readString(README);
    int commands = text.indexOf("./lanes lab");
    int whatItIs = text.indexOf("\n## What a lane is\n");
    int install = text.indexOf("\n## Use it\n");
    assertThat(commands).isNotNegative();
    assertThat(whatItIs).isGreaterThan(commands);
    assertThat(install).isGreaterThan(whatItIs);
    assertThat(text.substring(install)).contains("./lanes install");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void theLauncherKnowsBothCommands() throws Exception {
    Process p = new ProcessBuilder("sh", "../lanes", "help").redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertThat(p.waitFor()).isZero();
    String usage = out.toString(StandardCharsets.UTF_8);
    assertThat(usage).containsPattern("(?m)^  lab ").containsPattern("(?m)^  test ");
  }

  private static int indexOfPrefix(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }
}
