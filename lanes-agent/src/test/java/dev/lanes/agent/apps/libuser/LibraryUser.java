package dev.lanes.agent.apps.libuser;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;

/**
 * Uses the application's own Byte Buddy and Jackson 3 the way libraries do (Hibernate makes
 * proxies, Jackson parses doubles with its fast parser); defined by the child class loader of
 * {@link dev.lanes.agent.apps.OwnLibrariesApp}.
 */
public final class LibraryUser implements Supplier<String> {
  @Override public String get() {
    return "doubles " + doubles("[1.5, 2.25e3, 3.141592653589793238, -0.000123456789012345e-7]")
        + "\nmade by Byte Buddy says " + made();
  }

  private static List<Double> doubles(String json) {
    JsonFactory factory = JsonFactory.builder().enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER).build();
    List<Double> out = new ArrayList<>();
    try (JsonParser p = factory.createParser(ObjectReadContext.empty(), json)) {
      for (JsonToken t; (t = p.nextToken()) != null; ) {
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
          out.add(p.getDoubleValue());
        }
      }
    }
    return out;
  }

  private static String made() {
    try {
      Object made = new ByteBuddy().subclass(Object.class)
          .name("dev.lanes.agent.apps.libuser.Made")
          .method(ElementMatchers.named("toString")).intercept(FixedValue.value("hello"))
          .make().load(LibraryUser.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded()
          .getConstructor().newInstance();
      return made.toString() + " (its Byte Buddy loaded by the child: "
          + (ByteBuddy.class.getClassLoader() == LibraryUser.class.getClassLoader()) + ")";
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
