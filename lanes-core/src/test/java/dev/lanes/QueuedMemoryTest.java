package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A million tasks queued behind maxConcurrency 30 fit in a 256 MB heap, holding 30 threads. */
class QueuedMemoryTest {
  @Test
  void aMillionQueuedTasksFitIn256MegabytesWithThirtyThreads() throws Exception {
    Map<String, String> out = runProbe("-Xmx256m", "lanes", 1_000_000);
    assertThat(out.get("exit")).isEqualTo("0");
    assertThat(Integer.parseInt(out.get("threads_alive"))).isEqualTo(QueuedMemoryProbe.CAP);
    assertThat(Integer.parseInt(out.get("waiting"))).isEqualTo(1_000_000 - QueuedMemoryProbe.CAP);
    assertThat(Integer.parseInt(out.get("peak_threads"))).isLessThanOrEqualTo(QueuedMemoryProbe.CAP);
    assertThat(Integer.parseInt(out.get("done"))).isEqualTo(1_000_000);
    assertThat(Long.parseLong(out.get("heap_used_mb"))).isLessThan(256);
  }

  static Map<String, String> runProbe(String heap, String mode, int tasks)
      throws IOException, InterruptedException {
    return runProbe(QueuedMemoryProbe.class, heap, mode, Integer.toString(tasks));
  }

  /** Runs {@code probe}'s main in a JVM of its own and reads its {@code key=value} lines. */
  static Map<String, String> runProbe(Class<?> probe, String heap, String... args)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new java.util.ArrayList<>(
        List.of(java, heap, "-cp", System.getProperty("java.class.path"), probe.getName()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .start();
    byte[] bytes;
    try (var in = p.getInputStream()) {
      bytes = in.readAllBytes();
    }
    if (!p.waitFor(Work.PATIENCE_SECONDS * 4, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("probe did not finish");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    Map<String, String> out = new HashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.contains(" ")) {
        out.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    out.put("exit", Integer.toString(p.exitValue()));
    out.put("output", text);
    return out;
  }
}
