package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.task.support.TaskExecutorAdapter;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers one bean per declared lane, named after it, so {@code @Qualifier("db") Lane db} and
 * {@code @Async("db")} find it; and, with {@code lanes.task-executor}, the {@code
 * applicationTaskExecutor} bean over that lane.
 *
 * <p>Lane beans are not default autowire candidates: a plain {@code Lane} or {@code Executor}
 * injection point does not pick one up unqualified, and Spring Boot's own task executor (which
 * steps aside when the context has an ordinary {@code Executor} bean) stays in place unless {@code
 * lanes.task-executor} asks otherwise. They have no destroy method of their own: the {@link Lanes}
 * bean and {@link LanesLifecycle} close them.
 */
final class LaneBeansRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

  /** Spring Boot's name for the application task executor (and @Async's default). */
  static final String APPLICATION_TASK_EXECUTOR = "applicationTaskExecutor";

  private Environment environment;
  private BeanFactory beanFactory;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Binder binder = Binder.get(environment);
    // The names only: converting the values here would fail before LanesConfigurationCheck explains them.
    Map<String, Object> instances =
        binder.bind("lanes.instances", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
    for (String name : instances.keySet()) {
      RootBeanDefinition lane = new RootBeanDefinition(Lane.class, () -> lanes().lane(name));
      lane.setDefaultCandidate(false);
      lane.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
      lane.setDestroyMethodName(""); // closed by the Lanes bean and LanesLifecycle, in order
      registry.registerBeanDefinition(name, lane);
    }
    String taskExecutor = binder.bind("lanes.task-executor", String.class).orElse(null);
    if (taskExecutor != null && instances.containsKey(taskExecutor)) {
      RootBeanDefinition executor =
          new RootBeanDefinition(
              TaskExecutorAdapter.class, () -> new TaskExecutorAdapter(lanes().lane(taskExecutor)));
      executor.setDestroyMethodName("");
      registry.registerBeanDefinition(APPLICATION_TASK_EXECUTOR, executor);
      registry.registerAlias(APPLICATION_TASK_EXECUTOR, "taskExecutor");
    }
  }

  private Lanes lanes() {
    return beanFactory.getBean(Lanes.class); // ours, or the application's own Lanes bean
  }
}
