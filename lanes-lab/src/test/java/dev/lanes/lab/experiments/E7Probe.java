package dev.lanes.lab.experiments;

import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import java.util.Map;

/**
 * Runs E7 (quick) in the JVM it is started in and prints its figures and verdict as {@code
 * key=value} lines: {@link E7NestedSubmissionTest} starts it with a plain {@code java -cp}, no
 * {@code --add-opens}.
 */
public final class E7Probe {
  private E7Probe() {}

  public static void main(String[] args) throws Exception {
    try (LabContext ctx = new LabContext(true, 1, s -> {})) {
      ExperimentResult r = new E7NestedSubmission().run(ctx);
      for (Map.Entry<String, Object> f : r.figures().entrySet()) {
        System.out.println(f.getKey() + "=" + f.getValue());
      }
      System.out.println("holds=" + r.holds());
      System.out.println("verdict: " + r.verdict());
    }
  }
}
