package dev.lanes.spring.boot;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when at least one lane is declared under {@code lanes.instances}. */
final class OnLanesDeclaredCondition extends SpringBootCondition {
  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    Map<String, Object> declared =
        Binder.get(context.getEnvironment())
            .bind("lanes.instances", Bindable.mapOf(String.class, Object.class))
            .orElse(Map.of());
    return declared.isEmpty()
        ? ConditionOutcome.noMatch("no lane declared under lanes.instances")
        : ConditionOutcome.match("lanes declared: " + String.join(", ", declared.keySet()));
  }
}
