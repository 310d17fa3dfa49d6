package dev.lanes.spring.boot;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Checks {@code lanes.*} while the bean factory is being prepared — before any bean is made and
 * before the embedded web server is created — so a bad value is the first and only failure of the
 * start-up (issue #26: built later, inside the web server's creation, it came out as the cause of
 * "Unable to start web server"). Refuses a key under {@code lanes.} that is none of the starter's
 * properties ({@link LanesKnownKeys}) and a setting under {@code lanes.instances.<name>} that lanes
 * does not have, naming the nearest one; then, when a lane is declared, checks every value as
 * {@link LanesFromProperties} would.
 *
 * <p>Unknown keys are looked for in every property source but the process environment: there a
 * lane name with a dash ({@code LANES_INSTANCES_PARTNER_API_KIND}) cannot be told from a setting.
 * In the JVM's system properties, shared with lanes' agent ({@code lanes.agent.control}) and tools,
 * only keys under the starter's own names ({@code lanes.server.}, ...) are checked.
 */
final class LanesConfigurationCheck implements BeanFactoryPostProcessor, Ordered {
  private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("lanes.instances");
  private static final ConfigurationPropertyName SHARES = ConfigurationPropertyName.of("lanes.shares");

  private final ConfigurableEnvironment environment;

  LanesConfigurationCheck(ConfigurableEnvironment environment) {
    this.environment = environment;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    refuseUnknownKeys();
    LanesProperties properties =
        Binder.get(environment).bind("lanes", LanesProperties.class).orElseGet(LanesProperties::new);
    if (properties.getInstances().isEmpty()) {
      LanesShares.build(properties); // a share with no lane declared fails, naming its partitions
      return; // no lane to build: LanesAutoConfiguration steps aside
    }
    LanesFromProperties.check(properties, name -> {
      if (!beanFactory.containsBean(name)) {
        return null;
      }
      Class<?> type = beanFactory.getType(name, false);
      return type != null ? type : dev.lanes.LaneGate.class; // not known before it is made: building the lanes checks it
    });
  }

  private void refuseUnknownKeys() {
    List<String> known = settingNames();
    Optional<LanesKnownKeys> keys = LanesKnownKeys.load(LanesConfigurationCheck.class.getClassLoader());
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)
          || source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource) {
        continue;
      }
      boolean systemProperties = source.getUnderlyingSource() instanceof PropertySource<?> p
          && p.getName().equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
      for (ConfigurationPropertyName name : (Iterable<ConfigurationPropertyName>) iterable.stream()::iterator) {
        if (keys.isPresent() && LanesKnownKeys.LANES.isAncestorOf(name) && !keys.get().isKnown(name)
            && !(systemProperties && !keys.get().isUnderAKnownName(name))) {
          ConfigurationProperty property = source.getConfigurationProperty(name);
          throw new LanesPropertyException(
              name.toString(), property == null ? null : property.getValue(), keys.get().refusal(name));
        }
        if (LanesKnownKeys.LANES.isAncestorOf(name)) {
          refuseEndOfLineComment(name, source.getConfigurationProperty(name),
              keys.isPresent() && keys.get().isUri(name));
        }
        if (SHARES.isAncestorOf(name)) {
          refuseUnknownShareSetting(name, source);
        }
        if (!INSTANCES.isAncestorOf(name) || name.getNumberOfElements() < 4) {
          continue;
        }
        String setting = name.getElement(3, Form.DASHED);
        String given = name.getElement(3, Form.UNIFORM);
        if (!given.equals("threads") && known.stream().noneMatch(k -> uniform(k).equals(given))) {
          ConfigurationProperty property = source.getConfigurationProperty(name);
          throw new LanesPropertyException(
              name.toString(),
              property == null ? null : property.getValue(),
              "lanes has no setting \"" + setting + "\"; did you mean "
                  + LanesFromProperties.PREFIX + name.getElement(2, Form.ORIGINAL) + "."
                  + nearest(setting, known) + "? (settings of a lane: " + String.join(", ", known) + ")");
        }
      }
    }
  }

  /**
   * Under {@code lanes.shares.<share>.}: a setting of a share ({@link LanesProperties.Share}), and
   * under its {@code partitions.<partition>.} one of a partition ({@link LanesProperties.Partition}).
   */
  private static void refuseUnknownShareSetting(ConfigurationPropertyName name, ConfigurationPropertySource source) {
    String share = LanesShares.PREFIX + name.getElement(2, Form.ORIGINAL) + ".";
    List<String> shareSettings = propertyNames(LanesProperties.Share.class);
    String setting = name.getNumberOfElements() > 3 ? name.getElement(3, Form.DASHED) : "";
    boolean partitions = setting.equals("partitions");
    String refusal = null;
    if (name.getNumberOfElements() == 3 || !shareSettings.contains(setting)) {
      refusal = "a share has no setting \"" + setting + "\"; did you mean " + share
          + nearest(setting, shareSettings) + "? (settings of a share: " + String.join(", ", shareSettings) + ")";
    } else if (partitions && name.getNumberOfElements() < 6) {
      String partition = name.getNumberOfElements() > 4 ? name.getElement(4, Form.ORIGINAL) : "<partition>";
      refusal = "a partition's share is set as " + share + "partitions." + partition + ".share";
    } else if (partitions && !name.getElement(5, Form.DASHED).equals("share")) {
      refusal = "a partition has no setting \"" + name.getElement(5, Form.DASHED) + "\"; did you mean " + share
          + "partitions." + name.getElement(4, Form.ORIGINAL) + ".share? (settings of a partition: share)";
    } else if (!partitions && name.getNumberOfElements() > 4) {
      refusal = "lanes has no property " + name + "; did you mean " + share + setting + "?";
    }
    if (refusal != null) {
      ConfigurationProperty property = source.getConfigurationProperty(name);
      throw new LanesPropertyException(name.toString(), property == null ? null : property.getValue(), refusal);
    }
  }

  /**
   * A {@code #} or {@code !} in a value read from a {@code .properties} file: meant as a comment,
   * it is part of the value there (in a URL only after a space: {@code #} alone starts a fragment).
   */
  private static void refuseEndOfLineComment(ConfigurationPropertyName name, ConfigurationProperty property, boolean uri) {
    if (property == null || !(property.getValue() instanceof String value) || !fromPropertiesFile(property.getOrigin())) {
      return;
    }
    Matcher comment = (uri ? COMMENT_AFTER_SPACE : COMMENT).matcher(value);
    if (comment.find()) {
      throw new LanesPropertyException(name.toString(), value, "\"" + comment.group().strip() + "\" is part of the"
          + " value: .properties files have no end-of-line comments; put the comment on its own line");
    }
  }

  private static final Pattern COMMENT = Pattern.compile("\\s*[#!].*");
  private static final Pattern COMMENT_AFTER_SPACE = Pattern.compile("\\s+[#!].*");

  private static boolean fromPropertiesFile(Origin origin) {
    for (Origin o = origin; o != null; o = o.getParent()) {
      if (o instanceof PropertySourceOrigin wrapper && wrapper.getOrigin() != null) {
        o = wrapper.getOrigin(); // the file's own origin; its getParent() skips it
      }
      if (o instanceof TextResourceOrigin text && text.getResource() != null
          && text.getResource().getFilename() != null && text.getResource().getFilename().endsWith(".properties")) {
        return true;
      }
    }
    return false;
  }

  /** Every setting of a lane, dashed: the properties of {@link LanesProperties.Instance}. */
  static List<String> settingNames() {
    List<String> names = new ArrayList<>(propertyNames(LanesProperties.Instance.class));
    names.remove("threads"); // the old name, refused with its own message
    return names;
  }

  /** The properties of a properties class, dashed. */
  private static List<String> propertyNames(Class<?> type) {
    try {
      List<String> names = new ArrayList<>();
      for (PropertyDescriptor d : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
        names.add(d.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT));
      }
      return names;
    } catch (IntrospectionException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String uniform(String dashed) {
    return dashed.replace("-", "");
  }

  /**
   * The known name closest to {@code given} (ignoring dashes and case): the least edit distance,
   * less twice the length of the common prefix, so {@code queue-size} finds {@code queue-capacity}.
   */
  static String nearest(String given, List<String> known) {
    String best = known.getFirst();
    int bestDistance = Integer.MAX_VALUE;
    String g = uniform(given.toLowerCase(Locale.ROOT));
    for (String k : known) {
      String u = uniform(k);
      int prefix = 0;
      while (prefix < Math.min(g.length(), u.length()) && g.charAt(prefix) == u.charAt(prefix)) {
        prefix++;
      }
      int d = distance(g, u) - 2 * prefix;
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
