package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * lanes-agent/README.md names the tests behind its claims, the options and the metrics: each named
 * test exists, each option is one the agent accepts, each metric is one {@code /metrics} serves.
 */
class AgentReadmeTest {
  private static final Path README = Path.of("README.md");

  @Test
  void everyTestTheReadmeNamesExists() throws IOException {
    Set<String> named = all("`([A-Z][A-Za-z]+Test)`", 1);
    assertThat(named).hasSizeGreaterThan(10);
    List<String> missing = new ArrayList<>();
    for (String test : named) {
      if (!Files.exists(Path.of("src/test/java/dev/lanes/agent", test + ".java"))) {
        missing.add(test);
      }
    }
    assertThat(missing).as("tests named in %s", README.toAbsolutePath()).isEmpty();
  }

  @Test
  void everyOptionTheReadmeListsIsAccepted() throws IOException, AgentOptions.BadOption {
    String readme = Files.readString(README);
    Matcher m = Pattern.compile("`table`, `table-file=PATH`.*?`verbose`", Pattern.DOTALL).matcher(readme);
    assertThat(m.find()).as("the README's list of options").isTrue();
    Set<String> listed = new LinkedHashSet<>();
    Matcher option = Pattern.compile("`([a-z-]+)[`=]").matcher(m.group());
    while (option.find()) {
      listed.add(option.group(1));
    }
    assertThat(listed).hasSize(10);
    for (String name : listed) {
      assertThat(AgentOptions.ACCEPTED).contains(name);
    }
    // Every option the agent accepts is in the README's list: ACCEPTED's items, split at its
    // top-level commas (not those inside parentheses), up to "=" or " ".
    String accepted = AgentOptions.ACCEPTED.substring(0, AgentOptions.ACCEPTED.indexOf("; options are"));
    Set<String> all = new LinkedHashSet<>();
    int depth = 0;
    StringBuilder item = new StringBuilder();
    for (char c : (accepted + ",").toCharArray()) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (c == ',' && depth == 0) {
        all.add(item.toString().trim().split("[= ]")[0]);
        item.setLength(0);
      } else {
        item.append(c);
      }
    }
    assertThat(listed).containsExactlyInAnyOrderElementsOf(all);
  }

  @Test
  void everyMetricTheReadmeNamesIsServed() throws IOException {
    Set<String> named = all("`(lanes_[a-z_]+)`", 1);
    assertThat(named).hasSizeGreaterThan(8);
    String served = MetricsEndpoint.prometheus(List.of());
    for (String metric : named) {
      assertThat(served).as("/metrics describes %s", metric).contains("# HELP " + metric + " ");
    }
  }

  private static Set<String> all(String regex, int group) throws IOException {
    Matcher m = Pattern.compile(regex).matcher(Files.readString(README));
    Set<String> out = new LinkedHashSet<>();
    while (m.find()) {
      out.add(m.group(group));
    }
    return out;
  }
}
