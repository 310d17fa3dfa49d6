package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the dashboard test finds Prometheus, and the one sentence it fails with when it cannot. */
class PrometheusProcessTest {

  @Test
  void withoutABinaryTheTestFailsSayingHowToGetOne(@TempDir Path empty) {
    assertThatThrownBy(() -> PrometheusProcess.findBinary(Map.of("PATH", empty.toString())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no prometheus binary")
        .hasMessageContaining("./lanes test installs Debian's prometheus")
        .hasMessageContaining("LANES_PROMETHEUS");
  }

  @Test
  void lanesPrometheusWinsOverThePathAndMustBeExecutable(@TempDir Path dir) throws Exception {
    Path onPath = Files.createDirectory(dir.resolve("bin"));
    Path there = Files.createFile(onPath.resolve("prometheus"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path chosen = Files.createFile(dir.resolve("my-prometheus"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    assertThat(PrometheusProcess.findBinary(Map.of("PATH", onPath.toString()))).isEqualTo(there.toString());
    assertThat(PrometheusProcess.findBinary(Map.of("PATH", onPath.toString(), "LANES_PROMETHEUS",
        chosen.toString()))).isEqualTo(chosen.toString());
    Path notExecutable = Files.createFile(dir.resolve("not-executable"));
    assertThatThrownBy(() -> PrometheusProcess.findBinary(Map.of("LANES_PROMETHEUS", notExecutable.toString())))
        .hasMessage("LANES_PROMETHEUS is " + notExecutable + ", which is not an executable file");
  }
}
