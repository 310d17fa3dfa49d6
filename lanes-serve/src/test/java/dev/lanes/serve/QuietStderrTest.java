package dev.lanes.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.redis.harness.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./lanes serve --redis URI}, in a JVM of its own, starts without library noise on stderr:
 * no SLF4J "no binding" notice (the Redis client brings SLF4J's API; the app binds it to no-op) and
 * no JDK warning about Netty's use of {@code sun.misc.Unsafe} (the app turns that use off).
 */
class QuietStderrTest {

  @Test
  void serveWithRedisPrintsNoLibraryWarnings(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("stdout.txt");
    Path err = tmp.resolve("stderr.txt");
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p =
          new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                  ServeMain.class.getName(), "serve", "--port", "0", "--redis", redis.uri())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      try {
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
            .until(() -> !p.isAlive() || Files.readString(out).contains("(GLOBAL)"));
        assertThat(p.isAlive()).as("server exited early; stderr:%n%s", Files.readString(err)).isTrue();
      } finally {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        }
      }
    }
    assertThat(Files.readString(out)).contains("shared cap", "(GLOBAL)");
    assertThat(Files.readString(err)).doesNotContain("SLF4J").doesNotContain("sun.misc.Unsafe");
  }
}
