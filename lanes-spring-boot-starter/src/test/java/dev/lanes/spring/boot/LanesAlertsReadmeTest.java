package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.alerts.LaneAlerts;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * lanes-alerts' README lists every {@code lanes.alerts.*} property with its default: the block,
 * read as a {@code .properties} file, names only real properties with their real defaults (the
 * configuration metadata the build generates from {@link LanesAlertsProperties}), and starts.
 */
class LanesAlertsReadmeTest {

  @Test
  void theAlertsReadmesPropertiesAreTheRealOnesWithTheirDefaultsAndStart() throws Exception {
    String readme = Files.readString(Path.of("..", "lanes-alerts", "README.md"));
    Matcher block = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find()).as("a properties block in lanes-alerts/README.md").isTrue();
    Properties file = new Properties();
    file.load(new StringReader(block.group(1)));

    JsonNode metadata = JsonMapper.builder().build().readTree(
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json"));
    Map<String, String> defaults = new HashMap<>();
    for (JsonNode p : metadata.get("properties")) {
      String name = p.get("name").asString();
      if (name.startsWith("lanes.alerts.")) {
        defaults.put(name, p.has("defaultValue") ? p.get("defaultValue").asString() : null);
      }
    }
    // Every property is in the README: set, or (the URL, unset by default) in a comment.
    for (String name : defaults.keySet()) {
      assertThat(file.containsKey(name) || block.group(1).contains("# " + name + "="))
          .as(name + " in the README").isTrue();
    }
    List<String> values = new ArrayList<>();
    for (String name : file.stringPropertyNames()) {
      assertThat(defaults).as("a real property").containsKey(name);
      assertThat(file.getProperty(name).toLowerCase(Locale.ROOT))
          .as("the default of " + name).isEqualTo(defaults.get(name).toLowerCase(Locale.ROOT));
      values.add(name + "=" + file.getProperty(name));
    }
    values.add("lanes.instances.db.kind=blocking");
    values.add("lanes.instances.db.concurrency=2");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class,
            LanesAlertsAutoConfiguration.class))
        .withPropertyValues(values.toArray(String[]::new))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(LaneAlerts.class).watching()).containsExactly("db");
        });
  }
}
