package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lane;
import dev.lanes.LaneKind;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneSettings;
import java.time.Duration;
import dev.lanes.Lanes;
import dev.lanes.TaskOutcome;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.support.TaskExecutorAdapter;

/** Properties binding, conditions and every bad value's startup failure, without a web server. */
class LanesPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(LanesAutoConfiguration.class, TaskExecutionAutoConfiguration.class));

  @Test
  void withNoLaneDeclaredTheStarterAddsNothing() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(Lanes.class);
          assertThat(context).hasBean("applicationTaskExecutor");
        });
  }

  @Test
  void eachDeclaredLaneIsBuiltAsConfiguredAndIsABeanOfItsName() {
    runner
        .withPropertyValues(
            "lanes.instances.db.kind=blocking",
            "lanes.instances.db.concurrency=3",
            "lanes.instances.db.queue-capacity=50",
            "lanes.instances.db.overflow=block-caller",
            "lanes.instances.db.block-timeout=250ms",
            "lanes.instances.compute.kind=cpu",
            "lanes.instances.partner-api.kind=virtual",
            "lanes.instances.partner-api.concurrency=30",
            "lanes.instances.partner-api.overflow=discard-oldest")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Lanes lanes = context.getBean(Lanes.class);
              assertThat(lanes.names()).containsExactly("db", "compute", "partner-api");
              Lane db = context.getBean("db", Lane.class);
              assertThat(db).isSameAs(lanes.lane("db"));
              assertThat(db.kind()).isEqualTo(LaneKind.BLOCKING);
              assertThat(db.concurrency()).isEqualTo(3);
              assertThat(db.queueCapacity()).isEqualTo(50);
              assertThat(lanes.lane("compute").concurrency())
                  .isEqualTo(Runtime.getRuntime().availableProcessors());
              Lane partner = context.getBean("partner-api", Lane.class);
              assertThat(partner.kind()).isEqualTo(LaneKind.VIRTUAL);
              assertThat(partner.concurrency()).isEqualTo(30);
            });
  }

  /** A lane does not say its overflow policy: it is seen in what a full lane does. */
  @Test
  void theOverflowSettingIsTheLanesBehaviourWhenFull() {
    runner
        .withPropertyValues(
            "lanes.instances.blocks.kind=blocking",
            "lanes.instances.blocks.concurrency=1",
            "lanes.instances.blocks.queue-capacity=1",
            "lanes.instances.blocks.overflow=block-caller",
            "lanes.instances.blocks.block-timeout=50ms",
            "lanes.instances.drops.kind=virtual",
            "lanes.instances.drops.concurrency=1",
            "lanes.instances.drops.queue-capacity=1",
            "lanes.instances.drops.overflow=discard-oldest")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Lanes lanes = context.getBean(Lanes.class);
              for (String name : List.of("blocks", "drops")) {
                Lane lane = lanes.lane(name);
                CountDownLatch release = new CountDownLatch(1);
                CountDownLatch started = new CountDownLatch(1);
                lane.execute(() -> {
                  started.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
                assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<?> queued = lane.submit(() -> {});
                if (name.equals("blocks")) {
                  // Full: the caller waits up to block-timeout, then is refused.
                  assertThatThrownBy(() -> lane.submit(() -> {}))
                      .isInstanceOfSatisfying(LaneRejectedException.class,
                          e -> assertThat(e.reason()).isEqualTo(TaskOutcome.BLOCK_TIMEOUT));
                } else {
                  // Full: the oldest queued task makes room.
                  lane.submit(() -> {});
                  assertThat(queued).isCompletedExceptionally();
                  assertThat(lane.stats().count(TaskOutcome.DISCARDED_OLDEST)).isEqualTo(1);
                }
                release.countDown();
              }
            });
  }

  /** Lane beans are found by name, never as "the" Executor: Spring Boot's own executor stays. */
  @Test
  void lanesDoNotDisplaceSpringBootsTaskExecutorUnlessAsked() {
    runner
        .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2")
        .withBean(NeedsDb.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Object executor = context.getBean("applicationTaskExecutor");
              assertThat(executor).isNotInstanceOf(Lane.class).isNotInstanceOf(TaskExecutorAdapter.class);
              assertThat(context.getBean(NeedsDb.class).db.name()).isEqualTo("db");
            });
    runner
        .withPropertyValues(
            "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2", "lanes.task-executor=db")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean("applicationTaskExecutor")).isInstanceOf(TaskExecutorAdapter.class);
              assertThat(context.getBean("taskExecutor")).isSameAs(context.getBean("applicationTaskExecutor"));
            });
  }

  static class NeedsDb {
    final Lane db;

    NeedsDb(@Qualifier("db") Lane db) {
      this.db = db;
    }
  }

  @Test
  void theApplicationsOwnLanesBeanWinsAndItsLanesAreTheBeans() {
    Lanes own = Lanes.of(Lane.blocking("db", 1));
    runner
        .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=4")
        .withBean("myLanes", Lanes.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).getBeans(Lanes.class).hasSize(1);
              assertThat(context.getBean("db", Lane.class)).isSameAs(own.lane("db"));
            });
    own.close();
  }

  @Test
  void lanesEnabledFalseTurnsTheStarterOff() {
    runner
        .withPropertyValues(
            "lanes.enabled=false", "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Lanes.class));
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        // properties, the property the failure must name, the value it must show
        bad("lanes.instances.db.kind=fast", "lanes.instances.db.kind", "fast"),
        bad("lanes.instances.db.concurrency=2", "lanes.instances.db.kind", "(unset)"),
        bad("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency", "(unset)"),
        bad("lanes.instances.db.kind=blocking,lanes.instances.db.concurrency=0", "lanes.instances.db.concurrency", "\"0\""),
        bad("lanes.instances.db.kind=blocking,lanes.instances.db.concurrency=40000", "lanes.instances.db.concurrency", "\"40000\""),
        bad("lanes.instances.db.kind=blocking,lanes.instances.db.concurrency=lots", "lanes.instances.db.concurrency", "lots"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.concurrency=-1", "lanes.instances.db.concurrency", "\"-1\""),
        bad("lanes.instances.db.kind=virtual", "lanes.instances.db.concurrency", "(unset)"),
        bad("lanes.instances.db.kind=virtual,lanes.instances.db.concurrency=0", "lanes.instances.db.concurrency", "\"0\""),
        bad("lanes.instances.db.kind=virtual,lanes.instances.db.concurrency=1000001", "lanes.instances.db.concurrency", "\"1000001\""),
        // The old name of the setting is refused with the new one, not silently ignored.
        bad("lanes.instances.db.kind=blocking,lanes.instances.db.threads=3",
            "lanes.instances.db.threads", "renamed: use lanes.instances.db.concurrency"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.queue-capacity=0", "lanes.instances.db.queue-capacity", "\"0\""),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.queue-capacity=-3", "lanes.instances.db.queue-capacity", "\"-3\""),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.queue-capacity=many", "lanes.instances.db.queue-capacity", "many"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.overflow=drop", "lanes.instances.db.overflow", "drop"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.overflow=block-caller", "lanes.instances.db.block-timeout", "(unset)"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.overflow=block-caller,lanes.instances.db.block-timeout=-1s",
            "lanes.instances.db.block-timeout", "PT-1S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.overflow=block-caller,lanes.instances.db.block-timeout=48h",
            "lanes.instances.db.block-timeout", "PT48H"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.block-timeout=1s", "lanes.instances.db.block-timeout", "PT1S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.block-timeout=soon", "lanes.instances.db.block-timeout", "soon"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.daemon=maybe", "lanes.instances.db.daemon", "maybe"),
        bad("lanes.instances.db.kind=cpu,lanes.task-executor=nope", "lanes.task-executor", "nope"),
        bad("lanes.instances.db.kind=cpu,lanes.server.lane=nope", "lanes.server.lane", "nope"),
        bad("lanes.instances.db.kind=cpu,lanes.shutdown.await-termination=-1s", "lanes.shutdown.await-termination", "PT-1S"),
        // Health settings: the builder's messages, with the property.
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.wait-to-run-ratio=0", "lanes.instances.db.wait-to-run-ratio",
            "saturation wait-to-run ratio must be a finite number > 0, was 0.0"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.fixed-wait-threshold=0s", "lanes.instances.db.fixed-wait-threshold",
            "saturation wait must be > 0, was PT0S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.wait-to-run-ratio=2,lanes.instances.db.fixed-wait-threshold=1s",
            "lanes.instances.db.fixed-wait-threshold", "not both"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.saturation-window=-5s", "lanes.instances.db.saturation-window",
            "saturationWindow must be > 0, was PT-5S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.saturation-min-wait=-1ms", "lanes.instances.db.saturation-min-wait",
            "saturationMinWait must be ≥ 0, was PT-0.001S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.enter-after=1s", "lanes.instances.db.exit-after",
            "required with lanes.instances.db.enter-after"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.enter-after=1s,lanes.instances.db.exit-after=-2s",
            "lanes.instances.db.exit-after", "saturationHysteresis exitAfter must be ≥ 0, was PT-2S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.enter-after=-1s,lanes.instances.db.exit-after=2s",
            "lanes.instances.db.enter-after", "saturationHysteresis enterAfter must be ≥ 0, was PT-1S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.deadlock-detection=0s", "lanes.instances.db.deadlock-detection",
            "deadlockDetection must be > 0, was PT0S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.shed-target=5ms", "lanes.instances.db.shed-interval",
            "required with lanes.instances.db.shed-target"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.shed-target=2h,lanes.instances.db.shed-interval=1s",
            "lanes.instances.db.shed-target", "shedding target must be > 0 and at most PT1H, was PT2H"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.shed-target=5ms,lanes.instances.db.shed-interval=0s",
            "lanes.instances.db.shed-interval", "shedding interval must be > 0 and at most PT1H, was PT0S"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.health-log-level=loud", "lanes.instances.db.health-log-level", "loud"),
        // Settings lanes does not have: refused, naming the nearest.
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.queue-size=5", "lanes.instances.db.queue-size",
            "did you mean lanes.instances.db.queue-capacity?"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.concurency=5", "lanes.instances.db.concurency",
            "did you mean lanes.instances.db.concurrency?"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.queueSize=5", "lanes.instances.db.queuesize",
            "did you mean lanes.instances.db.queue-capacity?"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.shed-targt=5ms", "lanes.instances.db.shed-targt",
            "did you mean lanes.instances.db.shed-target?"),
        bad("lanes.instances.db.kind=cpu,lanes.instances.db.block-timout=1s", "lanes.instances.db.block-timout",
            "did you mean lanes.instances.db.block-timeout?"));
  }

  private static Arguments bad(String properties, String property, String value) {
    return Arguments.of(properties, property, value);
  }

  /** The gate's checks come before the web server too: the bean, its type, and no caller-runs. */
  @Test
  void aGateMustBeALaneGateBeanAndRulesOutCallerRuns() {
    dev.lanes.LaneGate gate = ready -> outcome -> {};
    ApplicationContextRunner withBeans = runner
        .withBean("cap", dev.lanes.LaneGate.class, () -> gate)
        .withBean("notAGate", String.class, () -> "no");
    for (String[] c : new String[][] {
        {"lanes.instances.db.gate=nope", "lanes.instances.db.gate", "no LaneGate bean named \"nope\""},
        {"lanes.instances.db.gate=notAGate", "lanes.instances.db.gate", "is a java.lang.String, not a dev.lanes.LaneGate"},
        {"lanes.instances.db.gate=cap,lanes.instances.db.overflow=caller-runs", "lanes.instances.db.overflow",
            "a gate cannot go with overflow caller-runs"}}) {
      withBeans
          .withPropertyValues(("lanes.instances.db.kind=blocking,lanes.instances.db.concurrency=2," + c[0]).split(","))
          .run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOfSatisfying(LanesPropertyException.class, e -> {
              assertThat(e.property()).isEqualTo(c[1]);
              assertThat(e.reason()).contains(c[2]);
            });
          });
    }
    withBeans
        .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2",
            "lanes.instances.db.gate=cap")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void aBadValueFailsStartupNamingThePropertyAndTheValue(String properties, String property, String value) {
    runner
        .withPropertyValues(properties.split(","))
        .run(
            context -> {
              assertThat(context).hasFailed();
              String failure = chain(context.getStartupFailure());
              assertThat(failure).contains(property).contains(value);
            });
  }

  /** Every message in the cause chain, one per line (what the failure report draws from). */
  private static String chain(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      s.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return s.toString();
  }

  /** In the process environment a dashed lane name cannot be told from a setting: not checked there. */
  @Test
  void unknownSettingsAreNotLookedForInTheProcessEnvironment() {
    runner
        .withPropertyValues("lanes.instances.db.kind=cpu")
        .withInitializer(context -> context.getEnvironment().getPropertySources().addLast(
            new org.springframework.core.env.SystemEnvironmentPropertySource(
                "systemEnvironment", java.util.Map.of("LANES_INSTANCES_DB_QUEUESIZE", "5"))))
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void everyHealthSettingIsAPropertyOfTheLane() {
    runner
        .withPropertyValues(
            "lanes.instances.db.kind=blocking",
            "lanes.instances.db.concurrency=3",
            "lanes.instances.db.fixed-wait-threshold=40ms",
            "lanes.instances.db.saturation-window=3s",
            "lanes.instances.db.saturation-min-wait=2ms",
            "lanes.instances.db.enter-after=500ms",
            "lanes.instances.db.exit-after=4s",
            "lanes.instances.db.deadlock-detection=300ms",
            "lanes.instances.db.shed-target=5ms",
            "lanes.instances.db.shed-interval=100ms",
            "lanes.instances.db.health-log-level=warning",
            "lanes.instances.ratio.kind=cpu",
            "lanes.instances.ratio.wait-to-run-ratio=2.5")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Lanes lanes = context.getBean(Lanes.class);
              LaneSettings db = lanes.lane("db").settings();
              assertThat(db.fixedWaitThreshold()).isEqualTo(Duration.ofMillis(40));
              assertThat(db.saturationWindow()).isEqualTo(Duration.ofSeconds(3));
              assertThat(db.saturationMinWait()).isEqualTo(Duration.ofMillis(2));
              assertThat(db.enterAfter()).isEqualTo(Duration.ofMillis(500));
              assertThat(db.exitAfter()).isEqualTo(Duration.ofSeconds(4));
              assertThat(db.shedTarget()).isEqualTo(Duration.ofMillis(5));
              assertThat(db.shedInterval()).isEqualTo(Duration.ofMillis(100));
              LaneSettings ratio = lanes.lane("ratio").settings();
              assertThat(ratio.waitToRunRatio()).isEqualTo(2.5);
              assertThat(ratio.fixedWaitThreshold()).isNull();
              assertThat(ratio.shedding()).isFalse();
            });
  }

  @Test
  void theConfigurationMetadataDescribesTheProperties() throws Exception {
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
      String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(metadata)
          .contains("\"name\": \"lanes.instances\"")
          .contains("dev.lanes.spring.boot.LanesProperties$Instance")
          .contains("\"name\": \"lanes.task-executor\"")
          .contains("\"name\": \"lanes.server.lane\"")
          .contains("\"name\": \"lanes.shutdown.await-termination\"");
    }
  }
}
