package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A million tasks queued behind a virtual lane of concurrency 30 fit in a 256 MB heap, holding 30 threads. */
class QueuedMemoryTest {
  @Test
  void aMillionQueuedTasksFitIn256MegabytesWithThirtyThreads() throws Exception {
    Map<String, String> out = runProbe("-Xmx256m", "lanes", 1_000_000);
    assertThat(out.get("exit")).isEqualTo("0");
    assertThat(Integer.parseInt(out.get("threads_alive"))).isEqualTo(QueuedMemoryProbe.CAP);
    assertThat(Integer.parseInt(out.get("waiting"))).isEqualTo(1_000_000 - QueuedMemoryProbe.CAP);
    // Tasks running at once never exceed the cap. (Live threads can, for a moment: a thread that
    // found no task gives its permit back as its last act and is still ending.)
    assertThat(Integer.parseInt(out.get("peak_running"))).isLessThanOrEqualTo(QueuedMemoryProbe.CAP);
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
    Work.JvmRun run = Work.runJvm(List.of(heap), probe, args);
    Map<String, String> out = new HashMap<>();
    for (String line : run.lines()) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.contains(" ")) {
        out.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    out.put("exit", Integer.toString(run.exit()));
    out.put("output", run.output());
    return out;
  }
}
