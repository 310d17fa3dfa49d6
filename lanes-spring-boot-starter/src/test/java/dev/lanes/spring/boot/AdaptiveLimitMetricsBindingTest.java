package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.AdaptiveSettings;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** With lanes-adapt on the class path, every AdaptiveLimit bean gets its lanes.adaptive.* meters. */
class AdaptiveLimitMetricsBindingTest {

  @Configuration(proxyBeanMethods = false)
  static class UserConfig {
    @Bean(destroyMethod = "close")
    AdaptiveLimit partnerLimit(Lanes lanes) {
      return AdaptiveLimit.attach(lanes.lane("partner"),
          AdaptiveSettings.builder().minLimit(2).maxLimit(40).build());
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
      .withUserConfiguration(UserConfig.class)
      .withPropertyValues("lanes.instances.partner.kind=virtual", "lanes.instances.partner.concurrency=5");

  @Test
  void everyAdaptiveLimitBeanIsMetered() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed().hasBean("lanesAdaptiveLimitMetrics");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ctx.getBean("lanesAdaptiveLimitMetrics", MeterBinder.class).bindTo(registry);
      assertThat(registry.get("lanes.adaptive.limit").tag("lane", "partner").gauge().value())
          .isEqualTo(ctx.getBean(AdaptiveLimit.class).limit()).isEqualTo(5);
      assertThat(registry.get("lanes.adaptive.limit.min").tag("lane", "partner").gauge().value()).isEqualTo(2);
      assertThat(registry.get("lanes.adaptive.limit.max").tag("lane", "partner").gauge().value()).isEqualTo(40);
      assertThat(registry.find("lanes.adaptive.changes").tag("lane", "partner").functionCounters())
          .extracting(c -> c.getId().getTag("reason")).containsExactlyInAnyOrder("probe", "grow", "cut");
    });
  }

  @Test
  void withoutLanesAdaptThereIsNoSuchBean() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
        .withPropertyValues("lanes.instances.partner.kind=virtual", "lanes.instances.partner.concurrency=5")
        .withClassLoader(new FilteredClassLoader("dev.lanes.adapt"))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("lanesAdaptiveLimitMetrics")
            .hasBean("lanesMetrics"));
  }
}
