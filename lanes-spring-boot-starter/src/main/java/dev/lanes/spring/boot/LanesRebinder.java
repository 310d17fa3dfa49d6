package dev.lanes.spring.boot;

import dev.lanes.Lane;
import dev.lanes.LaneKind;
import dev.lanes.LaneSettings;
import dev.lanes.Lanes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.env.Environment;

/**
 * Changes running lanes when {@code lanes.instances.*} changes in Spring's environment (Spring
 * Cloud's {@code EnvironmentChangeEvent}, which carries the changed keys: Spring Cloud Config,
 * Consul, Kubernetes config maps, {@code /actuator/refresh}).
 *
 * <p>Per lane, all or nothing: the lane's whole configuration is checked again as at start-up
 * (the builder's messages); the settings whose keys changed are then applied in one {@link
 * dev.lanes.LaneChange} — a key that was removed takes the default. Settings not named by a changed
 * key are left as they are (a change made through the actuator survives an unrelated refresh). A
 * changed setting that cannot change while the lane runs ({@code kind}, {@code daemon}, {@code
 * gate}, {@code share}, {@code deadlock-detection}, {@code health-log-level}), or a lane added or removed, is one
 * WARN naming them, and that lane is left unchanged; so is a refused value (WARN with the
 * property, the value and the builder's message). A value that does not convert is one WARN and
 * that setting alone is kept as the lane has it ({@link RunningLaneValues}); the refresh goes on.
 *
 * <p>Thread-safety: called on whatever thread publishes the event; the lanes apply changes one at
 * a time, so two refreshes at once each apply in full, the later one last. Holds no state but the
 * defaults, computed once.
 */
final class LanesRebinder {
  private static final Log log = LogFactory.getLog(LanesRebinder.class);
  private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("lanes.instances");
  private static final Set<String> FIXED =
      Set.of("kind", "daemon", "gate", "share", "deadlock-detection", "health-log-level", "threads");

  private final Lanes lanes;
  private final Environment environment;

  LanesRebinder(Lanes lanes, Environment environment) {
    this.lanes = lanes;
    this.environment = environment;
  }

  /**
   * Applies the changed {@code keys} (property names, as Spring Cloud gives them) that are under
   * {@code lanes.instances}; others are ignored.
   *
   * @return the lanes changed
   */
  List<String> rebind(Collection<String> keys) {
    Map<String, Set<String>> changedByLane = new LinkedHashMap<>();
    for (String key : keys) {
      ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
      if (INSTANCES.isAncestorOf(name) && name.getNumberOfElements() >= 4) {
        changedByLane.computeIfAbsent(name.getElement(2, Form.ORIGINAL), k -> new LinkedHashSet<>())
            .add(name.getElement(3, Form.DASHED));
      } else if (INSTANCES.isAncestorOf(name) && name.getNumberOfElements() == 3) {
        changedByLane.computeIfAbsent(name.getElement(2, Form.ORIGINAL), k -> new LinkedHashSet<>());
      }
    }
    if (changedByLane.isEmpty()) {
      return List.of();
    }
    // A value that does not convert is refused with one WARN; the lane keeps that setting, and
    // its other changes apply (Spring's LanesProperties keeps it too: RunningLaneValues).
    BindHandler refusing = new RunningLaneValues(BindHandler.DEFAULT, () -> lanes,
        (lane, property, value, expected) -> {
          Set<String> settings = changedByLane.get(lane);
          if (settings != null) {
            settings.remove(property.getElement(3, Form.DASHED));
          }
          log.warn("lanes: refused property " + property
              + (value == null ? "" : ", value \"" + value + "\"") + ": not " + expected
              + "; lane \"" + lane + "\" keeps that setting");
        });
    LanesProperties now = Binder.get(environment)
        .bind("lanes", Bindable.of(LanesProperties.class), refusing).orElseGet(LanesProperties::new);
    List<String> changed = new ArrayList<>();
    changedByLane.forEach((lane, settings) -> {
      if (rebind(lane, settings, now.getInstances().get(lane))) {
        changed.add(lane);
      }
    });
    return changed;
  }

  private boolean rebind(String name, Set<String> settings, LanesProperties.Instance p) {
    String at = LanesFromProperties.PREFIX + name + ".";
    if (!lanes.names().contains(name)) {
      log.warn("lanes: lane \"" + name + "\" was declared in the environment while the application runs;"
          + " lanes are not added live (restart to create it)");
      return false;
    }
    if (p == null) {
      log.warn("lanes: lane \"" + name + "\" was removed from the environment while the application runs;"
          + " it keeps running with its settings until a restart");
      return false;
    }
    List<String> fixed = settings.stream().filter(FIXED::contains).map(s -> at + s).toList();
    if (!fixed.isEmpty()) {
      log.warn("lanes: " + String.join(", ", fixed) + " cannot change while the lane runs (restart to apply);"
          + " lane \"" + name + "\" is unchanged, its other changed settings included");
      return false;
    }
    List<String> unknown = settings.stream().filter(s -> !LiveSettings.PROPERTIES.contains(s)).toList();
    if (!unknown.isEmpty()) {
      log.warn("lanes: " + String.join(", ", unknown.stream().map(s -> at + s).toList())
          + ": lanes has no such setting; lane \"" + name + "\" is unchanged (settings of a lane: "
          + String.join(", ", LanesConfigurationCheck.settingNames()) + ")");
      return false;
    }
    Lane lane = lanes.lane(name);
    try {
      LanesFromProperties.builder(name, p); // every value checked with the builder's messages
    } catch (LanesPropertyException e) {
      log.warn("lanes: refused the new configuration of lane \"" + name + "\": property " + e.property()
          + ", value " + e.value() + ": " + e.reason() + "; the lane keeps its settings");
      return false;
    }
    LaneSettings defaults = defaults(lane);
    try {
      LaneSettings before = lane.settings();
      LaneSettings after = wanted(settings, p, defaults).changeOf(lane).apply();
      return !after.equals(before);
    } catch (IllegalArgumentException | IllegalStateException e) {
      log.warn("lanes: refused the new configuration of lane \"" + name + "\": " + e.getMessage()
          + "; the lane keeps its settings");
      return false;
    }
  }

  /** The new values of the changed settings; a removed one takes its default. */
  private static LiveSettings wanted(Set<String> changed, LanesProperties.Instance p, LaneSettings defaults) {
    boolean overflow = changed.contains("overflow") || changed.contains("block-timeout");
    boolean shedding = changed.contains("shed-target") || changed.contains("shed-interval");
    boolean threshold = changed.contains("wait-to-run-ratio") || changed.contains("fixed-wait-threshold");
    boolean hysteresis = changed.contains("enter-after") || changed.contains("exit-after");
    LanesProperties.Overflow policy = p.getOverflow() == null ? LanesProperties.Overflow.REJECT : p.getOverflow();
    return new LiveSettings(
        changed.contains("concurrency") ? or(p.getConcurrency(), defaults.concurrency()) : null,
        changed.contains("queue-capacity") ? or(p.getQueueCapacity(), defaults.queueCapacity()) : null,
        overflow ? policy : null,
        overflow ? p.getBlockTimeout() : null,
        shedding ? or(p.getShedTarget(), Duration.ZERO) : null,
        shedding ? p.getShedInterval() : null,
        threshold && p.getFixedWaitThreshold() == null ? or(p.getWaitToRunRatio(), defaults.waitToRunRatio()) : null,
        threshold ? p.getFixedWaitThreshold() : null,
        changed.contains("saturation-window") ? or(p.getSaturationWindow(), defaults.saturationWindow()) : null,
        changed.contains("saturation-min-wait") ? or(p.getSaturationMinWait(), defaults.saturationMinWait()) : null,
        hysteresis ? or(p.getEnterAfter(), defaults.enterAfter()) : null,
        hysteresis ? or(p.getExitAfter(), defaults.exitAfter()) : null);
  }

  private static <T> T or(T value, T otherwise) {
    return value != null ? value : otherwise;
  }

  /**
   * What a lane of this kind has when a setting is not given: read from a lane built with no
   * setting (the core's defaults, not copies of them), closed at once. Concurrency has a default
   * only on a cpu lane (the processors); the check before this refuses its removal elsewhere.
   */
  private static LaneSettings defaults(Lane lane) {
    try (Lanes probe = Lanes.of(lane.kind() == LaneKind.VIRTUAL
        ? Lane.virtual("defaults", 1) : Lane.cpu("defaults"))) {
      return probe.lane("defaults").settings();
    }
  }
}
