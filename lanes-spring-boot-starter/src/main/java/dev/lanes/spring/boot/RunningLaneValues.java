package dev.lanes.spring.boot;

import dev.lanes.LaneSettings;
import dev.lanes.Lanes;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;

/**
 * A bind handler for a running application: a lane setting whose value does not convert (a
 * refresh brought {@code concurrency=six}) is bound as the running lane has it, so the lane and
 * Spring's view of its settings keep the same value, and the refresh goes on. Before the lanes
 * exist (start-up) and for any other property, the failure stands.
 */
final class RunningLaneValues extends AbstractBindHandler {
  private static final ConfigurationPropertyName INSTANCES =
      ConfigurationPropertyName.of("lanes.instances");

  /** Told of each value kept: the property, the value given, and the form it should have had. */
  interface Refusals {
    void refused(String lane, ConfigurationPropertyName property, @Nullable Object value, String expected);
  }

  private final Supplier<@Nullable Lanes> lanes;
  private final Refusals refusals;

  RunningLaneValues(BindHandler parent, Supplier<@Nullable Lanes> lanes, Refusals refusals) {
    super(parent);
    this.lanes = lanes;
    this.refusals = refusals;
  }

  @Override
  public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target,
      BindContext context, Exception error) throws Exception {
    Lanes running = lanes.get();
    if (running == null || !INSTANCES.isAncestorOf(name) || name.getNumberOfElements() != 4) {
      return super.onFailure(name, target, context, error);
    }
    String lane = name.getElement(2, Form.ORIGINAL);
    Object kept = running.names().contains(lane)
        ? current(running.lane(lane).settings(), name.getElement(3, Form.DASHED)) : null;
    if (kept == null) {
      return super.onFailure(name, target, context, error);
    }
    ConfigurationProperty property = context.getConfigurationProperty();
    refusals.refused(lane, name, property == null ? null : property.getValue(),
        ValueForms.expected(target.getType().resolve(Object.class)));
    return kept;
  }

  /** The value a running lane has for a setting, as its property holds it; null if not kept. */
  private static @Nullable Object current(LaneSettings s, String setting) {
    return switch (setting) {
      case "concurrency" -> s.concurrency();
      case "queue-capacity" -> s.queueCapacity();
      case "shed-interval" -> s.shedInterval();
      case "wait-to-run-ratio" -> s.fixedWaitThreshold() == null ? s.waitToRunRatio() : null;
      case "fixed-wait-threshold" -> s.fixedWaitThreshold();
      case "saturation-window" -> s.saturationWindow();
      case "saturation-min-wait" -> s.saturationMinWait();
      case "enter-after" -> s.enterAfter();
      case "exit-after" -> s.exitAfter();
      default -> null; // overflow, block-timeout, shed-target, fixed settings: the failure stands
    };
  }
}
