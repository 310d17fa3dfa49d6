package dev.lanes.spring.boot;

import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;

/**
 * Spring Cloud's {@link EnvironmentChangeEvent} (published by its refresh: Spring Cloud Config,
 * Consul, Kubernetes config maps, {@code /actuator/refresh}) changes the running lanes whose
 * {@code lanes.instances.*} keys changed ({@link LanesRebinder}). Only with {@code
 * spring-cloud-context} on the class path.
 */
final class LanesEnvironmentChangeListener implements ApplicationListener<EnvironmentChangeEvent> {
  private final LanesRebinder rebinder;

  LanesEnvironmentChangeListener(LanesRebinder rebinder) {
    this.rebinder = rebinder;
  }

  @Override
  public void onApplicationEvent(EnvironmentChangeEvent event) {
    rebinder.rebind(event.getKeys());
  }
}
