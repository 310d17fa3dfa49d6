package dev.lanes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner's command line and plans; JMH itself is never started here. */
class BenchMainTest {

  @Test
  void helpListsSuitesAndExecutors() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = BenchMain.run(new String[] {"--help"}, new PrintStream(bytes, true, "UTF-8"));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(text).contains("--quick", "throughput,handoff,scaling,memory,work,health",
        "spring-vthreads-limit");
  }

  @Test
  void badOptionsFailWithOneLine() {
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--fast"}))
        .hasMessage("unknown option '--fast'");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--only"}))
        .hasMessage("--only needs a value");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--only", "speed"}))
        .hasMessageStartingWith("unknown suite 'speed'; known: throughput");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"--executors", "tpe"}))
        .hasMessageStartingWith("unknown executor 'tpe'");
  }

  @Test
  void everyPlannedRunSelectsAnExistingBenchmark() throws Exception {
    // META-INF/BenchmarkList is written by JMH's annotation processor; without it the jar is empty.
    String list;
    try (InputStream in =
        BenchMainTest.class.getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
      assertThat(in).as("META-INF/BenchmarkList (JMH annotation processor output)").isNotNull();
      list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (List<BenchRun> plan : List.of(BenchPlan.full(), BenchPlan.quick())) {
      for (BenchRun run : plan) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(run.include());
        // Each line: JMH S <len> <user class> S <len> <generated class> S <len> <method> ...
        boolean found =
            list.lines()
                .map(l -> l.split(" "))
                .filter(t -> t.length > 9)
                .anyMatch(t -> p.matcher(t[3] + "." + t[9]).find());
        assertThat(found).as(run.id() + " includes " + run.include()).isTrue();
      }
    }
  }

  @Test
  void narrowingExecutorsKeepsTheBaseline() {
    BenchRun throughput = BenchPlan.full().get(0);
    BenchRun narrowed = throughput.onlyExecutors(java.util.Set.of("lanes"));
    assertThat(narrowed.params().get("executor")).containsExactly("tpe-lbq", "lanes");
    assertThat(throughput.onlyExecutors(java.util.Set.of("tpe-lbq")).measuresSomething()).isFalse();
  }
}
