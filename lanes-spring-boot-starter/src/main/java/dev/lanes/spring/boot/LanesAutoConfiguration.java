package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.LaneGate;
import dev.lanes.Lanes;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.micrometer.AdaptiveLimitMetrics;
import dev.lanes.micrometer.LanesMetrics;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.micrometer.SharedCapMetrics;
import dev.lanes.shares.micrometer.PrioritySharesMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.coyote.ProtocolHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Lanes from {@code lanes.instances.*}: a {@link Lanes} bean, a bean per lane named after it, the
 * application task executor and Tomcat's request executor as lanes when asked, Micrometer meters,
 * and shutdown in step with Spring's lifecycle. Runs before Spring Boot's task execution
 * auto-configuration, which steps aside when {@code lanes.task-executor} names a lane.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lanes.enabled", matchIfMissing = true)
@Conditional(OnLanesDeclaredCondition.class)
@EnableConfigurationProperties(LanesProperties.class)
@Import({LaneBeansRegistrar.class, LanesConfigurationCheckAutoConfiguration.class})
public class LanesAutoConfiguration {

  /** Label of the tasks the embedded Tomcat hands its lane ({@code lanes.server.lane}). */
  public static final String TOMCAT_DISPATCH = "tomcat-dispatch";

  /** Every declared lane; closed (waiting for accepted tasks) when the context closes. */
  @Bean(name = "lanes", destroyMethod = "close")
  @ConditionalOnMissingBean
  public Lanes lanes(LanesProperties properties, LanesShares shares,
      org.springframework.beans.factory.config.ConfigurableListableBeanFactory beans) {
    // lanes.instances.<name>.gate names a LaneGate bean; the lanes are closed before it.
    return LanesFromProperties.build(properties, gate -> {
      LaneGate g;
      try {
        g = beans.getBean(gate, LaneGate.class);
      } catch (org.springframework.beans.BeansException e) {
        throw new IllegalArgumentException("no LaneGate bean named \"" + gate + "\": " + e.getMessage(), e);
      }
      beans.registerDependentBean(gate, "lanes");
      return g;
    }, shares);
  }

  /**
   * The priority shares of {@code lanes.shares.*}, each partition's gate given to the lane whose
   * {@code lanes.instances.<name>.share} names it.
   */
  @Bean
  @ConditionalOnMissingBean
  public LanesShares lanesShares(LanesProperties properties) {
    return LanesShares.build(properties);
  }

  /**
   * While the lanes run, a lane setting whose value does not convert (a refresh) is bound as the
   * lane has it, in Spring's {@code LanesProperties} as in the lane ({@link RunningLaneValues};
   * {@link LanesRebinder} says so in one WARN); before the lanes exist, the failure stands.
   */
  @Bean
  static org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor
      lanesRunningValues(org.springframework.beans.factory.config.ConfigurableListableBeanFactory beans) {
    return handler -> new RunningLaneValues(handler,
        () -> beans.containsSingleton("lanes") ? beans.getBean("lanes", Lanes.class) : null,
        (lane, property, value, expected) -> { });
  }

  /** {@code lanes.readiness.rejecting-for}: a lane REJECTING that long makes the application unready. */
  @Bean(destroyMethod = "close")
  @org.springframework.boot.autoconfigure.condition.ConditionalOnProperty("lanes.readiness.rejecting-for")
  LanesReadiness lanesReadiness(Lanes lanes, LanesProperties properties,
      org.springframework.context.ApplicationEventPublisher publisher,
      ObjectProvider<org.springframework.boot.availability.ApplicationAvailability> availability) {
    return new LanesReadiness(lanes, properties.getReadiness().getRejectingFor(), publisher,
        availability.getIfAvailable());
  }

  /** @Async without @EnableAsync (a WARN) and @Async naming no executor (start-up fails). */
  @Bean
  static LanesAsyncCheck lanesAsyncCheck(
      org.springframework.beans.factory.config.ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<Lanes> lanes) {
    return new LanesAsyncCheck(beanFactory, lanes);
  }

  @Bean
  @ConditionalOnMissingBean
  LanesLifecycle lanesLifecycle(Lanes lanes, LanesProperties properties) {
    return new LanesLifecycle(lanes, properties.getShutdown().getAwaitTermination());
  }

  /**
   * Live re-binding: with spring-cloud-context, its EnvironmentChangeEvent (a refresh) changes the
   * running lanes whose lanes.instances.* keys changed.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
  static class LiveRebinding {
    @Bean
    LanesEnvironmentChangeListener lanesEnvironmentChangeListener(
        Lanes lanes, org.springframework.core.env.Environment environment) {
      return new LanesEnvironmentChangeListener(new LanesRebinder(lanes, environment));
    }
  }

  /** Bound to every MeterRegistry by Spring Boot (it binds MeterBinder beans). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterBinder.class, LanesMetrics.class})
  static class Metrics {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LanesMetrics lanesMetrics(Lanes lanes) {
      return LanesMetrics.of(lanes);
    }
  }

  /** The meters of every share of {@code lanes.shares} ({@code lanes.shares.*}, tagged {@code share}, {@code partition}). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterBinder.class, PrioritySharesMetrics.class})
  static class SharesMeters {
    @Bean
    @ConditionalOnMissingBean(name = "lanesSharesMetrics")
    MeterBinder lanesSharesMetrics(LanesShares shares) {
      return registry -> shares.all().values().forEach(s -> new PrioritySharesMetrics(s).bindTo(registry));
    }
  }

  /**
   * lanes-redis on the class path: the meters of every {@code SharedCap} bean ({@code
   * lanes.shared.*}, tagged {@code lane}), bound to every registry with the lanes' own.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterBinder.class, SharedCapMetrics.class})
  static class SharedCapMeters {
    @Bean
    @ConditionalOnMissingBean(name = "lanesSharedCapMetrics")
    MeterBinder lanesSharedCapMetrics(ObjectProvider<SharedCap> caps) {
      return registry -> caps.orderedStream().forEach(cap -> new SharedCapMetrics(cap).bindTo(registry));
    }
  }

  /**
   * lanes-adapt on the class path: the meters of every {@code AdaptiveLimit} bean ({@code
   * lanes.adaptive.*}, tagged {@code lane}), bound to every registry with the lanes' own. Each
   * registry's binder counts the limit's changes from when it was bound.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterBinder.class, AdaptiveLimitMetrics.class})
  static class AdaptiveLimitMeters {
    @Bean
    @ConditionalOnMissingBean(name = "lanesAdaptiveLimitMetrics")
    MeterBinder lanesAdaptiveLimitMetrics(ObjectProvider<AdaptiveLimit> limits) {
      return registry -> limits.orderedStream().forEach(l -> new AdaptiveLimitMetrics(l).bindTo(registry));
    }
  }

  /**
   * {@code lanes.server.request-deadline=2s}: every request's lane tasks must start within that
   * time of its arrival ({@link RequestDeadlineFilter}, first in the filter chain).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "jakarta.servlet.Filter")
  @ConditionalOnProperty(RequestDeadlineFilter.PROPERTY)
  static class RequestDeadline {
    @Bean
    org.springframework.boot.web.servlet.FilterRegistrationBean<RequestDeadlineFilter>
        lanesRequestDeadlineFilter(LanesProperties properties) {
      var r = new org.springframework.boot.web.servlet.FilterRegistrationBean<>(
          new RequestDeadlineFilter(properties.getServer().getRequestDeadline()));
      r.setOrder(org.springframework.core.Ordered.HIGHEST_PRECEDENCE);
      r.setName("lanesRequestDeadline");
      return r;
    }
  }

  /**
   * {@code lanes.server.lane=http}: the embedded Tomcat runs its socket dispatches in lane "http",
   * each a task labelled {@value #TOMCAT_DISPATCH}. A dispatch is what Tomcat hands its executor
   * when a connection has something to read: it serves every request waiting there (one, or
   * several pipelined ones); the client's close of a kept-alive connection, a keep-alive timeout
   * or an error is a dispatch without a request. So the lane's tasks are dispatches, and its
   * requests are counted apart ({@link TomcatRequestFigures}), in {@code /actuator/lanes} and the
   * meters {@code lanes.request.wait} and {@code lanes.request.run}.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({TomcatProtocolHandlerCustomizer.class, ProtocolHandler.class})
  @ConditionalOnProperty("lanes.server.lane")
  static class TomcatRequests {
    @Bean
    TomcatRequestFigures lanesTomcatRequestFigures(Lanes lanes, LanesProperties properties) {
      return new TomcatRequestFigures(lanes.lane(properties.getServer().getLane()));
    }

    @Bean
    TomcatProtocolHandlerCustomizer<ProtocolHandler> lanesTomcatExecutor(
        Lanes lanes, TomcatRequestFigures figures) {
      Lane lane = lanes.lane(figures.lane());
      return handler -> handler.setExecutor(task -> lane.execute(TOMCAT_DISPATCH, figures.dispatch(task)));
    }

    @Bean
    TomcatContextCustomizer lanesTomcatRequestCounter(TomcatRequestFigures figures) {
      return context -> context.getPipeline().addValve(new TomcatRequestValve(figures));
    }

    /** Micrometer is always here: lanes-micrometer is one of the starter's own dependencies. */
    @Bean
    MeterBinder lanesTomcatRequestMeters(TomcatRequestFigures figures) {
      return new TomcatRequestMeters(figures);
    }
  }
}
