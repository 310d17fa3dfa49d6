package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./lanes serve --server ...}: the launcher picks the demo by {@code --server} and refuses
 * anything else in one line with the {@code lanes serve:} prefix, a hint and exit status 2 (before
 * building or starting anything). {@code ./lanes help} names both demos.
 */
class LauncherServeTest {
  private static final Path LAUNCHER = Path.of("..", "lanes").toAbsolutePath().normalize();
  private static final long TIMEOUT_SECONDS = 60;

  private record Result(int exit, String out, String err) {}

  private static Result launch(String... args) throws IOException, InterruptedException {
    assertThat(LAUNCHER).as("the launcher beside the modules").isRegularFile();
    String[] cmd = new String[args.length + 2];
    cmd[0] = "sh";
    cmd[1] = LAUNCHER.toString();
    System.arraycopy(args, 0, cmd, 2, args.length);
    Path out = Files.createTempFile("lanes-out", ".txt");
    Path err = Files.createTempFile("lanes-err", ".txt");
    try {
      Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("./lanes " + String.join(" ", args) + " did not end in " + TIMEOUT_SECONDS + " s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  void anUnknownServerIsRefusedInOneLineWithAHint() throws Exception {
    Result r = launch("serve", "--server", "jetty");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("lanes serve: --server must be jdk, tomcat, tomcat-virtual or netty, was 'jetty';"
        + " try ./lanes serve --help\n");
    assertThat(launch("serve", "--server=").err()).startsWith("lanes serve: --server must be jdk,");
  }

  @Test
  void aServerWithoutAValueIsRefused() throws Exception {
    Result r = launch("serve", "--mode", "shared", "--server");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("lanes serve: --server needs a value").contains("try ./lanes serve --help");
  }

  @Test
  void helpNamesBothDemos() throws Exception {
    Result r = launch("help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("--server jdk|tomcat|tomcat-virtual|netty").contains("Spring Boot");
  }
}
