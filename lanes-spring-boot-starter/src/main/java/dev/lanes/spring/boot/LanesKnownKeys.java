package dev.lanes.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The names under {@code lanes.}, read from the {@code META-INF/spring-configuration-metadata.json}
 * files on the class path — which {@code spring-boot-configuration-processor} writes from every
 * {@code @ConfigurationProperties} class — so a new property is known as soon as it is declared.
 * A map-typed property ({@code lanes.instances}) takes any key below it; the settings of a lane are
 * checked by {@link LanesConfigurationCheck}.
 */
final class LanesKnownKeys {
  static final ConfigurationPropertyName LANES = ConfigurationPropertyName.of("lanes");
  private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("lanes.instances");
  private static final ConfigurationPropertyName SHARES = ConfigurationPropertyName.of("lanes.shares");

  private record Known(ConfigurationPropertyName name, boolean map, String type) {}

  private final List<Known> known;

  private LanesKnownKeys(List<Known> known) {
    this.known = known;
  }

  /** The names in the class loader's metadata; empty when none describes {@code lanes.instances} (e.g. a jar merged without it). */
  static Optional<LanesKnownKeys> load(ClassLoader loader) {
    List<Known> known = new ArrayList<>();
    try {
      Enumeration<URL> files = loader.getResources("META-INF/spring-configuration-metadata.json");
      while (files.hasMoreElements()) {
        try (InputStream in = files.nextElement().openStream()) {
          Map<String, Object> metadata =
              JsonParserFactory.getJsonParser().parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          if (metadata.get("properties") instanceof List<?> properties) {
            for (Object p : properties) {
              if (p instanceof Map<?, ?> property && property.get("name") instanceof String name
                  && name.startsWith("lanes.")) {
                String type = String.valueOf(property.get("type"));
                known.add(new Known(ConfigurationPropertyName.of(name), type.startsWith("java.util.Map"), type));
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return known.stream().anyMatch(k -> k.name().equals(INSTANCES))
        ? Optional.of(new LanesKnownKeys(known))
        : Optional.empty();
  }

  /** Whether {@code name} (under {@code lanes.}) is a property, or a key below a map-typed one. */
  boolean isKnown(ConfigurationPropertyName name) {
    return known.stream().anyMatch(k -> k.name().equals(name) || (k.map() && k.name().isAncestorOf(name)));
  }

  /** Whether {@code name} is a {@code java.net.URI} property (where a {@code #} starts a fragment). */
  boolean isUri(ConfigurationPropertyName name) {
    return known.stream().anyMatch(k -> k.name().equals(name) && k.type().equals("java.net.URI"));
  }

  /** Whether the first element after {@code lanes.} of {@code name} is one the starter uses. */
  boolean isUnderAKnownName(ConfigurationPropertyName name) {
    return name.getNumberOfElements() > 1 && known.stream().anyMatch(k -> sameElement(k.name(), name, 1));
  }

  /**
   * Why {@code name} is refused: the nearest valid name, corrected element by element from the
   * first that is not known (a whole misspelled prefix included), and the valid names there.
   */
  String refusal(ConfigurationPropertyName name) {
    StringBuilder corrected = new StringBuilder("lanes");
    List<Known> candidates = known;
    String wrongAt = null;
    int i = 1;
    for (; i < name.getNumberOfElements() && !candidates.isEmpty(); i++) {
      int element = i;
      List<Known> deeper = candidates.stream().filter(k -> k.name().getNumberOfElements() > element).toList();
      if (deeper.isEmpty()) {
        break;
      }
      TreeSet<String> here = new TreeSet<>();
      deeper.forEach(k -> here.add(k.name().getElement(element, Form.DASHED)));
      String given = name.getElement(i, Form.DASHED);
      String chosen = here.stream().filter(h -> uniform(h).equals(uniform(given))).findFirst().orElse(null);
      if (chosen == null) {
        chosen = LanesConfigurationCheck.nearest(given, List.copyOf(here));
        if (wrongAt == null) {
          wrongAt = " (under " + corrected + ".: " + String.join(", ", here) + ")";
        }
      }
      corrected.append('.').append(chosen);
      String c = chosen;
      candidates = deeper.stream().filter(k -> k.name().getElement(element, Form.DASHED).equals(c)).toList();
      Optional<Known> map = candidates.stream().filter(k -> k.map() && k.name().getNumberOfElements() == element + 1).findFirst();
      if (map.isPresent()) {
        i++;
        break;
      }
    }
    boolean underInstances = ConfigurationPropertyName.of(corrected.toString()).equals(INSTANCES);
    if (underInstances && i < name.getNumberOfElements()) {
      corrected.append('.').append(name.getElement(i, Form.ORIGINAL));
      i++;
      if (i < name.getNumberOfElements()) {
        corrected.append('.').append(nearestSetting(name.getElement(i, Form.DASHED)));
        i++;
      }
    }
    boolean underShares = ConfigurationPropertyName.of(corrected.toString()).equals(SHARES);
    for (; underShares && i < name.getNumberOfElements(); i++) {
      corrected.append('.').append(name.getElement(i, Form.ORIGINAL));
    }
    if (!underInstances && !underShares && !isKnown(ConfigurationPropertyName.of(corrected.toString()))) {
      // Short of a property (lanes.server): the first property below what was corrected.
      ConfigurationPropertyName prefix = ConfigurationPropertyName.of(corrected.toString());
      corrected = new StringBuilder(candidates.stream().map(Known::name).filter(prefix::isAncestorOf)
          .findFirst().orElse(prefix).toString());
    }
    return "lanes has no property " + name + "; did you mean " + corrected + "?"
        + (wrongAt == null ? "" : wrongAt);
  }

  private static String nearestSetting(String given) {
    List<String> settings = LanesConfigurationCheck.settingNames();
    return settings.stream().filter(s -> uniform(s).equals(uniform(given))).findFirst()
        .orElseGet(() -> LanesConfigurationCheck.nearest(given, settings));
  }

  private static boolean sameElement(ConfigurationPropertyName a, ConfigurationPropertyName b, int element) {
    return a.getNumberOfElements() > element
        && uniform(a.getElement(element, Form.DASHED)).equals(uniform(b.getElement(element, Form.DASHED)));
  }

  private static String uniform(String dashed) {
    return dashed.replace("-", "");
  }
}
