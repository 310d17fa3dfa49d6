package dev.lanes.spring.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Checks {@code lanes.*} in every application that has the starter, lanes declared or not: a
 * misspelled {@code lanes.instance.db.kind} declares no lane, and would otherwise go unnoticed.
 */
@AutoConfiguration(before = LanesAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lanes.enabled", matchIfMissing = true)
public class LanesConfigurationCheckAutoConfiguration {

  /** Checks lanes.* before any bean is made and before the web server is created. */
  @Bean
  static LanesConfigurationCheck lanesConfigurationCheck(ConfigurableEnvironment environment) {
    return new LanesConfigurationCheck(environment);
  }
}
