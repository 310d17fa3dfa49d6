package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.harness.RedisServerProcess;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** With lanes-redis on the class path, every SharedCap bean gets its lanes.shared.* meters. */
class SharedCapMetricsBindingTest {

  private static RedisServerProcess redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Configuration(proxyBeanMethods = false)
  static class UserConfig {
    @Bean(destroyMethod = "close")
    SharedCap partnerCap() {
      return SharedCap.builder("partner", redis.uri()).cap(3).build();
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
      .withUserConfiguration(UserConfig.class)
      .withPropertyValues("lanes.instances.partner.kind=virtual", "lanes.instances.partner.concurrency=5",
          "lanes.instances.partner.gate=partnerCap");

  @Test
  void everySharedCapBeanIsMetered() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed().hasBean("lanesSharedCapMetrics");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ctx.getBean("lanesSharedCapMetrics", MeterBinder.class).bindTo(registry);
      assertThat(registry.get("lanes.shared.cap").tag("lane", "partner").gauge().value()).isEqualTo(3);
      assertThat(registry.get("lanes.shared.permits.in.use").tag("lane", "partner").gauge().value()).isZero();
      // A task through the gated lane, on the Lettuce version Spring Boot manages here.
      Lane partner = ctx.getBean(Lanes.class).lane("partner");
      assertThat(partner.submit(() -> "ran").get(30, TimeUnit.SECONDS)).isEqualTo("ran");
      assertThat(registry.get("lanes.shared.permits.granted").tag("lane", "partner").functionCounter().count())
          .isGreaterThanOrEqualTo(1);
    });
  }

  @Test
  void withoutLanesRedisThereIsNoSuchBean() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
        .withPropertyValues("lanes.instances.partner.kind=virtual", "lanes.instances.partner.concurrency=5")
        .withClassLoader(new FilteredClassLoader("dev.lanes.redis"))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("lanesSharedCapMetrics")
            .hasBean("lanesMetrics"));
  }
}
