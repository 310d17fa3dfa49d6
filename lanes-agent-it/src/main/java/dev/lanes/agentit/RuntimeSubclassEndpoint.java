package dev.lanes.agentit;

import static net.bytebuddy.matcher.ElementMatchers.named;

import java.util.LinkedHashMap;
import java.util.Map;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.pool.TypePool;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application's own Byte Buddy, used directly: a subclass of {@link Greeter} made and loaded at
 * run time (in a class loader of its own, under the application's), and {@link Greeter}'s class
 * file read back from the fat jar with a type pool.
 */
@RestController
class RuntimeSubclassEndpoint {

  @GetMapping("/runtime-subclass")
  Map<String, Object> runtimeSubclass() throws ReflectiveOperationException {
    Class<? extends Greeter> type = new ByteBuddy()
        .subclass(Greeter.class)
        .name(Greeter.class.getName() + "$MadeAtRunTime")
        .method(named("greet")).intercept(FixedValue.value("hello from a subclass made at run time"))
        .make()
        .load(Greeter.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
        .getLoaded();
    Greeter greeter = type.getDeclaredConstructor().newInstance();
    TypeDescription read = TypePool.Default.of(ClassFileLocator.ForClassLoader.of(Greeter.class.getClassLoader()))
        .describe(Greeter.class.getName()).resolve();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("class", type.getName());
    out.put("superclass", type.getSuperclass().getName());
    out.put("greeting", greeter.greet("lanes"));
    out.put("byteBuddyLoadedBy", loaderName(ByteBuddy.class.getClassLoader()));
    out.put("readFromClassFile", read.getDeclaredMethods().filter(named("greet")).getOnly().toGenericString());
    return out;
  }

  private static String loaderName(ClassLoader loader) {
    return loader == null ? "bootstrap" : loader.getClass().getSimpleName();
  }
}
