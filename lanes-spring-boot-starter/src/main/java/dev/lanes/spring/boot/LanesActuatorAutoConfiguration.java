package dev.lanes.spring.boot;

import dev.lanes.Lanes;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Actuator: the {@code lanes} endpoint and the {@code lanes} health indicator. */
@AutoConfiguration(after = LanesAutoConfiguration.class)
@ConditionalOnBean(Lanes.class)
public class LanesActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(LanesEndpoint.class)
    LanesEndpoint lanesEndpoint(Lanes lanes, ObjectProvider<LanesShares> shares,
        ObjectProvider<TomcatRequestFigures> tomcatRequests) {
      return new LanesEndpoint(lanes, shares.getIfAvailable(LanesShares::none),
          tomcatRequests.getIfAvailable());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
  static class HealthConfiguration {
    @Bean(name = "lanesHealthIndicator")
    @ConditionalOnMissingBean(name = "lanesHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("lanes")
    LanesHealthIndicator lanesHealthIndicator(Lanes lanes) {
      return new LanesHealthIndicator(lanes);
    }
  }
}
