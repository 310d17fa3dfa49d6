package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The README's {@code application.properties} block, read as a {@code .properties} file reads it
 * ({@link Properties#load}: a {@code #} after a value is part of the value), starts the starter as
 * the README says (issue #26: its end-of-line comments made {@code lanes.server.lane} refuse to
 * start).
 */
class ReadmePropertiesTest {

  @Test
  void theReadmesPropertiesBlockStartsAsWritten() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    Matcher block = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find()).as("a properties block in the starter's README").isTrue();
    Properties file = new Properties();
    file.load(new StringReader(block.group(1)));
    List<String> values = new ArrayList<>();
    for (String name : file.stringPropertyNames()) {
      values.add(name + "=" + file.getProperty(name));
    }
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(LanesAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
        .withPropertyValues(values.toArray(String[]::new))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Lanes.class).names())
              .containsExactlyInAnyOrder("http", "db", "partner-api");
          assertThat(file.getProperty("lanes.server.lane")).isEqualTo("http");
          // @Async without a name runs in lane partner-api.
          java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
          context.getBean("applicationTaskExecutor", java.util.concurrent.Executor.class)
              .execute(ran::countDown);
          assertThat(ran.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
          assertThat(context.getBean(Lanes.class).lane("partner-api").stats().submitted()).isEqualTo(1);
        });
  }
}
