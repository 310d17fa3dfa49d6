package dev.lanes.spring.boot;

import dev.lanes.Lanes;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.AsyncAnnotationBeanPostProcessor;
import org.springframework.scheduling.config.TaskManagementConfigUtils;
import org.springframework.util.ClassUtils;

/**
 * Two {@code @Async} traps, checked once every singleton exists (issue #26):
 *
 * <ol>
 *   <li>{@code @Async("db")} in an application without {@code @EnableAsync} runs on the caller's
 *       thread, silently. One WARN names every such method and says to add {@code @EnableAsync}.
 *       (The starter does not enable async itself: that would change, unasked, what every other
 *       {@code @Async} method of the application does.)
 *   <li>{@code @Async("reports")} naming no lane and no other {@code Executor} bean fails at its
 *       first call in Spring; here the start-up fails, naming the method and the declared lanes.
 *       The name is resolved as Spring resolves it when the method is called ({@code ${...}}
 *       placeholders, then {@link BeanFactoryAnnotationUtils#qualifiedBeanOfType} for an {@link
 *       Executor}).
 * </ol>
 */
final class LanesAsyncCheck implements SmartInitializingSingleton {
  private static final Log log = LogFactory.getLog(LanesAsyncCheck.class);

  private final ConfigurableListableBeanFactory beanFactory;
  private final ObjectProvider<Lanes> lanes;

  LanesAsyncCheck(ConfigurableListableBeanFactory beanFactory, ObjectProvider<Lanes> lanes) {
    this.beanFactory = beanFactory;
    this.lanes = lanes;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Map<String, String> asyncMethods = asyncMethods(); // "Type.method(args)" -> the @Async value
    for (Map.Entry<String, String> m : asyncMethods.entrySet()) {
      String qualifier = beanFactory.resolveEmbeddedValue(m.getValue());
      if (qualifier == null || qualifier.isEmpty()) {
        continue;
      }
      try {
        BeanFactoryAnnotationUtils.qualifiedBeanOfType(beanFactory, Executor.class, qualifier);
      } catch (NoSuchBeanDefinitionException e) {
        Lanes all = lanes.getIfAvailable();
        throw new LanesAsyncQualifierException(
            m.getKey(), qualifier, all == null ? List.of() : List.copyOf(all.names()));
      }
    }
    if (!asyncMethods.isEmpty() && !asyncEnabled()) {
      StringBuilder message = new StringBuilder(
          "@Async has no effect in this application: no @EnableAsync, so these methods run on the"
              + " caller's thread, not in their lane or executor:");
      asyncMethods.forEach((method, value) ->
          message.append("\n    @Async").append(value.isEmpty() ? "" : "(\"" + value + "\")")
              .append(" ").append(method));
      message.append("\nAdd @EnableAsync to a @Configuration class.");
      log.warn(message);
    }
  }

  private boolean asyncEnabled() {
    return beanFactory.containsBean(TaskManagementConfigUtils.ASYNC_ANNOTATION_PROCESSOR_BEAN_NAME)
        || beanFactory.containsBean(TaskManagementConfigUtils.ASYNC_EXECUTION_ASPECT_BEAN_NAME)
        || BeanFactoryUtils.beanNamesForTypeIncludingAncestors(
                beanFactory, AsyncAnnotationBeanPostProcessor.class, true, false).length > 0;
  }

  /** Every method of a bean that is {@code @Async} (itself or by its class), with the value. */
  private Map<String, String> asyncMethods() {
    Map<String, String> found = new LinkedHashMap<>();
    for (String name : beanFactory.getBeanDefinitionNames()) {
      Class<?> type = beanClass(name);
      if (type == null) {
        continue;
      }
      Async onClass = AnnotatedElementUtils.findMergedAnnotation(type, Async.class);
      Map<Method, Async> methods = MethodIntrospector.selectMethods(type,
          (MethodIntrospector.MetadataLookup<Async>) method ->
              AnnotatedElementUtils.findMergedAnnotation(method, Async.class));
      List<String> names = new ArrayList<>();
      methods.forEach((method, async) -> {
        String key = type.getName() + "." + method.getName() + "("
            + String.join(", ", java.util.Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).toList()) + ")";
        found.put(key, async.value());
        names.add(key);
      });
      if (onClass != null && names.isEmpty()) {
        found.put(type.getName() + " (every public method)", onClass.value());
      }
    }
    return found;
  }

  /** The bean's own class (behind a proxy), or null if it cannot be told without making it. */
  private Class<?> beanClass(String name) {
    if (beanFactory.containsSingleton(name)) {
      Object bean = beanFactory.getSingleton(name);
      return bean == null ? null : AopUtils.getTargetClass(bean);
    }
    Class<?> type = beanFactory.getType(name, false);
    return type == null ? null : ClassUtils.getUserClass(type);
  }
}
