package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.shares.PartitionStats;
import dev.lanes.shares.PriorityShares;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code lanes.shares.*}: priority shares from properties alone, and every mistake refused by name. */
class LanesSharesPropertiesTest {
  private static final List<String> DB = List.of(
      "lanes.shares.db.total=10",
      "lanes.shares.db.partitions.checkout.share=0.7",
      "lanes.shares.db.partitions.reports.share=0.3",
      "lanes.instances.checkout-db.kind=virtual", "lanes.instances.checkout-db.concurrency=10",
      "lanes.instances.checkout-db.share=db/checkout",
      "lanes.instances.reports-db.kind=virtual", "lanes.instances.reports-db.concurrency=10",
      "lanes.instances.reports-db.share=db/reports");

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LanesConfigurationCheckAutoConfiguration.class,
          LanesAutoConfiguration.class));

  private static String[] db(String... more) {
    List<String> all = new ArrayList<>(DB);
    for (String m : more) {
      String key = m.substring(0, m.indexOf('='));
      all.removeIf(p -> p.startsWith(key + "="));
      if (!m.endsWith("=")) {
        all.add(m);
      }
    }
    return all.toArray(String[]::new);
  }

  @Test
  void sharesFromPropertiesGateTheirLanesInDeclaredPriority() {
    runner.withPropertyValues(db("lanes.shares.db.lend-after-idle=250ms", "lanes.shares.db.claim-timeout=20ms"))
        .run(context -> {
          assertThat(context).hasNotFailed();
          PriorityShares db = context.getBean(LanesShares.class).get("db").orElseThrow();
          assertThat(db.total()).isEqualTo(10);
          assertThat(db.partitions()).containsExactly("checkout", "reports");
          assertThat(db.guaranteed("checkout")).isEqualTo(7);
          assertThat(db.guaranteed("reports")).isEqualTo(3);
          assertThat(db.lendAfterIdle()).isEqualTo(Duration.ofMillis(250));
          assertThat(db.claimTimeout()).isEqualTo(Duration.ofMillis(20));
          Lanes lanes = context.getBean(Lanes.class);
          assertThat(lanes.lane("reports-db").submit(() -> "ran").get(30, TimeUnit.SECONDS)).isEqualTo("ran");
          // Every pass came back; a worker that asked beside the one that took the task gives its
          // pass back unused, so one task may count more than one pass (seen: 2).
          org.awaitility.Awaitility.await().until(() -> db.stats().partition("reports").held() == 0);
          long granted = db.stats().partition("reports").granted();
          assertThat(granted).isBetween(1L, 10L);
          assertThat(db.stats().partition("checkout").granted()).isZero();
          // The meters of every share, bound by Spring Boot to each registry.
          SimpleMeterRegistry registry = new SimpleMeterRegistry();
          context.getBean("lanesSharesMetrics", MeterBinder.class).bindTo(registry);
          assertThat(registry.get("lanes.shares.partition.granted").tags("share", "db", "partition", "reports")
              .functionCounter().count()).isEqualTo((double) granted);
          assertThat(registry.get("lanes.shares.partition.guaranteed").tags("share", "db", "partition", "checkout")
              .gauge().value()).isEqualTo(7);
        });
  }

  /** Priority is the order the partitions are declared in. */
  @Test
  void theFirstPartitionDeclaredHasTheHighestPriority() {
    runner.withPropertyValues("lanes.shares.db.total=4", "lanes.shares.db.partitions.reports.share=0.25",
            "lanes.shares.db.partitions.checkout.share=0.75",
            "lanes.instances.a.kind=virtual", "lanes.instances.a.concurrency=4", "lanes.instances.a.share=db/checkout",
            "lanes.instances.b.kind=virtual", "lanes.instances.b.concurrency=4", "lanes.instances.b.share=db/reports")
        .run(context -> assertThat(context.getBean(LanesShares.class).get("db").orElseThrow().stats().partitions())
            .extracting(PartitionStats::partition).containsExactly("reports", "checkout"));
  }

  @Test
  void gateBeansStillWorkBesideShares() {
    runner.withUserConfiguration(GateConfig.class)
        .withPropertyValues(db("lanes.instances.partner.kind=virtual", "lanes.instances.partner.concurrency=2",
            "lanes.instances.partner.gate=openGate"))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Lanes.class).lane("partner").submit(() -> 1).get(30, TimeUnit.SECONDS))
              .isEqualTo(1);
          assertThat(context.getBean(GateConfig.class).used.get()).as("passes used by a task").isEqualTo(1);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class GateConfig {
    /** Passes given back with an outcome: a task ran on them (an unused pass comes back null). */
    final java.util.concurrent.atomic.AtomicInteger used = new java.util.concurrent.atomic.AtomicInteger();

    @Bean
    dev.lanes.LaneGate openGate() {
      return ready -> outcome -> {
        if (outcome != null) {
          used.incrementAndGet();
        }
      };
    }
  }

  static Stream<Arguments> mistakes() {
    return Stream.of(
        mistake(db("lanes.instances.checkout-db.share=dbx/checkout"), "lanes.instances.checkout-db.share",
            "\"dbx/checkout\"", "no share \"dbx\" is declared under lanes.shares (declared shares: db)"),
        mistake(db("lanes.instances.checkout-db.share=db/chekout"), "lanes.instances.checkout-db.share",
            "\"db/chekout\"", "share \"db\" has no partition \"chekout\" (its partitions: checkout, reports)"),
        mistake(db("lanes.instances.checkout-db.share=db"), "lanes.instances.checkout-db.share", "\"db\"",
            "expected <share>/<partition>, e.g. db/checkout"),
        mistake(db("lanes.shares.db.partitions.reports.share=0.4"), "lanes.shares.db.partitions.reports.share",
            "\"0.4\"", "partition \"reports\": shares must sum to ≤ 1, would sum to 1.1 (0.7 before, plus 0.4)"),
        mistake(db("lanes.shares.db.partitions.reports.share=0"), "lanes.shares.db.partitions.reports.share",
            "\"0.0\"", "share must be > 0 and ≤ 1, was 0.0"),
        mistake(db("lanes.shares.db.total=0"), "lanes.shares.db.total", "\"0\"",
            "total must be between 1 and 1000000, was 0"),
        mistake(db("lanes.shares.db.total="), "lanes.shares.db.total", "(unset)", "required"),
        mistake(db("lanes.shares.db.total=1"), "lanes.shares.db.partitions", "\"checkout, reports\"",
            "the guaranteed permits (floor(share × total), at least 1 each) must sum to ≤ total 1"),
        mistake(db("lanes.shares.db.lend-after-idle=2h"), "lanes.shares.db.lend-after-idle", "\"PT2H\"",
            "lendAfterIdle must be between 0 and PT1H"),
        mistake(db("lanes.shares.db.claim-timeout=0s"), "lanes.shares.db.claim-timeout", "\"PT0S\"",
            "claimTimeout must be between 1 ms and 1 min"),
        mistake(db("lanes.instances.reports-db.share="), "lanes.shares.db.partitions.reports", "(unset)",
            "no lane serves partition db/reports: set lanes.instances.<lane>.share=db/reports"),
        mistake(db("lanes.instances.reports-db.share=db/checkout"), "lanes.instances.reports-db.share",
            "\"db/checkout\"", "partition db/checkout is served by lane \"checkout-db\" already"),
        mistake(db("lanes.instances.checkout-db.gate=someGate"), "lanes.instances.checkout-db.share",
            "\"db/checkout\"", "set either gate or share"),
        mistake(db("lanes.instances.checkout-db.overflow=caller-runs"), "lanes.instances.checkout-db.overflow",
            "\"caller-runs\"", "a share cannot go with overflow caller-runs"),
        mistake(db("lanes.shares.db.partitions.checkout.share=", "lanes.shares.db.partitions.checkout.x=1"),
            "lanes.shares.db.partitions.checkout.x", "\"1\"",
            "did you mean lanes.shares.db.partitions.checkout.share?"),
        mistake(db("lanes.shares.db.totl=10"), "lanes.shares.db.totl", "\"10\"",
            "a share has no setting \"totl\"; did you mean lanes.shares.db.total?"),
        mistake(db("lanes.shares.db.partitions.reports.shares=0.3"), "lanes.shares.db.partitions.reports.shares",
            "\"0.3\"", "did you mean lanes.shares.db.partitions.reports.share?"),
        mistake(db("lanes.shares.db.partitions.reports=0.3"), "lanes.shares.db.partitions.reports", "\"0.3\"",
            "a partition's share is set as lanes.shares.db.partitions.reports.share"),
        mistake(db("lanes.share.db.total=10"), "lanes.share.db.total", "\"10\"",
            "did you mean lanes.shares.db.total?"),
        mistake(new String[] {"lanes.shares.db.total=10", "lanes.shares.db.partitions.checkout.share=1"},
            "lanes.shares.db.partitions.checkout", "(unset)", "no lane serves partition db/checkout"));
  }

  private static Arguments mistake(String[] properties, String key, String value, String reason) {
    return Arguments.of(String.join(",", properties), key, value, reason);
  }

  @ParameterizedTest(name = "{1} {2}")
  @MethodSource("mistakes")
  void aMistakeFailsStartupNamingTheKeyTheValueAndTheBound(String properties, String key, String value,
      String reason) {
    runner.withUserConfiguration(GateConfig.class)
        .withPropertyValues(properties.split(","))
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).isInstanceOfSatisfying(LanesPropertyException.class, e -> {
            assertThat(e.property()).isEqualTo(key);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.reason()).contains(reason);
          });
        });
  }
}
