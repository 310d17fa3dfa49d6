package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Every key under {@code lanes.} is one of the starter's properties or refused at start-up, naming
 * the key and the nearest valid name (issue #41: these started with no message at all).
 */
class UnknownKeysTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LanesConfigurationCheckAutoConfiguration.class,
              LanesAutoConfiguration.class, TaskExecutionAutoConfiguration.class));

  static Stream<Arguments> typos() {
    return Stream.of(
        // the properties, the key the failure must name, the name it must propose
        typo("lanes.instances.http.kind=cpu,lanes.sever.lane=http", "lanes.sever.lane", "lanes.server.lane"),
        typo("lanes.instances.http.kind=cpu,lanes.server.lanes=http", "lanes.server.lanes", "lanes.server.lane"),
        typo("lanes.instances.db.kind=cpu,lanes.task-exector=db", "lanes.task-exector", "lanes.task-executor"),
        typo("lanes.instances.db.kind=cpu,lanes.alerts.silense=5m", "lanes.alerts.silense", "lanes.alerts.silence"),
        typo("lanes.instances.db.kind=cpu,lanes.alerts.webhok.url=http://localhost/x",
            "lanes.alerts.webhok.url", "lanes.alerts.webhook.url"),
        typo("lanes.instances.db.kind=cpu,lanes.shutdown.await=1s",
            "lanes.shutdown.await", "lanes.shutdown.await-termination"),
        typo("lanes.instances.db.kind=cpu,lanes.server=http", "lanes.server", "lanes.server.lane"),
        typo("lanes.instances.db.kind=cpu,lanes.enable=false", "lanes.enable", "lanes.enabled"),
        // A whole misspelled prefix: with no lane declared, the lane would silently never exist.
        typo("lanes.instance.reports.kind=blocking,lanes.instance.reports.concurrency=4",
            "lanes.instance.reports.", "lanes.instances.reports."),
        typo("lanes.instance.reports.kind=blocking", "lanes.instance.reports.kind", "lanes.instances.reports.kind"),
        typo("lanes.instanse.reports.knd=blocking", "lanes.instanse.reports.knd", "lanes.instances.reports.kind"),
        typo("lanes.instances.db.kind=cpu,lanes.share.db.total=4", "lanes.share.db.total", "lanes.shares.db.total"),
        typo("lanes.instances.db.kind=cpu,lanes.shares.db.totl=4", "lanes.shares.db.totl", "lanes.shares.db.total"));
  }

  private static Arguments typo(String properties, String key, String nearest) {
    return Arguments.of(properties, key, nearest);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("typos")
  void aKeyTheStarterDoesNotHaveFailsStartupNamingItAndTheNearest(String properties, String key, String nearest) {
    runner
        .withPropertyValues(properties.split(","))
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).isInstanceOfSatisfying(LanesPropertyException.class, e -> {
            assertThat(e.property()).startsWith(key);
            assertThat(e.reason()).contains("did you mean " + nearest);
          });
        });
  }

  /** {@code lanes.taskexecutor} is {@code lanes.task-executor} in Spring's relaxed binding: it takes effect. */
  @Test
  void aRelaxedFormOfAKnownKeyIsThatKey() {
    runner
        .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2",
            "lanes.taskexecutor=db", "lanes.alerts.checkInterval=2s", "lanes.server.LANE=db")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(LanesProperties.class).getTaskExecutor()).isEqualTo("db");
          assertThat(context.getBean(LanesProperties.class).getServer().getLane()).isEqualTo("db");
          java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
          context.getBean("applicationTaskExecutor", java.util.concurrent.Executor.class).execute(ran::countDown);
          assertThat(ran.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
          assertThat(context.getBean(Lanes.class).lane("db").stats().submitted()).isEqualTo(1);
        });
  }

  @Test
  void theMessageListsTheValidNamesWhereTheKeyWentWrong() {
    runner
        .withPropertyValues("lanes.sever.lane=http")
        .run(context -> assertThat(context.getStartupFailure()).isInstanceOfSatisfying(LanesPropertyException.class,
            e -> assertThat(e.getMessage()).isEqualTo("Invalid value \"http\" for property lanes.sever.lane: lanes has"
                + " no property lanes.sever.lane; did you mean lanes.server.lane? (under lanes.: alerts, enabled,"
                + " instances, readiness, server, shares, shutdown, task-executor)")));
  }

  /**
   * The JVM's system properties are shared with lanes' agent ({@code lanes.agent.control}) and
   * tools: there only keys under the starter's own names are checked.
   */
  @Test
  void systemPropertiesOutsideTheStartersNamesAreLeftAlone() {
    runner
        .withPropertyValues("lanes.instances.db.kind=cpu")
        .withInitializer(context -> context.getEnvironment().getPropertySources().addLast(new MapPropertySource(
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
            Map.of("lanes.agent.control", "/tmp/lanes.sock"))))
        .run(context -> assertThat(context).hasNotFailed());
    runner
        .withPropertyValues("lanes.instances.db.kind=cpu")
        .withInitializer(context -> context.getEnvironment().getPropertySources().addLast(new MapPropertySource(
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, Map.of("lanes.server.lanes", "db"))))
        .run(context -> assertThat(context.getStartupFailure()).isInstanceOfSatisfying(
            LanesPropertyException.class, e -> assertThat(e.reason()).contains("did you mean lanes.server.lane?")));
  }

  @Test
  void everyPropertyOfTheStarterIsKnown() {
    runner
        .withPropertyValues("lanes.enabled=true", "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2",
            "lanes.task-executor=db", "lanes.server.lane=db", "lanes.shutdown.await-termination=5s",
            "lanes.alerts.enabled=true", "lanes.alerts.saturated-for=10s", "lanes.alerts.rejections-per-second=2",
            "lanes.alerts.rejection-window=30s", "lanes.alerts.silence=1m", "lanes.alerts.recovery-messages=true",
            "lanes.alerts.check-interval=1s", "lanes.alerts.log-level=info",
            "lanes.alerts.webhook.url=http://localhost:1/x", "lanes.alerts.webhook.format=slack",
            "lanes.alerts.webhook.connect-timeout=1s", "lanes.alerts.webhook.request-timeout=1s",
            "lanes.shares.pool.total=2", "lanes.shares.pool.lend-after-idle=100ms", "lanes.shares.pool.claim-timeout=50ms",
            "lanes.shares.pool.partitions.first.share=0.5", "lanes.instances.first.kind=virtual",
            "lanes.instances.first.concurrency=2", "lanes.instances.first.share=pool/first")
        .run(context -> assertThat(context).hasNotFailed());
  }
}
