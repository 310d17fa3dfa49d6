package dev.lanes.lab.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import org.junit.jupiter.api.Test;

/** Without a usable redis-server, E13 says so in one line instead of failing the lab. */
class E13NotRunTest {

  @Test
  void withoutRedisE13ReportsNotRunWithTheReasonInOneLine() throws Exception {
    E13SharedCapAcrossJvms e13 = new E13SharedCapAcrossJvms(() -> {
      throw new IllegalStateException("lanes-redis tests need a Redis server: no redis-server or\n"
          + "valkey-server on the PATH");
    });
    try (LabContext ctx = new LabContext(true, 1, s -> {})) {
      ExperimentResult r = e13.run(ctx);
      assertThat(r.crashed()).isFalse();
      assertThat(r.holds()).isFalse();
      assertThat(r.verdict()).startsWith("Not run: no usable redis-server (")
          .contains("no redis-server or valkey-server on the PATH").doesNotContain("\n");
      assertThat(r.figures()).containsEntry("ran", false);
      assertThat(r.charts()).isEmpty();
    }
  }
}
